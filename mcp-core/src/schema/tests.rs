use super::*;
use serde_json::json;

fn portable(v: Value) -> Value {
    apply(SchemaProfile::Portable, v).unwrap()
}

#[test]
fn refs_are_inlined_and_siblings_win() {
    let raw = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"op": {"$ref": "#/$defs/Op", "description": "which one"}},
        "required": ["op"],
        "$defs": {"Op": {"type": "string", "enum": ["add", "sub"], "description": "an op"}}
    });
    assert_eq!(
        portable(raw),
        json!({
            "type": "object",
            "properties": {"op": {"type": "string", "enum": ["add", "sub"], "description": "which one"}},
            "required": ["op"]
        })
    );
}

#[test]
fn recursion_and_dangling_refs_are_errors() {
    let raw = json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object",
        "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
    assert_eq!(apply(SchemaProfile::Portable, raw), Err(SchemaError::Recursive { definition: "Node".into() }));
    let raw = json!({"properties": {"x": {"$ref": "https://example.com/x"}}});
    assert!(matches!(apply(SchemaProfile::Portable, raw), Err(SchemaError::UnresolvedRef { .. })));
}

#[test]
fn formats_nulls_and_nullable_are_dropped_but_bounds_kept() {
    let raw = json!({"type": "object", "properties": {
        "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
        "when": {"type": "string", "format": "date-time"},
        "x": {"anyOf": [{"type": "number", "format": "double"}, {"type": "null"}], "description": "d"},
        "y": {"type": "string", "nullable": true}
    }});
    assert_eq!(
        portable(raw),
        json!({"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
            "when": {"type": "string", "format": "date-time"},
            "x": {"description": "d", "type": "number"},
            "y": {"type": "string"}
        }})
    );
}

#[test]
fn the_checked_schema_keeps_null_wherever_serde_reads_it() {
    let raw = json!({"type": "object", "properties": {
        "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
        "x": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
        "list": {"type": "array", "items": {"type": ["string", "null"]}}
    }, "$defs": {"P": {"type": "object", "properties": {"a": {"type": "string"}}}}});
    assert_eq!(
        checked(raw),
        json!({"type": "object", "properties": {
            "n": {"type": ["integer", "null"], "minimum": 0, "maximum": 4294967295u32},
            "x": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]},
            "list": {"type": "array", "items": {"type": ["string", "null"]}}
        }})
    );
}

#[test]
fn output_schemas_leave_optional_nulls_out_and_open_the_others_without_type_lists() {
    let raw = json!({"type": "object", "properties": {
        "note": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": {"type": ["string", "null"]}},
        "kind": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]},
        "big": {"type": "integer", "format": "uint64", "minimum": 0},
        "unit": {"type": "null"}
    }, "required": ["kind", "big", "unit"]});
    let output = output_schema(SchemaProfile::Portable, raw).unwrap();
    assert_eq!(
        output,
        json!({"type": "object", "properties": {
            "note": {"type": "string"},
            "tags": {"type": "array", "items": {"description": "May be null."}},
            "kind": {"enum": ["a", "b", null], "description": "May be null."},
            "big": {"minimum": 0, "type": "integer"},
            "unit": {"type": "null"}
        }, "required": ["kind", "big", "unit"]})
    );
    let tool = crate::Tool { output_schema: output.as_object().cloned(), ..crate::Tool::new("t", Map::new()) };
    let problems = crate::clients::check_tool(&tool);
    // Only the standing note that Claude Desktop has greyed out tools
    // with any output schema.
    assert!(problems.iter().all(|p| p.client.id() == "claude-desktop"), "{problems:?}");
}

#[test]
fn properties_named_like_keywords_are_left_alone() {
    let raw = json!({"type": "object", "properties": {
        "format": {"type": "string"}, "nullable": {"type": "boolean"}, "$schema": {"type": "string"}
    }, "default": {"nullable": true}});
    assert_eq!(portable(raw.clone()), raw);
}

#[test]
fn documented_variants_become_a_string_enum_whose_description_keeps_their_docs() {
    let raw = json!({"oneOf": [
        {"type": "string", "const": "add", "description": "Add them"},
        {"type": "string", "const": "sub", "description": "Subtract"}
    ], "description": "op"});
    assert_eq!(
        portable(raw),
        json!({"description": "op\n- add: Add them\n- sub: Subtract", "type": "string", "enum": ["add", "sub"]})
    );
    assert_eq!(portable(json!({"enum": ["a", "b"]})), json!({"enum": ["a", "b"], "type": "string"}));
}

#[test]
fn input_schema_always_has_object_type_and_properties() {
    let s = input_schema(SchemaProfile::Portable, json!({})).unwrap();
    assert_eq!(Value::Object(s), json!({"type": "object", "properties": {}}));
    assert_eq!(input_schema(SchemaProfile::Strict, json!({"type": "string"})), Err(SchemaError::NotAnObject));
    let strict = json!({"type": "object", "properties": {"a": {"type": ["integer", "null"]}}, "$defs": {}});
    assert_eq!(Value::Object(input_schema(SchemaProfile::Strict, strict.clone()).unwrap()), strict);
}

fn checked(v: Value) -> Value {
    apply_checked(SchemaProfile::Portable, v).unwrap()
}

/// schemars' `#[serde(tag = "kind")] enum Shape { Circle { r: f64 }, Rect { w: f64, h: f64 }, At(Point), None }`.
fn internally_tagged() -> Value {
    json!({"oneOf": [
        {"description": "A circle.", "type": "object", "properties": {"kind": {"type": "string", "const": "circle"},
            "r": {"description": "The radius.", "type": "number", "format": "double"}}, "required": ["kind", "r"]},
        {"type": "object", "properties": {"kind": {"type": "string", "const": "rect"},
            "w": {"type": "number", "format": "double"}, "h": {"type": "number", "format": "double"}},
            "required": ["kind", "w", "h"]},
        {"type": "object", "properties": {"kind": {"type": "string", "const": "at"}}, "$ref": "#/$defs/Point",
            "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"type": "string", "const": "none"}}, "required": ["kind"]}
    ], "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x", "y"]}}})
}

#[test]
fn an_internally_tagged_enum_is_one_object_whose_fields_say_which_kind_needs_them() {
    let expected = json!({"type": "object", "properties": {
        "kind": {"type": "string", "enum": ["circle", "rect", "at", "none"], "description": "- circle: A circle."},
        "r": {"description": "The radius.\nRequired when kind is \"circle\".", "type": "number"},
        "w": {"type": "number", "description": "Required when kind is \"rect\"."},
        "h": {"type": "number", "description": "Required when kind is \"rect\"."},
        "x": {"type": "number", "description": "Required when kind is \"at\"."},
        "y": {"type": "number", "description": "Required when kind is \"at\"."}
    }, "required": ["kind"]});
    assert_eq!(portable(internally_tagged()), expected);
    // The checked schema adds what each kind needs, so that a call
    // missing one of its fields is told which, at the field's place.
    let when = |kind: &str, then: Value| json!({"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]}, "then": then});
    let mut expected = expected;
    expected["allOf"] = json!([
        when(
            "circle",
            json!({"properties": {"r": {"description": "The radius.", "type": "number"}}, "required": ["r"]})
        ),
        when("rect", json!({"properties": {"w": {"type": "number"}, "h": {"type": "number"}}, "required": ["w", "h"]})),
        when("at", json!({"properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]})),
    ]);
    assert_eq!(checked(internally_tagged()), expected);
}

#[test]
fn an_externally_tagged_enum_is_one_object_of_optional_variants() {
    let raw = json!({"oneOf": [
        {"type": "string", "enum": ["Empty"]},
        {"type": "object", "properties": {"Circle": {"type": "object", "properties": {"r": {"type": "number"}},
            "required": ["r"]}}, "required": ["Circle"], "additionalProperties": false,
            "description": "A round shape."},
        {"type": "object", "properties": {"Pair": {"type": "array", "prefixItems": [
            {"type": "integer", "format": "int32"}, {"type": "integer", "format": "int32"}],
            "minItems": 2, "maxItems": 2}}, "required": ["Pair"], "additionalProperties": false}
    ], "description": "A shape."});
    let int32 = json!({"type": "integer", "maximum": 2147483647, "minimum": -2147483648});
    let properties = json!({
        "Circle": {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"],
            "description": "A round shape."},
        "Pair": {"type": "array", "prefixItems": [int32, int32], "minItems": 2, "maxItems": 2, "items": int32}
    });
    let description =
        "A shape.\nExactly one of the fields `Circle`, `Pair` (or, instead of an object, the string \"Empty\").";
    assert_eq!(portable(raw.clone()), json!({"description": description, "type": "object", "properties": properties}));
    // The string is a valid value too: the checked schema takes the
    // unit variants' names as strings.
    assert_eq!(
        checked(raw),
        json!({"description": description, "type": ["object", "string"], "properties": properties,
            "additionalProperties": false, "allOf": [{"if": {"type": "string"}, "then": {"enum": ["Empty"]}}]})
    );
}

#[test]
fn an_adjacently_tagged_enum_merges_its_contents() {
    let raw = json!({"oneOf": [
        {"type": "object", "properties": {"t": {"type": "string", "const": "Circle"},
            "c": {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]}},
            "required": ["t", "c"]},
        {"type": "object", "properties": {"t": {"type": "string", "const": "Rect"},
            "c": {"type": "object", "properties": {"w": {"type": "number"}, "h": {"type": "number"}},
            "required": ["w", "h"]}}, "required": ["t", "c"]},
        {"type": "object", "properties": {"t": {"type": "string", "const": "Empty"}}, "required": ["t"]}
    ]});
    assert_eq!(
        portable(raw),
        json!({"type": "object", "properties": {
            "t": {"type": "string", "enum": ["Circle", "Rect", "Empty"]},
            "c": {"type": "object", "properties": {
                "r": {"type": "number", "description": "Required when t is \"Circle\"."},
                "w": {"type": "number", "description": "Required when t is \"Rect\"."},
                "h": {"type": "number", "description": "Required when t is \"Rect\"."}
            }, "description": "Required when t is \"Circle\" or \"Rect\"."}
        }, "required": ["t"]})
    );
}

#[test]
fn a_field_whose_type_depends_on_the_variant_is_advertised_as_the_first_and_checked_per_variant() {
    let raw = json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"type": "string", "const": "a"},
            "x": {"type": "integer", "format": "uint8"}}, "required": ["kind", "x"], "additionalProperties": false},
        {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}, "x": {"type": "string"}},
            "required": ["kind", "x"], "additionalProperties": false},
        {"type": "object", "properties": {"kind": {"type": "string", "const": "c"},
            "x": {"type": "integer", "format": "uint16"}}, "required": ["kind"], "additionalProperties": false}
    ]});
    let note = "Its type depends on the variant: an integer from 0 to 255 when kind is \"a\"; a string when kind \
                is \"b\"; an integer from 0 to 65535 when kind is \"c\".\nRequired when kind is \"a\" or \"b\"; \
                optional when kind is \"c\".";
    let advertised = portable(raw.clone());
    assert_eq!(
        advertised["properties"]["x"],
        json!({"type": "integer", "minimum": 0, "maximum": 255, "description": note})
    );
    assert_eq!(advertised["required"], json!(["kind"]));
    assert_eq!(advertised.get("additionalProperties"), None);
    let checked = checked(raw);
    assert_eq!(checked["properties"]["x"], json!({"description": note}));
    assert_eq!(checked["additionalProperties"], false);
    // Each kind's own type for it is checked when that kind is sent.
    assert_eq!(checked["allOf"][1]["then"]["properties"]["x"], json!({"type": "string"}));
    assert_eq!(
        checked["allOf"][2]["then"]["properties"]["x"],
        json!({"type": "integer", "minimum": 0, "maximum": 65535})
    );
}

#[test]
fn fields_of_one_type_keep_what_the_variants_agree_on() {
    let raw = json!({"oneOf": [
        {"type": "object", "properties": {"k": {"const": "a", "type": "string"},
            "n": {"type": "integer", "minimum": 0, "maximum": 9}, "m": {"type": "string", "enum": ["x"]}},
            "required": ["k", "n", "m"]},
        {"type": "object", "properties": {"k": {"const": "b", "type": "string"},
            "n": {"type": "integer", "minimum": 0, "maximum": 99}, "m": {"type": "string", "enum": ["y"]}},
            "required": ["k", "n", "m"]}
    ]});
    assert_eq!(
        portable(raw),
        json!({"type": "object", "properties": {
            "k": {"type": "string", "enum": ["a", "b"]},
            "n": {"type": "integer", "minimum": 0},
            "m": {"type": "string", "enum": ["x", "y"]}
        }, "required": ["k", "n", "m"]})
    );
}

#[test]
fn untagged_structs_merge_and_untagged_plain_types_stay() {
    let structs = json!({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "integer", "format": "uint32", "minimum": 0}},
            "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "string"}, "c": {"type": ["boolean", "null"]}},
            "required": ["b"]}
    ]});
    assert_eq!(
        portable(structs),
        json!({"type": "object", "properties": {
            "a": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
            "b": {"type": "string"},
            "c": {"type": "boolean"}
        }, "description": "The fields of exactly one of these forms: {`a`}, {`b`, `c`}."})
    );
    let plain = json!({"anyOf": [{"type": "integer", "format": "uint64", "minimum": 0}, {"type": "string"}]});
    assert_eq!(
        portable(plain),
        json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER}, {"type": "string"}]})
    );
}

#[test]
fn an_optional_tagged_enum_and_a_struct_flattening_one_merge_too() {
    let optional = json!({"anyOf": [{"$ref": "#/$defs/E"}, {"type": "null"}], "description": "maybe",
    "$defs": {"E": {"oneOf": [
        {"type": "object", "properties": {"k": {"type": "string", "const": "a"}, "x": {"type": "number"}},
            "required": ["k", "x"]},
        {"type": "object", "properties": {"k": {"type": "string", "const": "b"}}, "required": ["k"]}
    ]}}});
    assert_eq!(
        portable(optional),
        json!({"description": "maybe", "type": "object", "properties": {
            "k": {"type": "string", "enum": ["a", "b"]},
            "x": {"type": "number", "description": "Required when k is \"a\"."}
        }, "required": ["k"]})
    );
    let flattened = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
    "oneOf": [
        {"type": "object", "properties": {"k": {"type": "string", "const": "a"}}, "required": ["k"]},
        {"type": "object", "properties": {"k": {"type": "string", "const": "b"}}, "required": ["k"]}
    ]});
    assert_eq!(
        portable(flattened),
        json!({"type": "object", "properties": {"name": {"type": "string"},
            "k": {"type": "string", "enum": ["a", "b"]}}, "required": ["name", "k"]})
    );
}

#[test]
fn maps_get_properties_and_describe_their_values() {
    let raw = json!({"type": "object", "properties": {
        "scores": {"type": "object", "additionalProperties": {"type": "integer", "format": "uint64",
            "minimum": 0}, "description": "Scores by name."},
        "points": {"type": "object", "additionalProperties": {"type": "object",
            "properties": {"x": {"type": "number"}}, "required": ["x"]}},
        "any": {"type": "object", "additionalProperties": true},
        "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}
    }});
    assert_eq!(
        portable(raw.clone()),
        json!({"type": "object", "properties": {
            "scores": {"type": "object", "description": "Scores by name.\nAny field names; each value is an \
                integer from 0 to 9007199254740991.", "properties": {}},
            "points": {"type": "object", "properties": {}, "description": "Any field names; each value is a \
                value of the JSON Schema {\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}},\
                \"required\":[\"x\"]}."},
            "any": {"type": "object", "properties": {}, "description": "Any field names, with any values."},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}}
        }})
    );
    let checked = checked(raw);
    assert_eq!(
        checked["properties"]["scores"],
        json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0,
            "maximum": 18446744073709551615u64}, "description": "Scores by name.", "properties": {}})
    );
    assert_eq!(checked["properties"]["closed"]["additionalProperties"], false);
}

#[test]
fn integer_bounds_are_clamped_to_what_javascript_holds_only_when_advertised() {
    let raw = json!({"type": "object", "properties": {
        "u": {"type": "integer", "format": "uint64", "minimum": 0},
        "i": {"type": "integer", "format": "int64"},
        "x": {"type": "integer", "exclusiveMaximum": 1e20},
        "f": {"type": "number", "maximum": 1e20}
    }});
    assert_eq!(
        portable(raw.clone())["properties"],
        json!({
            "u": {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER},
            "i": {"type": "integer", "minimum": -MAX_SAFE_INTEGER, "maximum": MAX_SAFE_INTEGER},
            "x": {"type": "integer", "exclusiveMaximum": MAX_SAFE_INTEGER},
            "f": {"type": "number", "maximum": 1e20}
        })
    );
    assert_eq!(checked(raw)["properties"]["i"], json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}));
}

#[test]
fn arrays_always_have_items() {
    let raw = json!({"type": "object", "properties": {
        "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string", "description": "b"}]},
        "mixed": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
        "any": {"type": "array", "items": true}
    }});
    assert_eq!(
        portable(raw)["properties"],
        json!({
            "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string", "description": "b"}],
                "items": {"type": "string"}},
            "mixed": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": {}},
            "any": {"type": "array", "items": {}}
        })
    );
}

#[test]
fn the_portable_shapes_of_ordinary_types_pass_every_client_and_the_strict_ones_do_not() {
    let tool = |schema: Value| crate::Tool::new("t", input_schema(SchemaProfile::Portable, schema).unwrap());
    let mut shape = internally_tagged();
    let defs = shape.as_object_mut().unwrap().remove("$defs").unwrap();
    let raw = json!({"type": "object", "$defs": defs, "properties": {"shape": shape,
        "map": {"type": "object", "additionalProperties": {"type": "integer", "format": "uint64", "minimum": 0}},
        "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}}});
    assert_eq!(crate::clients::check_tool(&tool(raw.clone())), []);
    let strict = crate::Tool::new("t", input_schema(SchemaProfile::Strict, raw).unwrap());
    let clients: std::collections::BTreeSet<_> =
        crate::clients::check_tool(&strict).into_iter().map(|p| p.client.id()).collect();
    // Claude Code minds `$defs` only in output schemas, and schemars
    // gives a `u64` no `maximum`.
    let expected = ["claude-desktop", "codex", "cursor", "gemini-cli", "visual-studio", "vscode"];
    assert_eq!(clients, expected.into_iter().collect());
}
