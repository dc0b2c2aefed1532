//! The words that cross between the shell and the core are declared once, in src/words.json
//! (issue 60): the shell's side is generated from it (scripts/words.mjs: js/words.js,
//! js/words.d.ts, js/core/weak.js), and the core's own lists are held to it here, both ways and
//! in order.

use crate::read::wire::Format;
use crate::timeline::session::{EndKind, DOM_REASONS};

/// The names of `list` (each entry's `name`) in the declaration `decl`.
fn declared(decl: &serde_json::Value, list: &str) -> Result<Vec<String>, String> {
    decl[list]
        .as_array()
        .ok_or(format!("src/words.json has no `{list}`"))?
        .iter()
        .map(|e| {
            e["name"]
                .as_str()
                .map(str::to_owned)
                .ok_or(format!("an entry of `{list}` has no name"))
        })
        .collect()
}

/// Whether the core's lists are the declared ones: `Err` names the first that differs.
fn check(json: &str) -> Result<(), String> {
    let decl: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let same = |list: &str, core: Vec<String>| -> Result<(), String> {
        let want = declared(&decl, list)?;
        if want == core {
            Ok(())
        } else {
            Err(format!(
                "`{list}`: declared {want:?}, the core has {core:?}"
            ))
        }
    };
    // The end kinds by their code: `from_code(i)` is the i-th declared, and `code()` its index.
    let ends: Vec<String> = (0..EndKind::ALL.len())
        .map(|i| {
            let k = EndKind::from_code(i as u8);
            assert_eq!(usize::from(k.code()), i, "{k:?}'s code");
            format!("{k:?}").to_lowercase()
        })
        .collect();
    same("endKinds", ends)?;
    same("domReasons", DOM_REASONS.map(str::to_owned).to_vec())?;
    same("formats", Format::ALL.map(|f| f.name().to_owned()).to_vec())
}

#[test]
fn the_cores_word_lists_are_the_declared_ones() {
    check(include_str!("words.json")).unwrap();
}

#[test]
fn a_word_list_that_differs_from_the_declaration_fails_each_one() {
    let json = include_str!("words.json");
    // A kind renamed, two reordered (the codes would swap), a reason dropped, a format renamed.
    let changed = [
        ("endKinds", json.replacen("\"aborted\"", "\"cancelled\"", 1)),
        (
            "endKinds",
            json.replacen("\"aborted\"", "\"@\"", 1)
                .replacen("\"failed\"", "\"aborted\"", 1)
                .replacen("\"@\"", "\"failed\"", 1),
        ),
        (
            "domReasons",
            json.replacen(
                "{ \"name\": \"not-observed\", \"doc\": \"no element was observed\" },",
                "",
                1,
            ),
        ),
        ("formats", json.replacen("\"llamacpp\"", "\"llama.cpp\"", 1)),
    ];
    for (list, text) in changed {
        assert_ne!(text, json, "{list}: the change applies");
        let err = check(&text).expect_err(list);
        assert!(err.starts_with(&format!("`{list}`")), "{err}");
    }
}
