//! Property tests: framing does not depend on chunking for arbitrary valid streams, and
//! arbitrary bytes never panic nor grow buffers past the configured bound.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tokenpaint::figures::report::{write, Meta};
use tokenpaint::read::lines::{LineFramer, LineItem};
use tokenpaint::read::sse::{SseFramer, SseItem};
use tokenpaint::timeline::align::{Aligner, CHECKPOINT};
use tokenpaint::timeline::session::{EndKind, Session};

fn sse_events(input: &[u8], cuts: &[usize], max: usize) -> Vec<String> {
    let mut f = SseFramer::new(max);
    let mut out = Vec::new();
    let mut at = 0;
    for &c in cuts.iter().chain([&input.len()]) {
        let c = c.clamp(at, input.len());
        f.feed(&input[at..c], &mut |item| match item {
            SseItem::Event(e) => out.push(format!("{}|{}", e.event, e.data)),
            SseItem::Error(e) => out.push(format!("{e:?}")),
        });
        at = c;
    }
    f.finish();
    out
}

/// A valid event stream: fields with random names and values (any Unicode, no line breaks),
/// comments, and each line ended by CR, LF or CRLF at random.
fn event_stream() -> impl Strategy<Value = Vec<u8>> {
    let value = "[^\r\n]{0,12}";
    let line = prop_oneof![
        value.prop_map(|v| format!("data: {v}")),
        value.prop_map(|v| format!("data:{v}")),
        "[a-z]{1,6}".prop_map(|v| format!("event: {v}")),
        value.prop_map(|v| format!(": {v}")),
        "[0-9]{1,4}".prop_map(|v| format!("retry: {v}")),
        Just(String::new()),
    ];
    let ending = prop_oneof![Just("\n"), Just("\r"), Just("\r\n")];
    (any::<bool>(), prop::collection::vec((line, ending), 0..40)).prop_map(|(bom, lines)| {
        let mut s = if bom {
            "\u{feff}".to_string()
        } else {
            String::new()
        };
        for (l, e) in lines {
            s.push_str(&l);
            s.push_str(e);
        }
        s.into_bytes()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn sse_framing_is_invariant_to_chunking(input in event_stream(), cuts in prop::collection::vec(0usize..600, 0..30)) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        prop_assert_eq!(sse_events(&input, &cuts, 1 << 16), sse_events(&input, &[], 1 << 16));
    }

    /// The shell hands a long read over in parts (`js/batch.js`): the report is the read's.
    #[test]
    fn a_read_in_parts_reports_as_the_read_whole(input in event_stream(), cuts in prop::collection::vec(0usize..600, 0..30)) {
        let report = |cuts: &[usize]| {
            let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 10.0, 200);
            let mut at = 0;
            for &cut in cuts.iter().chain([input.len()].iter()) {
                let cut = cut.min(input.len()).max(at);
                s.chunk_part(&input[at..cut], 20.0, at > 0);
                at = cut;
            }
            s.end(EndKind::Complete, 30.0);
            let meta = Meta { id: 1, url: "u", ..Meta::default() };
            write(&s.tl, &meta).0
        };
        let mut cuts = cuts;
        cuts.sort_unstable();
        let whole = report(&[]);
        prop_assert!(whole.contains("\"chunks\":1,") || input.is_empty(), "{}", whole);
        prop_assert_eq!(report(&cuts), whole);
    }

    #[test]
    fn line_framing_is_invariant_to_chunking(lines in prop::collection::vec("[^\n]{0,20}", 0..30), cuts in prop::collection::vec(0usize..700, 0..30)) {
        let input = lines.join("\n").into_bytes();
        let read = |cuts: &[usize]| {
            let mut f = LineFramer::new(1 << 16);
            let mut out = Vec::new();
            let mut on = |item: LineItem<'_>| out.push(format!("{item:?}"));
            let mut at = 0;
            for &c in cuts.iter().chain([&input.len()]) {
                let c = c.clamp(at, input.len());
                f.feed(&input[at..c], &mut on);
                at = c;
            }
            f.finish(&mut on);
            out
        };
        let mut cuts = cuts;
        cuts.sort_unstable();
        prop_assert_eq!(read(&cuts), read(&[]));
    }

    #[test]
    fn arbitrary_bytes_stay_within_the_buffer_bound(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..20)) {
        let limit = 64;
        let mut sse = SseFramer::new(limit);
        let mut lines = LineFramer::new(limit);
        for c in &chunks {
            sse.feed(c, &mut |_| {});
            lines.feed(c, &mut |_| {});
            prop_assert!(sse.buffered() <= 3 * limit, "sse holds {}", sse.buffered());
            prop_assert!(lines.buffered() <= limit, "lines hold {}", lines.buffered());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_in_any_format(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..12), format in 0usize..13) {
        let names = ["auto", "openai-chat", "openai-responses", "anthropic", "ollama", "tgi", "llamacpp", "ai-sdk-ui", "ai-sdk-data", "sse-text", "text", "json", "auto"];
        let mut s = Session::new(names[format], if format == 12 { "text/event-stream" } else { "" }, "", 0.0, 0.0, 200);
        for (i, c) in chunks.iter().enumerate() {
            s.chunk(c, i as f64);
            let shown = String::from_utf8_lossy(c);
            if i % 2 == 0 {
                s.appended(&shown, i as f64 + 0.5);
            } else {
                s.rendered(&shown, 0, i as f64 + 0.5);
            }
            s.painted(i as f64 + 0.6, i as f64 + 0.7, i as f64 + 0.8);
        }
        s.end(EndKind::Complete, 100.0);
        let (json, _) = tokenpaint::figures::report::write(&s.tl, &tokenpaint::figures::report::Meta { id: 1, url: "u", timeline: true, ..Default::default() });
        let parsed: Result<serde_json::Value, _> = serde_json::from_str(&json);
        prop_assert!(parsed.is_ok(), "the report is valid JSON: {}", json);
    }

    /// Issue 71: never a figure from a disproved reading. An answer read by a learned reading,
    /// the page showing a random share of its text (then, in some cases, other words): below 99%
    /// of it on screen, every figure measured from it is null, its timeline is left out, and its
    /// one verdict is `insufficient-evidence` (missing `reading`, with the share shown); at 99%
    /// or more, or for an answer read by a reader, the figures are given.
    #[test]
    fn a_learned_reading_the_page_contradicts_gives_no_figure(words in prop::collection::vec("[a-z]{2,7}", 4..40), shown in 0.0f64..1.0, other in any::<bool>(), learned in any::<bool>()) {
        let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
        if learned {
            s.learned();
        }
        let mut text = String::new();
        let show = ((words.len() as f64) * shown).round() as usize;
        let mut page = String::new();
        for (i, w) in words.iter().enumerate() {
            let tok = format!("{}{w}", if i > 0 { " " } else { "" });
            let ev = format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{tok}\"}}}}]}}\n\n");
            let t = 10.0 + 20.0 * i as f64;
            s.chunk(ev.as_bytes(), t);
            text.push_str(&tok);
            if i < show {
                page.push_str(&tok);
            } else if other {
                page.push_str(" zzq");
            }
            s.rendered(&page, 0, t + 2.0);
            s.painted(t + 3.0, t + 4.0, t + 5.0);
        }
        s.chunk(b"data: [DONE]\n\n", 1000.0);
        s.end(EndKind::Complete, 1001.0);
        let (json, f) = write(&s.tl, &Meta { id: 1, url: "u", timeline: true, ..Default::default() });
        let r: serde_json::Value = serde_json::from_str(&json).unwrap();
        let matched = f.matched.unwrap();
        let verdicts: Vec<&str> = r["diagnosis"].as_array().unwrap().iter().map(|v| v["verdict"].as_str().unwrap()).collect();
        if learned && matched < 99.0 {
            for k in ["ttfb", "ttft", "e2e", "tpot", "itl", "lag", "ttftPerceived", "e2ePerceived", "phases", "stalls", "backlogPeak", "delivery"] {
                prop_assert!(r[k].is_null(), "{k} is {} at {matched}% matched", r[k]);
            }
            prop_assert!(r.get("timeline").is_none(), "no per-token times");
            prop_assert_eq!(verdicts, vec!["insufficient-evidence"]);
            prop_assert_eq!(&r["diagnosis"][0]["missing"], &serde_json::json!(["reading"]));
            prop_assert_eq!(&r["diagnosis"][0]["evidence"]["matchedPct"], &r["matchedPct"]);
        } else {
            prop_assert!(r["ttft"].is_number(), "ttft given at {matched}% matched (learned {learned})");
            prop_assert!(r.get("timeline").is_some());
            prop_assert!(!r["diagnosis"].as_array().unwrap().iter().any(|v| v["missing"] == serde_json::json!(["reading"])));
        }
    }

    #[test]
    fn arbitrary_json_events_never_panic(data in "[{}\\[\\]\",:a-z0-9 .\\\\-]{0,80}") {
        for name in ["openai-chat", "openai-responses", "anthropic", "ollama", "tgi", "llamacpp", "ai-sdk-ui", "ai-sdk-data"] {
            let mut s = Session::new(name, "", "", 0.0, 0.0, 200);
            let framed = if name == "ollama" || name == "ai-sdk-data" { format!("{data}\n") } else { format!("data: {data}\n\n") };
            s.chunk(framed.as_bytes(), 1.0);
            s.end(EndKind::Complete, 2.0);
        }
    }
}

/// The alignment fuzz target's properties (fuzz/fuzz_targets/align.rs): the frontier never
/// passes what arrived, and resuming from any checkpoint decides as matching anew.
fn align_properties(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let cut = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    let (arrived, rendered) = text.split_at(cut);
    let mut a = Aligner::new();
    a.push_arrived(arrived);
    let whole = a.rendered(rendered, 0).unwrap();
    assert!(whole <= a.arrived_len());
    let units: Vec<u16> = rendered.encode_utf16().collect();
    let mut k = CHECKPOINT as usize;
    while k < units.len() {
        if let Ok(rest) = String::from_utf16(&units[k..]) {
            let mut again = a.clone();
            if let Some(f) = again.rendered(&rest, k as u32) {
                assert_eq!(f, whole, "resumed at {k}");
            }
        }
        k += CHECKPOINT as usize;
    }
}

/// Every input the fuzzers found a bug with (fuzz/regressions/<target>/) stays fixed.
#[test]
fn fuzz_findings_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/align");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        align_properties(&std::fs::read(entry.unwrap().path()).unwrap());
        n += 1;
    }
    assert!(n >= 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn resuming_alignment_decides_as_matching_anew(
        arrived in "([a-z]{1,8}[ *#\\[\\]()\n]{0,3}){0,60}",
        noise in prop::collection::vec(("[ -~]{0,12}", 0usize..400), 0..6),
    ) {
        // Rendered text: the arrived text with pieces not in the answer inserted.
        let mut rendered = arrived.clone();
        for (piece, at) in noise {
            let at = rendered.char_indices().map(|(i, _)| i).nth(at).unwrap_or(rendered.len());
            rendered.insert_str(at, &piece);
        }
        let mut data = arrived.into_bytes();
        // align_properties splits its input in the middle: pad so the halves are the two texts.
        let pad = rendered.chars().count().saturating_sub(String::from_utf8_lossy(&data).chars().count());
        data.extend(std::iter::repeat_n(b' ', pad));
        let mut input = data;
        input.extend_from_slice(rendered.as_bytes());
        align_properties(&input);
    }
}
