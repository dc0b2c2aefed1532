//! Property tests: framing does not depend on chunking for arbitrary valid streams, and
//! arbitrary bytes never panic nor grow buffers past the configured bound.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tokenpaint::lines::{LineFramer, LineItem};
use tokenpaint::session::{EndKind, Session};
use tokenpaint::sse::{SseFramer, SseItem};

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
        let (json, _) = tokenpaint::report::write(&s.tl, &tokenpaint::report::Meta { id: 1, url: "u", end_message: "", timeline: true });
        let parsed: Result<serde_json::Value, _> = serde_json::from_str(&json);
        prop_assert!(parsed.is_ok(), "the report is valid JSON: {}", json);
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
