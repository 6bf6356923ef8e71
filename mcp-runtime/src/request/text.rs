//! Values that arrive as text (URI template variables now, prompt
//! arguments next), read into a parameter's type through serde: strings,
//! numbers, booleans, `char`, unit enums by their serde names, and
//! `Option` of those.

use serde::de::{self, Deserializer, IntoDeserializer, Visitor};

/// A deserializer over one text value: numbers and booleans are parsed from
/// it, everything else sees the text itself.
pub(crate) struct Text<'a>(pub(crate) &'a str);

type Error = de::value::Error;

macro_rules! parsed {
    ($($method:ident => $visit:ident: $t:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse::<$t>() {
                Ok(value) => visitor.$visit(value),
                Err(_) => Err(de::Error::custom(format_args!(
                    "expected {}, got {:?}", stringify!($t), self.0
                ))),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Text<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.0)
    }

    parsed! {
        deserialize_bool => visit_bool: bool,
        deserialize_i8 => visit_i8: i8, deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32, deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8, deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32, deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f32: f32, deserialize_f64 => visit_f64: f64,
        deserialize_char => visit_char: char,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// What is wrong with reading a value of this JSON schema from text, if
/// anything: its declared types must be scalars (`null`, for an `Option`,
/// aside). A schema without a `type` (an enum's `oneOf`, an `Option`'s
/// `anyOf`) is let through and read like any other.
pub(crate) fn not_text(schema: &serde_json::Value) -> Option<&'static str> {
    let types: Vec<&str> = match schema.get("type") {
        Some(serde_json::Value::String(t)) => vec![t.as_str()],
        Some(serde_json::Value::Array(ts)) => ts.iter().filter_map(serde_json::Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.contains(&"object") {
        Some("an object")
    } else if types.contains(&"array") {
        Some("a list")
    } else {
        None
    }
}

/// The values a value of this schema can take, when it says (an enum's, a
/// `bool`'s), for completions.
pub(crate) fn known_values(schema: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    let defs = schema.get("$defs");
    // An `Option<T>`: the branch that is not `null`, following a `$ref`.
    let mut node = schema;
    for _ in 0..2 {
        let branch = node
            .get("anyOf")
            .and_then(Value::as_array)
            .and_then(|branches| branches.iter().find(|b| b.get("type") != Some(&Value::from("null"))));
        if let Some(branch) = branch {
            node = branch;
        }
        if let Some(name) = node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
            match defs.and_then(|d| d.get(name)) {
                Some(def) => node = def,
                None => return Vec::new(),
            }
        }
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return values.iter().filter_map(Value::as_str).map(str::to_owned).collect();
    }
    if let Some(branches) = node.get("oneOf").and_then(Value::as_array) {
        let values: Vec<String> = branches
            .iter()
            .filter_map(|b| b.get("const").or_else(|| b.get("enum").and_then(|e| e.get(0))))
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        if values.len() == branches.len() {
            return values;
        }
    }
    let is_bool = match node.get("type") {
        Some(Value::String(t)) => t == "boolean",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "boolean"),
        _ => false,
    };
    if is_bool { vec!["false".to_owned(), "true".to_owned()] } else { Vec::new() }
}

/// Read `text` as a `T`.
pub(crate) fn from_text<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    T::deserialize(Text(text)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Color {
        Red,
        DarkBlue,
    }

    #[test]
    fn text_becomes_scalars_enums_and_options() {
        assert_eq!(from_text::<u64>("42"), Ok(42));
        assert_eq!(from_text::<i32>("-7"), Ok(-7));
        assert_eq!(from_text::<f64>("2.5"), Ok(2.5));
        assert_eq!(from_text::<bool>("true"), Ok(true));
        assert_eq!(from_text::<String>("a b"), Ok("a b".to_owned()));
        assert_eq!(from_text::<Option<u8>>("3"), Ok(Some(3)));
        assert_eq!(from_text::<Color>("red"), Ok(Color::Red));
        assert_eq!(from_text::<Color>("darkblue"), Ok(Color::DarkBlue));
        assert_eq!(from_text::<u64>("x"), Err("expected u64, got \"x\"".to_owned()));
        assert!(from_text::<Color>("green").unwrap_err().contains("unknown variant `green`"));
    }
}
