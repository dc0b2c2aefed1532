//! A whole session (framing, detection, every adapter, alignment, paint, report) on arbitrary
//! bytes: no panic, and the report is valid JSON.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tokenpaint::figures::report::{write, Meta};
use tokenpaint::timeline::session::{EndKind, Session};

const FORMATS: [&str; 13] = [
    "auto", "openai-chat", "openai-responses", "anthropic", "ollama", "tgi", "llamacpp",
    "ai-sdk-ui", "ai-sdk-data", "sse-text", "text", "json", "auto",
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let format = FORMATS[usize::from(sel) % FORMATS.len()];
    let content_type = if sel & 0x80 != 0 { "text/event-stream" } else { "" };
    let mut s = Session::new(format, content_type, "", 0.0, 0.0, if sel & 0x40 != 0 { 500 } else { 200 });
    s.keep_text();
    for (i, chunk) in rest.chunks(usize::from(sel % 29) + 1).enumerate() {
        let t = i as f64;
        s.chunk(chunk, t);
        if i % 3 == 0 {
            let shown = String::from_utf8_lossy(chunk);
            if i % 2 == 0 {
                s.appended(&shown, t + 0.1);
            } else {
                s.rendered(&shown, 0, t + 0.1);
            }
            s.painted(t + 0.2, t + 0.3, t + 0.4);
        }
    }
    s.end(EndKind::Complete, 1e6);
    let (json, _) = write(&s.tl, &Meta { id: 1, url: "u", timeline: true, ..Meta::default() });
    serde_json::from_str::<serde_json::Value>(&json).expect("the report is valid JSON");
});
