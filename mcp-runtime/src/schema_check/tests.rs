use serde_json::{Value, json};

use super::{Kind, Schema};

fn schema(schema: Value) -> Schema {
    Schema::compile(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"))
}

/// Each problem as `path: message` (the `Display` form), checking that
/// `is_valid` agrees with the list being empty.
fn problems(schema: &Schema, value: Value) -> Vec<String> {
    let found: Vec<String> = schema.problems(&value).iter().map(ToString::to_string).collect();
    assert_eq!(schema.is_valid(&value), found.is_empty(), "{value}: {found:?}");
    found
}

fn fits(schema: &Schema, value: Value) -> bool {
    problems(schema, value).is_empty()
}

#[test]
fn types_single_listed_and_integers_written_with_a_fraction() {
    let s = schema(json!({"type": "integer"}));
    assert!(fits(&s, json!(3)) && fits(&s, json!(-3)) && fits(&s, json!(3.0)));
    assert_eq!(problems(&s, json!(3.5)), ["at the top level: expected an integer, got the number 3.5"]);
    let s = schema(json!({"type": ["string", "null"]}));
    assert!(fits(&s, json!(null)) && fits(&s, json!("x")));
    assert_eq!(problems(&s, json!(1)), ["at the top level: expected a string, got the number 1"]);
    let s = schema(json!({"type": ["object", "integer", "null"]}));
    assert_eq!(problems(&s, json!(true)), ["at the top level: expected an integer or an object, got the boolean true"]);
    let s = schema(json!({"type": "number"}));
    assert!(fits(&s, json!(1)) && fits(&s, json!(1.5)));
    assert!(!fits(&s, json!("1")));
}

#[test]
fn a_wrong_type_is_the_only_problem_told_at_its_place() {
    let s = schema(json!({"type": "string", "minLength": 3, "enum": ["abc"]}));
    assert_eq!(problems(&s, json!(5)), ["at the top level: expected a string, got the number 5"]);
}

#[test]
fn enum_and_const_compare_numbers_by_value() {
    let s = schema(json!({"enum": ["a", 1, [1, {"x": 2}]]}));
    assert!(fits(&s, json!("a")) && fits(&s, json!(1.0)) && fits(&s, json!([1.0, {"x": 2}])));
    assert_eq!(
        problems(&s, json!("b")),
        ["at the top level: expected one of \"a\", 1, [1,{\"x\":2}], got the string \"b\""]
    );
    let s = schema(json!({"const": {"a": 1}}));
    assert!(fits(&s, json!({"a": 1.0})));
    assert_eq!(problems(&s, json!({"a": 2})), ["at the top level: expected exactly {\"a\":1}, got an object"]);
}

#[test]
fn numeric_bounds_keep_the_limit_as_written() {
    let s = schema(json!({"minimum": 0.0, "maximum": 1.0}));
    assert!(fits(&s, json!(0)) && fits(&s, json!(1)) && fits(&s, json!(0.5)));
    assert_eq!(problems(&s, json!(1.5)), ["at the top level: must be at most 1.0, got the number 1.5"]);
    assert_eq!(problems(&s, json!(-1)), ["at the top level: must be at least 0.0, got the number -1"]);
    let s = schema(json!({"exclusiveMinimum": 0, "exclusiveMaximum": 10}));
    assert!(fits(&s, json!(5)));
    assert_eq!(problems(&s, json!(0)), ["at the top level: must be greater than 0, got the number 0"]);
    assert_eq!(problems(&s, json!(10)), ["at the top level: must be less than 10, got the number 10"]);
    // Wide integers compare exactly.
    let s = schema(json!({"maximum": u64::MAX - 1}));
    assert!(fits(&s, json!(u64::MAX - 1)));
    assert!(!fits(&s, json!(u64::MAX)));
    let s = schema(json!({"minimum": i64::MIN + 1}));
    assert!(!fits(&s, json!(i64::MIN)));
}

#[test]
fn multiple_of_integers_exactly_and_decimals_as_written() {
    let s = schema(json!({"multipleOf": 3}));
    assert!(fits(&s, json!(9)) && fits(&s, json!(0)) && fits(&s, json!(-6)) && fits(&s, json!(9.0)));
    assert_eq!(problems(&s, json!(10)), ["at the top level: must be a multiple of 3, got the number 10"]);
    let s = schema(json!({"multipleOf": 0.1}));
    assert!(fits(&s, json!(0.3)) && fits(&s, json!(2)) && fits(&s, json!(1.7)));
    assert!(!fits(&s, json!(0.35)));
}

#[test]
fn lengths_count_characters_not_bytes() {
    let s = schema(json!({"type": "string", "minLength": 2, "maxLength": 3}));
    assert!(fits(&s, json!("日本")) && fits(&s, json!("né€")) && fits(&s, json!("🦀🦀🦀")));
    assert_eq!(
        problems(&s, json!("🦀")),
        ["at the top level: must be at least 2 characters long, got the string \"🦀\""]
    );
    assert_eq!(
        problems(&s, json!("🦀🦀🦀🦀")),
        ["at the top level: must be at most 3 characters long, got the string \"🦀🦀🦀🦀\""]
    );
    let s = schema(json!({"maxLength": 1}));
    assert_eq!(
        problems(&s, json!("ab")),
        ["at the top level: must be at most 1 character long, got the string \"ab\""]
    );
    // Length applies to strings only.
    assert!(fits(&s, json!(12345)));
}

#[test]
fn patterns_search_unless_anchored() {
    let s = schema(json!({"pattern": "^[A-Z]{2}-\\d{3}$"}));
    assert!(fits(&s, json!("AB-123")));
    assert_eq!(
        problems(&s, json!("ab-1")),
        ["at the top level: must match the pattern `^[A-Z]{2}-\\d{3}$`, got the string \"ab-1\""]
    );
    let s = schema(json!({"pattern": "b+"}));
    assert!(fits(&s, json!("abbc")));
    assert!(!fits(&s, json!("ac")));
    // Unicode text matches character by character.
    let s = schema(json!({"pattern": "^.{2}$"}));
    assert!(fits(&s, json!("日本")));
}

#[test]
fn arrays_items_prefix_items_bounds_and_uniqueness() {
    let s = schema(json!({
        "type": "array",
        "prefixItems": [{"type": "string"}],
        "items": {"type": "integer"},
        "minItems": 1,
        "maxItems": 3,
        "uniqueItems": true
    }));
    assert!(fits(&s, json!(["a", 1, 2])));
    assert_eq!(problems(&s, json!([])), ["at the top level: must have at least 1 item, got an array of 0 items"]);
    assert_eq!(
        problems(&s, json!(["a", 1, 2, 3])),
        ["at the top level: must have at most 3 items, got an array of 4 items"]
    );
    assert_eq!(
        problems(&s, json!(["a", 1, 1.0])),
        ["at the top level: must not repeat items, got an array of 3 items"]
    );
    assert_eq!(
        problems(&s, json!([1, "b"])),
        ["at `/0`: expected a string, got the number 1", "at `/1`: expected an integer, got the string \"b\""]
    );
    let s = schema(json!({"prefixItems": [true], "items": false}));
    assert!(fits(&s, json!([7])));
    assert_eq!(problems(&s, json!([7, 8])), ["at `/1`: is not allowed here, got the number 8"]);
}

#[test]
fn contains_with_its_bounds() {
    let s = schema(json!({"contains": {"type": "string"}}));
    assert!(fits(&s, json!([1, "a"])));
    assert_eq!(
        problems(&s, json!([1, 2])),
        ["at the top level: must have at least 1 item of the required kind, got an array of 2 items"]
    );
    let s = schema(json!({"contains": {"type": "string"}, "minContains": 0, "maxContains": 1}));
    assert!(fits(&s, json!([1])) && fits(&s, json!(["a", 1])));
    assert!(!fits(&s, json!(["a", "b"])));
}

#[test]
fn objects_required_first_then_fields_then_unknown_ones() {
    let s = schema(json!({
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
        "additionalProperties": false
    }));
    assert!(fits(&s, json!({"a": 1, "b": 2})));
    assert_eq!(
        problems(&s, json!({"b": "two", "z": 1, "y": 2})),
        [
            "at `/a`: required but not sent",
            "at `/b`: expected a number, got the string \"two\"",
            "at the top level: unknown field `z`, `y`"
        ]
    );
    let s = schema(
        json!({"additionalProperties": {"type": "integer", "maximum": 255}, "minProperties": 1, "maxProperties": 2}),
    );
    assert!(fits(&s, json!({"a": 1})));
    assert_eq!(problems(&s, json!({"a": 300})), ["at `/a`: must be at most 255, got the number 300"]);
    assert_eq!(problems(&s, json!({})), ["at the top level: must have at least 1 field, got an object"]);
    assert_eq!(
        problems(&s, json!({"a": 1, "b": 2, "c": 3})),
        ["at the top level: must have at most 2 fields, got an object"]
    );
}

#[test]
fn pattern_properties_property_names_and_dependencies() {
    let s = schema(json!({
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": false,
        "propertyNames": {"maxLength": 4}
    }));
    assert!(fits(&s, json!({"x-a": "v"})));
    assert_eq!(problems(&s, json!({"x-a": 1})), ["at `/x-a`: expected a string, got the number 1"]);
    assert_eq!(problems(&s, json!({"y": 1})), ["at the top level: unknown field `y`"]);
    assert_eq!(problems(&s, json!({"x-abc": "v"})), ["at the top level: field name `x-abc` is not allowed"]);
    let s = schema(json!({
        "dependentRequired": {"card": ["billing"]},
        "dependentSchemas": {"gift": {"required": ["note"]}}
    }));
    assert!(fits(&s, json!({})) && fits(&s, json!({"card": 1, "billing": 2})));
    assert_eq!(problems(&s, json!({"card": 1})), ["at `/billing`: required when `card` is sent"]);
    assert_eq!(problems(&s, json!({"gift": true})), ["at `/note`: required but not sent"]);
}

#[test]
fn combinators() {
    let s = schema(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
    assert!(fits(&s, json!("a")) && fits(&s, json!(1)));
    // No branch takes a fraction: the types they take are what to send.
    assert_eq!(problems(&s, json!(1.5)), ["at the top level: expected an integer or a string, got the number 1.5"]);
    let s = schema(json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}));
    assert!(fits(&s, json!(1.5)));
    assert_eq!(problems(&s, json!(1)), ["at the top level: matches more than one accepted shape, got the number 1"]);
    assert_eq!(problems(&s, json!("a")), ["at the top level: expected an integer or a number, got the string \"a\""]);
    let s = schema(json!({"anyOf": [{"minimum": 5}, {"maximum": 1}]}));
    assert_eq!(
        problems(&s, json!(3)),
        ["at the top level: does not match any of the accepted shapes, got the number 3"]
    );
    let s = schema(json!({"allOf": [{"minimum": 1}, {"maximum": 3}]}));
    assert!(fits(&s, json!(2)));
    assert_eq!(problems(&s, json!(5)), ["at the top level: must be at most 3, got the number 5"]);
    let s = schema(json!({"not": {"const": "root"}}));
    assert!(fits(&s, json!("ada")));
    assert_eq!(
        problems(&s, json!("root")),
        ["at the top level: matches a shape that is not allowed, got the string \"root\""]
    );
    let s = schema(json!({
        "if": {"properties": {"kind": {"const": "circle"}}},
        "then": {"required": ["r"]},
        "else": {"required": ["w"]}
    }));
    assert!(fits(&s, json!({"kind": "circle", "r": 1})) && fits(&s, json!({"kind": "rect", "w": 1})));
    assert_eq!(problems(&s, json!({"kind": "circle"})), ["at `/r`: required but not sent"]);
    assert_eq!(problems(&s, json!({"kind": "rect"})), ["at `/w`: required but not sent"]);
    assert!(fits(&schema(json!(true)), json!(1)));
    assert_eq!(problems(&schema(json!(false)), json!(1)), ["at the top level: is not allowed here, got the number 1"]);
}

#[test]
fn refs_to_defs_and_definitions_and_recursion() {
    let s = schema(json!({
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                "required": ["value"]
            }
        },
        "definitions": {"Name": {"type": "string", "minLength": 1}},
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}, "name": {"$ref": "#/definitions/Name"}}
    }));
    let tree = json!({"tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}, "name": "t"});
    assert!(fits(&s, tree));
    assert_eq!(
        problems(&s, json!({"tree": {"value": 1, "children": [{"value": 2, "children": [{"value": "x"}, {}]}]}})),
        [
            "at `/tree/children/0/children/0/value`: expected an integer, got the string \"x\"",
            "at `/tree/children/0/children/1/value`: required but not sent"
        ]
    );
    assert_eq!(
        problems(&s, json!({"name": ""})),
        ["at `/name`: must be at least 1 character long, got the string \"\""]
    );
    // A schema referring to itself as a whole.
    let s = schema(json!({"type": "array", "items": {"anyOf": [{"type": "integer"}, {"$ref": "#"}]}}));
    assert!(fits(&s, json!([1, [2, [3]]])));
    assert!(!fits(&s, json!([1, [2, ["x"]]])));
    // Escaped pointers.
    let s = schema(json!({"$defs": {"a/b c": {"type": "string"}}, "$ref": "#/$defs/a~1b%20c"}));
    assert!(fits(&s, json!("x")) && !fits(&s, json!(1)));
}

#[test]
fn unevaluated_properties_see_through_all_of_refs_and_branches() {
    let s = schema(json!({
        "$defs": {"Base": {"properties": {"id": {"type": "integer"}}}},
        "allOf": [{"$ref": "#/$defs/Base"}],
        "anyOf": [{"properties": {"a": true}, "required": ["a"]}, {"properties": {"b": true}, "required": ["b"]}],
        "properties": {"name": {"type": "string"}},
        "unevaluatedProperties": false
    }));
    assert!(fits(&s, json!({"id": 1, "name": "n", "a": 1})));
    assert!(fits(&s, json!({"b": 1})));
    assert_eq!(problems(&s, json!({"a": 1, "b": 1, "c": 1, "id": 1})), ["at the top level: unknown field `c`"]);
    // `b` is evaluated only by the branch that does not match.
    let s = schema(json!({
        "oneOf": [{"properties": {"a": true}, "required": ["a"]}, {"properties": {"b": true}, "required": ["c"]}],
        "unevaluatedProperties": false
    }));
    assert_eq!(problems(&s, json!({"a": 1, "b": 1})), ["at the top level: unknown field `b`"]);
    let s =
        schema(json!({"prefixItems": [true], "allOf": [{"contains": {"type": "string"}}], "unevaluatedItems": false}));
    assert!(fits(&s, json!([1, "a", "b"])));
    assert_eq!(
        problems(&s, json!([1, "a", 2])),
        ["at the top level: has more items than its shape allows, got an array of 3 items"]
    );
}

#[test]
fn annotations_and_formats_assert_nothing() {
    let s = schema(json!({
        "title": "t", "description": "d", "default": 1, "examples": [1], "$schema": "https://json-schema.org/draft/2020-12/schema",
        "format": "email", "x-vendor": {"type": "string"}, "deprecated": true, "readOnly": true
    }));
    assert!(fits(&s, json!("not an email")) && fits(&s, json!(5)));
    let s = schema(json!({"type": "string", "format": "date-time"}));
    assert!(fits(&s, json!("yesterday")));
}

#[test]
fn malformed_schemas_are_refused_with_the_place() {
    let cases = [
        (json!({"type": "strnig"}), "at `#/type`: \"strnig\" is not a JSON Schema type"),
        (
            json!({"properties": {"a": {"minLength": "3"}}}),
            "at `#/properties/a/minLength`: must be a non-negative integer",
        ),
        (json!({"maxItems": -1}), "at `#/maxItems`: must be a non-negative integer"),
        (json!({"minimum": "0"}), "at `#/minimum`: must be a number"),
        (json!({"multipleOf": 0}), "at `#/multipleOf`: must be greater than 0"),
        (json!({"pattern": "(unclosed"}), "at `#/pattern`: the pattern `(unclosed` is not supported"),
        (json!({"pattern": "(?=look)ahead"}), "the pattern `(?=look)ahead` is not supported"),
        (json!({"required": "a"}), "at `#/required`: must be an array"),
        (json!({"anyOf": []}), "at `#/anyOf`: must list at least one schema"),
        (json!({"items": [{"type": "string"}]}), "`items` must be a schema"),
        (json!({"not": 5}), "at `#/not`: a schema must be an object or a boolean"),
        (json!({"$ref": "#/$defs/Missing"}), "`#/$defs/Missing` points at nothing"),
        (json!({"$ref": "https://example.com/schema"}), "only references into the same schema"),
        (json!({"$ref": "#anchor"}), "only references into the same schema"),
        (json!({"uniqueItems": "yes"}), "at `#/uniqueItems`: must be true or false"),
    ];
    for (bad, expected) in cases {
        let error = Schema::compile(&bad).err().unwrap_or_else(|| panic!("{bad} compiled"));
        assert!(error.contains(expected), "{bad}: {error}");
    }
}

#[test]
fn problems_carry_their_path_instance_and_kind() {
    let s = schema(json!({"properties": {"list": {"items": {"properties": {"n": {"maximum": 2}}}}}}));
    let value = json!({"list": [{"n": 1}, {"n": 3}]});
    let found = s.problems(&value);
    let [problem] = found.as_slice() else { panic!("{found:?}") };
    assert_eq!(problem.path.to_string(), "list[1].n");
    assert_eq!(problem.path.pointer(), "/list/1/n");
    assert_eq!(problem.instance, &json!(3));
    assert!(matches!(problem.kind, Kind::Maximum(limit) if limit.as_u64() == Some(2)));
}

/// schemars' `Option<Filter>` and a `#[serde(tag = "kind")]` enum, as the
/// strict profile keeps them.
fn optional_and_tagged() -> Schema {
    schema(json!({
        "type": "object",
        "properties": {
            "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}]},
            "to": {"anyOf": [{"$ref": "#/$defs/Assignee"}, {"type": "null"}]}
        },
        "$defs": {
            "Filter": {"type": "object", "properties": {
                "status": {"type": "string", "enum": ["open", "closed"]},
                "limit": {"type": ["integer", "null"]}
            }, "required": ["status"]},
            "Assignee": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "user"}, "login": {"type": "string"}},
                    "required": ["kind", "login"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "team"}, "size": {"type": "integer"}},
                    "required": ["kind", "size"]}
            ]}
        }
    }))
}

#[test]
fn a_value_that_is_not_null_is_checked_against_the_branch_that_is_not_only_null() {
    let s = optional_and_tagged();
    assert!(fits(&s, json!({"filter": null, "to": null})));
    assert_eq!(
        problems(&s, json!({"filter": {"status": "opened"}})),
        ["at `/filter/status`: expected one of \"open\", \"closed\", got the string \"opened\""]
    );
    assert_eq!(
        problems(&s, json!({"filter": {"status": "open", "limit": "x"}})),
        ["at `/filter/limit`: expected an integer, got the string \"x\""]
    );
    assert_eq!(problems(&s, json!({"filter": {}})), ["at `/filter/status`: required but not sent"]);
    assert_eq!(problems(&s, json!({"filter": 5})), ["at `/filter`: expected an object, got the number 5"]);
}

#[test]
fn a_tag_names_the_branch_whose_problems_are_told_or_is_itself_the_problem() {
    let s = optional_and_tagged();
    assert!(fits(&s, json!({"to": {"kind": "team", "size": 3}})));
    assert_eq!(
        problems(&s, json!({"to": {"kind": "team", "size": "big"}})),
        ["at `/to/size`: expected an integer, got the string \"big\""]
    );
    assert_eq!(problems(&s, json!({"to": {"kind": "user"}})), ["at `/to/login`: required but not sent"]);
    assert_eq!(
        problems(&s, json!({"to": {"kind": "robot"}})),
        ["at `/to/kind`: expected one of \"user\", \"team\", got the string \"robot\""]
    );
    assert_eq!(problems(&s, json!({"to": {"login": "ada"}})), ["at `/to/kind`: required but not sent"]);
}

#[test]
fn without_a_tag_the_branch_whose_required_fields_are_sent_is_meant() {
    let s = schema(json!({"anyOf": [
        {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    ]}));
    assert_eq!(problems(&s, json!({"id": "x"})), ["at `/id`: expected an integer, got the string \"x\""]);
    assert_eq!(problems(&s, json!({})), ["at the top level: does not match any of the accepted shapes, got an object"]);
}

#[test]
fn integral_floats_become_integers_only_where_an_integer_is_asked_for() {
    let s = schema(json!({"type": "object", "properties": {
        "n": {"type": "integer"},
        "x": {"type": "number"},
        "list": {"type": "array", "items": {"type": ["integer", "null"]}},
        "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "number"}]},
        "maybe": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]},
        "map": {"type": "object", "additionalProperties": {"type": "integer"}}
    }, "$defs": {"Inner": {"type": "object", "properties": {"m": {"type": "integer"}}}}}));
    let mut value = json!({
        "n": 5.0, "x": 2.0, "list": [1.0, null, -3.0], "pair": [4.0, 4.0],
        "maybe": {"m": 1e3}, "map": {"a": 18446744073709551615.0, "b": 1e30}
    });
    assert!(s.is_valid(&value));
    s.make_integral(&mut value);
    assert_eq!(value["n"], json!(5));
    assert!(value["x"].is_f64(), "a number may keep its fraction point");
    assert_eq!(value["list"], json!([1, null, -3]));
    assert!(value["pair"][0].is_i64() && value["pair"][1].is_f64());
    assert_eq!(value["maybe"]["m"], json!(1000));
    // 2^64 - 1 is not a float; its nearest float, 2^64, and 1e30 fit no
    // 64-bit integer and stay as sent, for serde to refuse.
    assert!(value["map"]["a"].is_f64() && value["map"]["b"].is_f64());
}
