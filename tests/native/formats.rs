//! The fixture corpus (`tests/fixtures/<format>/`): realistic streams shaped after each
//! provider's public documentation. For every fixture:
//! - auto-detection picks the directory's format without the `format` option;
//! - what is read (answer and reasoning text, deltas, usage, server timings, finish, errors,
//!   end marker) equals the reviewed `<name>.expect` file;
//! - every split into two chunks, and random splits into many, read exactly the same.
//!
//! Set `TOKENPAINT_BLESS=1` to (re)write missing `.expect` files; review them before committing.
#![cfg(not(target_arch = "wasm32"))]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tokenpaint::timeline::session::{EndKind, Session};

struct Fixture {
    format: String,
    path: PathBuf,
    content_type: String,
    headers: String,
    bytes: Vec<u8>,
}

fn fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        let format = dir.file_name().unwrap().to_string_lossy().into_owned();
        let header_file = std::fs::read_to_string(dir.join("headers")).unwrap_or_default();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let ext = path
                .extension()
                .map(|e| e.to_string_lossy().into_owned())
                .unwrap_or_default();
            let default_type = match ext.as_str() {
                "sse" => "text/event-stream",
                "ndjson" => "application/x-ndjson",
                "txt" => "text/plain; charset=utf-8",
                "json" => "application/json",
                _ => continue, // headers, .expect
            };
            let content_type = header_file
                .lines()
                .find_map(|l| l.strip_prefix("content-type: "))
                .unwrap_or(default_type)
                .to_string();
            let headers: String = header_file
                .lines()
                .filter(|l| !l.starts_with("content-type:"))
                .map(|l| format!("{l}\n"))
                .collect();
            out.push(Fixture {
                format: format.clone(),
                bytes: std::fs::read(&path).unwrap(),
                path,
                content_type,
                headers,
            });
        }
    }
    assert!(out.len() >= 15, "the corpus is there");
    out
}

/// Reads `f` in the given chunks and describes everything that was read.
fn read(f: &Fixture, cuts: &[usize]) -> String {
    let mut s = Session::new("auto", &f.content_type, &f.headers, 0.0, 0.0, 200);
    s.keep_text();
    let mut at = 0;
    for (i, &cut) in cuts.iter().chain([&f.bytes.len()]).enumerate() {
        s.chunk(&f.bytes[at..cut], i as f64);
        at = cut;
    }
    s.end(EndKind::Complete, 1e6);
    let tl = &s.tl;
    let text = tl.text.as_ref().unwrap();
    let mut d = String::new();
    let _ = writeln!(d, "format: {}", tl.format.map_or("none", |f| f.name()));
    let _ = writeln!(d, "answer: {:?}", text.answer);
    let _ = writeln!(d, "reasoning: {:?}", text.reasoning);
    let _ = writeln!(
        d,
        "deltas: {} answer, {} reasoning, {} tool",
        tl.records.len(),
        tl.reasoning.deltas,
        tl.tool_calls
    );
    let _ = writeln!(d, "usage: {:?}", tl.usage);
    let _ = writeln!(d, "server: {:?}", tl.server);
    let _ = writeln!(d, "finish: {:?}", tl.finish_reason);
    let _ = writeln!(d, "error: {:?}", tl.stream_error);
    let _ = writeln!(
        d,
        "done: {}, truncated: {}, malformed: {}, framing: {:?}",
        tl.done_marker, tl.truncated, tl.malformed, tl.framing_error
    );
    d
}

/// What must not depend on chunking. A plain text body has no events: each chunk is a delta,
/// so only its delta count may differ.
fn invariant(f: &Fixture, digest: String) -> String {
    if f.format == "text" {
        digest
            .lines()
            .filter(|l| !l.starts_with("deltas:"))
            .map(|l| format!("{l}\n"))
            .collect()
    } else {
        digest
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

#[test]
fn every_fixture_is_detected_and_read_as_expected() {
    let bless = std::env::var_os("TOKENPAINT_BLESS").is_some();
    for f in fixtures() {
        let whole = read(&f, &[]);
        assert!(
            whole.starts_with(&format!("format: {}\n", f.format)),
            "{}: detected {}",
            f.path.display(),
            whole.lines().next().unwrap()
        );
        let expect_path = f.path.with_extension("expect");
        match std::fs::read_to_string(&expect_path) {
            Ok(expected) => assert_eq!(whole, expected, "{}", f.path.display()),
            Err(_) if bless => std::fs::write(&expect_path, &whole).unwrap(),
            Err(e) => panic!("{}: {e}", expect_path.display()),
        }
    }
}

#[test]
fn every_two_chunk_split_reads_the_same() {
    for f in fixtures() {
        let whole = invariant(&f, read(&f, &[]));
        for i in 0..=f.bytes.len() {
            let got = invariant(&f, read(&f, &[i]));
            assert_eq!(got, whole, "{} split at {i}", f.path.display());
        }
    }
}

#[test]
fn random_multi_chunk_splits_read_the_same() {
    let mut rng = Rng(0xDEC0_DE5E_ED00_0001);
    for f in fixtures() {
        let whole = invariant(&f, read(&f, &[]));
        for _ in 0..100 {
            let mut cuts = Vec::new();
            let mut at = 0;
            while at < f.bytes.len() {
                at = (at + 1 + rng.below(12)).min(f.bytes.len());
                cuts.push(at);
            }
            let got = invariant(&f, read(&f, &cuts));
            assert_eq!(got, whole, "{} cuts {cuts:?}", f.path.display());
        }
    }
}
