//! The wasm binding, compiled to wasm32 and run in headless Chromium by wasm-bindgen-test: the
//! core behaves the same there (float math, allocation, strings crossing from JavaScript), and
//! what it writes is valid JSON to the browser's own parser.
#![cfg(target_arch = "wasm32")]

use js_sys::{Reflect, JSON};
use tokenpaint::wasm::Core;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(v.clone(), |o, k| {
        Reflect::get(&o, &JsValue::from_str(k)).unwrap()
    })
}

fn num(v: &JsValue, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number"))
}

fn event(content: &str) -> String {
    format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{content}\"}}}}]}}\n\n")
}

/// Opens a stream with nothing more known of it (no label, transport, resumed id or prior text).
fn open(
    core: &mut Core,
    format: &str,
    content_type: &str,
    url: &str,
    start: f64,
    headers_at: f64,
) -> u32 {
    core.open(
        format,
        content_type,
        "",
        url,
        start,
        headers_at,
        200,
        "",
        "",
        "",
        false,
        false,
        f64::NAN,
        false,
    )
}

#[wasm_bindgen_test]
fn a_stream_through_the_binding_gives_a_report_the_browser_parses() {
    let mut core = Core::new();
    let id = open(
        &mut core,
        "auto",
        "text/event-stream",
        "http://127.0.0.1/v1/chat \"x\"\n",
        1000.0,
        1005.0,
    );
    let body = [event("Hé"), event("llo 😀"), "data: [DONE]\n\n".into()].concat();
    let bytes = body.as_bytes();
    // Split inside the emoji of the second event, as a network may.
    let cut = body.find('😀').unwrap() + 2;
    core.chunk(id, &bytes[..cut], 1010.0, false, f64::NAN);
    assert_eq!(core.render(id, "Hé", 0, 1012.0), 1.0);
    core.chunk(id, &bytes[cut..], 1030.0, false, f64::NAN);
    assert_eq!(core.render(id, "Héllo 😀", 0, 1031.0), 1.0);
    assert_eq!(
        core.render(id, "!", 5, 1032.0),
        -1.0,
        "5 is neither the end nor a checkpoint"
    );
    assert_eq!(core.painted(1033.0, 1034.0, 1036.0, f64::NAN), 2);
    core.end(id, 0, 1040.0, "");
    assert!(core.settled(id));
    let report = JSON::parse(&core.finish(id, true, false)).expect("valid JSON");
    assert_eq!(
        get(&report, "format").as_string().as_deref(),
        Some("openai-chat")
    );
    assert_eq!(
        get(&report, "url").as_string().as_deref(),
        Some("http://127.0.0.1/v1/chat \"x\"\n")
    );
    assert_eq!(num(&report, "ttft"), 10.0);
    assert_eq!(num(&report, "e2e"), 30.0);
    assert_eq!(num(&report, "ttftPerceived.painted"), 36.0);
    assert_eq!(num(&report, "lag.max"), 26.0);
    assert_eq!(num(&report, "lag.p50"), 16.0);
    assert_eq!(num(&report, "chars"), 7.0);
    assert_eq!(num(&report, "matchedPct"), 100.0);
    assert_eq!(core.active(), 0);
    assert_eq!(
        core.finish(id, true, false),
        "",
        "a finished stream is gone"
    );
}

#[wasm_bindgen_test]
fn the_summary_computes_percentiles_on_wasm32() {
    let mut core = Core::new();
    for i in 0..50u32 {
        let start = f64::from(i) * 1000.0;
        let id = open(&mut core, "sse-text", "", "u", start, start);
        core.chunk(
            id,
            b"data: a\n\ndata: b\n\n",
            start + 100.0 + f64::from(i),
            false,
            f64::NAN,
        );
        core.end(id, 0, start + 200.0, "");
        core.finish(id, false, false);
    }
    let s = JSON::parse(&core.summary()).expect("valid JSON");
    assert_eq!(num(&s, "count"), 50.0);
    let p50 = num(&s, "ttft.p50");
    assert!((p50 - 124.5).abs() <= 1.25, "p50 {p50}");
    assert_eq!(num(&s, "ttft.max"), 149.0);
    assert!(
        get(&s, "lag.p50").is_null(),
        "no paint was measured: unknown, not zero"
    );
}

#[wasm_bindgen_test]
fn hostile_bytes_do_not_trap() {
    let mut core = Core::new();
    let id = open(&mut core, "auto", "text/event-stream", "u", 0.0, 0.0);
    let mut junk = Vec::new();
    for i in 0..20_000u32 {
        junk.push((i.wrapping_mul(2_654_435_761) >> 13) as u8);
    }
    junk.extend_from_slice(b"\ndata: {\"choices\":[{\"delta\":{\"content\":[[[[[[\n\n");
    for c in junk.chunks(333) {
        core.chunk(id, c, 1.0, false, f64::NAN);
    }
    core.end(id, 0, 2.0, "");
    let report = JSON::parse(&core.finish(id, false, false)).expect("valid JSON");
    assert!(get(&report, "status").is_string());
}

/// The module's allocator (`src/alloc.rs`, the global allocator of this test binary too): blocks
/// keep their contents across growth from one size class to the next, freed blocks are reused
/// without losing alignment, and live blocks never overlap.
#[wasm_bindgen_test]
fn the_allocator_keeps_contents_alignment_and_blocks_apart() {
    #[repr(align(64))]
    struct Wide([u8; 64]);
    let mut grown: Vec<u32> = Vec::new();
    for i in 0..100_000u32 {
        grown.push(i);
    }
    assert!(grown.iter().enumerate().all(|(i, &v)| v as usize == i));
    let mut live: Vec<Box<[u8]>> = Vec::new();
    for round in 0..4u8 {
        // Free every other block, then ask again for the same sizes and a wider alignment.
        live.retain(|b| b.len() % 2 == 0);
        for n in 1..200usize {
            live.push(vec![round ^ n as u8; n].into_boxed_slice());
            let wide = Box::new(Wide([n as u8; 64]));
            assert_eq!(&*wide as *const Wide as usize % 64, 0);
            assert!(wide.0.iter().all(|&b| b == n as u8));
        }
    }
    let mut spans: Vec<(usize, usize)> = live
        .iter()
        .map(|b| (b.as_ptr() as usize, b.len()))
        .collect();
    spans.sort();
    assert!(spans.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0));
    let mut s = String::from("é");
    for _ in 0..12 {
        s = s.repeat(2);
    }
    assert_eq!(s.chars().count(), 4096);
}
