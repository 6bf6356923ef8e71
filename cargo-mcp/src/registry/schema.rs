//! `server.json` against the registry's schema of 2025-12-11, pinned in
//! `schemas/` (see its README for where it comes from).

use serde_json::Value;

const SCHEMA: &str = include_str!("../../schemas/server.schema.2025-12-11.json");

/// Every way `document` breaks the schema, each with where: empty when
/// it is valid.
pub fn violations(document: &Value) -> Vec<String> {
    let schema: Value = match serde_json::from_str(SCHEMA) {
        Ok(schema) => schema,
        Err(e) => return vec![format!("the pinned schema does not parse: {e}")],
    };
    let validator = match jsonschema::draft7::options().should_validate_formats(true).build(&schema) {
        Ok(validator) => validator,
        Err(e) => return vec![format!("the pinned schema is not usable: {e}")],
    };
    validator
        .iter_errors(document)
        .map(|error| {
            let at = error.instance_path().to_string();
            format!("{}: {error}", if at.is_empty() { "/" } else { &at })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_schema_refuses_what_the_registry_refuses() {
        let valid = json!({"name": "io.github.o/x", "description": "d", "version": "1.0.0",
                           "packages": [{"registryType": "cargo", "identifier": "x", "version": "1.0.0",
                                         "transport": {"type": "stdio"}}]});
        assert_eq!(violations(&valid), Vec::<String>::new());
        let mut two_slashes = valid.clone();
        two_slashes["name"] = json!("io.github.o/x/y");
        assert_eq!(violations(&two_slashes).len(), 1, "{:?}", violations(&two_slashes));
        let mut long = valid.clone();
        long["description"] = json!("d".repeat(101));
        assert!(violations(&long)[0].starts_with("/description"), "{:?}", violations(&long));
        let mut latest = valid;
        latest["packages"][0]["version"] = json!("latest");
        assert!(violations(&latest)[0].starts_with("/packages/0/version"), "{:?}", violations(&latest));
    }
}
