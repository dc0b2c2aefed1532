//! The report's declaration as data (issue 60): the types of src/types.rs as the compiler and
//! serde see them (schemars' JSON Schema: keys as serialized, what may be absent, docs), and the
//! core's lists that the shell repeats (the rating thresholds, the headers read, the metric
//! names), written to src/schema.json. scripts/schema.mjs generates the TypeScript types, the
//! shell's constants and the docs' report table from that file alone: no generator reads Rust.
//!
//! This test fails when src/schema.json is not what the core declares; `npm run schema` (which
//! sets `TOKENPAINT_WRITE_SCHEMA`) writes it again.

use crate::figures::browser::THRESHOLDS;
use crate::figures::Metric;
use crate::read::HEADERS;
use crate::types::{Progress, Report, Summary};
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::Schema;
use serde_json::{json, Value};

/// The file, from the crate's root.
const FILE: &str = "src/schema.json";

/// The declaration: every type reachable from the report, the summary and the progress, in the
/// order first reached (a type before those it holds), and the core's lists.
fn declaration() -> Value {
    // What a value is as written (a field skipped when empty is not required), without the
    // defaults serde would read into a missing field (the reader's concern, not the shape's).
    let settings = SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(RecursiveTransform(|s: &mut Schema| {
            s.remove("default");
        }));
    let mut generator = settings.into_generator();
    let roots = [
        generator.subschema_for::<Report>(),
        generator.subschema_for::<Summary>(),
        generator.subschema_for::<Progress>(),
    ];
    let types = generator.take_definitions(true);
    let roots: Vec<&str> = roots
        .iter()
        .filter_map(|r| r.get("$ref")?.as_str()?.rsplit('/').next())
        .collect();
    json!({
        "$comment": "Written by src/declared.rs from src/types.rs and the core's lists: do not edit (npm run schema).",
        "roots": roots,
        "types": types,
        "thresholds": THRESHOLDS.iter().map(|(n, good, poor)| json!([n, good, poor])).collect::<Vec<_>>(),
        "headers": HEADERS,
        "metrics": {
            "summary": Metric::ALL.iter().map(|m| m.name()).collect::<Vec<_>>(),
            "noTarget": Metric::ALL.iter().filter(|m| !m.has_target()).map(|m| m.name()).collect::<Vec<_>>(),
        },
    })
}

#[test]
fn schema_json_is_the_declaration() {
    let want = serde_json::to_string_pretty(&declaration()).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FILE);
    if std::env::var_os("TOKENPAINT_WRITE_SCHEMA").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{FILE} is not current: run `npm run schema` (it writes the file again)"
    );
}

#[test]
fn every_type_is_declared_with_its_docs() {
    let d = declaration();
    let types = d["types"].as_object().unwrap();
    // Every type of src/types.rs is reached from the three roots.
    let src = include_str!("types.rs");
    let declared = src.matches("\npub struct ").count() + src.matches("\npub enum ").count();
    assert_eq!(types.len(), declared, "{:?}", types.keys());
    for (name, t) in types {
        assert!(
            t["description"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: no doc"
        );
    }
    let report = &types["Report"]["properties"];
    assert!(report["ttftPerceived"]["description"].is_string());
    assert_eq!(d["roots"], json!(["Report", "Summary", "Progress"]));
}
