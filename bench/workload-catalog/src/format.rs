//! Numbers and strings written as the benchmark's own programs write them:
//! Go's `encoding/json` for the catalog service's answers, Python's `json`
//! for the values the seed stores, so every byte matches the originals'.

/// A `float64` as Go's `encoding/json` writes it: the shortest decimal that
/// reads back as the same value, without an exponent from 1e-6 to 1e21
/// (and no `.0` on whole numbers), else with one (`1e+21`, `1e-7`).
pub fn go_f64(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        return go_exponent(format!("{value:e}"));
    }
    format!("{value}")
}

/// A `float32` as Go's `encoding/json` writes it: the shortest decimal that
/// reads back as the same 32-bit value, with [`go_f64`]'s exponent rule.
pub fn go_f32(value: f32) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        return go_exponent(format!("{value:e}"));
    }
    format!("{value}")
}

/// Rust's `1e21` is Go's `1e+21`; negative exponents are alike (`1e-7`).
fn go_exponent(text: String) -> String {
    if text.contains("e-") { text } else { text.replacen('e', "e+", 1) }
}

/// A string as Go's `encoding/json` writes it: JSON's escapes, plus `<`,
/// `>`, `&`, U+2028 and U+2029 as `\u` escapes (HTML-safe, Go's default).
pub fn go_string(value: &str) -> String {
    let quoted = serde_json::Value::from(value).to_string();
    if !quoted.contains(['<', '>', '&', '\u{2028}', '\u{2029}']) {
        return quoted;
    }
    let mut escaped = String::with_capacity(quoted.len() + 16);
    for c in quoted.chars() {
        match c {
            '<' => escaped.push_str("\\u003c"),
            '>' => escaped.push_str("\\u003e"),
            '&' => escaped.push_str("\\u0026"),
            '\u{2028}' => escaped.push_str("\\u2028"),
            '\u{2029}' => escaped.push_str("\\u2029"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// A float as Python's `repr` (and so `json.dumps`) writes it, for the
/// magnitudes the seed stores (0.01 to 10,000): the shortest decimal that
/// reads back as the same value, whole numbers with `.0`.
pub fn python_float(value: f64) -> String {
    format!("{value:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_written_as_go_writes_them() {
        assert_eq!(go_f64(50.0), "50");
        assert_eq!(go_f64(50.5), "50.5");
        assert_eq!(go_f64(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(go_f64(1e21), "1e+21");
        assert_eq!(go_f64(1.5e-7), "1.5e-7");
        assert_eq!(go_f64(-0.0), "-0");
        assert_eq!(go_f32(1.0 + 3.0 / 10.0), "1.3");
        assert_eq!(go_string("a<b & \"c\""), r#""a\u003cb \u0026 \"c\"""#);
        assert_eq!(python_float(5.0), "5.0");
        assert_eq!(python_float(0.14), "0.14");
    }
}
