//! Memory per stream: per-token detail is capped and decimated past the cap, the aggregates
//! stay exact, and what a session retains stays bounded however long the answer runs.
//! Live heap bytes are counted by a global allocator wrapper.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Mutex;

use serde_json::Value;
use tokenpaint::figures::report::{write, Meta};
use tokenpaint::timeline::session::{EndKind, Session};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
/// One measurement at a time: the counter is process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn event(text: &str) -> Vec<u8> {
    format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n").into_bytes()
}

/// The words of the answer: 1 to 6 characters and a space, varied.
fn word(i: usize) -> String {
    let n = 1 + (i * 7919) % 6;
    let mut w: String = (0..n)
        .map(|k| (b'a' + ((i + k) * 31 % 26) as u8) as char)
        .collect();
    w.push(' ');
    w
}

/// Streams `n` deltas, one every 5 ms with a slow one every 100th (40 ms), rendered by
/// appending each delta 2 ms after it arrived and painted every 16 ms, 4 ms after the frame
/// starts. Returns the session and the live bytes it retains at the end.
fn stream(n: usize, cap: Option<usize>) -> (Session, isize) {
    let before = live();
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 100.0, 200);
    if let Some(cap) = cap {
        s.tl.detail_cap = cap;
    }
    let (mut t, mut next_frame) = (300.0, 316.0);
    for i in 0..n {
        t += if i % 100 == 99 { 40.0 } else { 5.0 };
        while next_frame + 4.0 < t {
            s.painted(next_frame, next_frame, next_frame + 4.0);
            next_frame += 16.0;
        }
        let w = word(i);
        s.chunk(&event(&w), t);
        s.appended(&w, t + 2.0);
    }
    s.chunk(b"data: [DONE]\n\n", t + 1.0);
    s.end(EndKind::Complete, t + 1.0);
    while next_frame < t + 40.0 {
        s.painted(next_frame, next_frame, next_frame + 4.0);
        next_frame += 16.0;
    }
    let retained = live() - before;
    (s, retained)
}

fn report(s: &Session) -> Value {
    let meta = Meta {
        id: 1,
        url: "u",
        timeline: false,
        ..Meta::default()
    };
    serde_json::from_str(&write(&s.tl, &meta).0).unwrap()
}

fn num(r: &Value, path: &str) -> f64 {
    path.split('.')
        .fold(r, |v, k| &v[k])
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number"))
}

#[test]
fn a_100000_token_answer_retains_less_than_64_bytes_per_token() {
    let _one = SERIAL.lock().unwrap();
    let n = 100_000;
    let (s, retained) = stream(n, None);
    let per_token = retained as f64 / n as f64;
    println!("retained {retained} bytes: {per_token:.1} per token");
    assert!(per_token <= 64.0, "{per_token:.1} bytes per token");
    assert!(s.tl.decimated.is_some());
    assert!(s.tl.records.len() <= tokenpaint::timeline::session::DEFAULT_DETAIL_CAP);
}

#[test]
fn decimated_detail_keeps_the_aggregates_exact_and_the_percentiles_close() {
    let _one = SERIAL.lock().unwrap();
    let n = 20_000;
    // The same stream with every record kept, and with 1,000 records.
    let (exact, _) = stream(n, Some(usize::MAX));
    let (capped, _) = stream(n, Some(1_000));
    assert!(exact.tl.decimated.is_none());
    assert!(capped.tl.decimated.is_some());
    assert!(capped.tl.records.len() <= 1_000);
    let (a, b) = (report(&exact), report(&capped));
    assert_eq!(b["detail"]["decimated"], true);
    assert_eq!(b["detail"]["cap"], 1000);
    for path in [
        "deltas",
        "chars",
        "tokens",
        "ttft",
        "e2e",
        "tpot",
        "ttftPerceived.painted",
        "ttftPerceived.frame",
        "e2ePerceived.painted",
        "e2ePerceived.frame",
        "itl.max",
        "itl.count",
    ] {
        assert_eq!(num(&a, path), num(&b, path), "{path}");
    }
    // Percentiles from the sketch: within its 1% (plus interpolation between ranks).
    for path in ["itl.p50", "itl.p95", "lag.p50", "lag.p95"] {
        let (x, y) = (num(&a, path), num(&b, path));
        assert!(
            (x - y).abs() <= 0.02 * x + 0.01,
            "{path}: exact {x}, decimated {y}"
        );
    }
    assert_eq!(num(&a, "lag.count"), num(&b, "lag.count"));
    // The conclusions do not change.
    assert_eq!(a["diagnosis"]["verdict"], b["diagnosis"]["verdict"]);
    assert_eq!(a["delivery"]["pattern"], b["delivery"]["pattern"]);
    assert_eq!(a["alignment"]["matchedPct"], b["alignment"]["matchedPct"]);
}

#[test]
fn an_answer_nobody_renders_stays_bounded_however_long() {
    let _one = SERIAL.lock().unwrap();
    let before = live();
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 1.0, 200);
    let chunk: Vec<u8> = (0..256).flat_map(|i| event(&word(i))).collect();
    let mut at = Vec::new();
    for round in 0..5 {
        // 512,000 deltas (about 1.8 million visible characters) per round.
        for i in 0..2_000 {
            s.chunk(&chunk, f64::from(round * 2_000 + i));
        }
        at.push(live() - before);
    }
    println!("retained after each round: {at:?}");
    assert_eq!(s.tl.deltas, 5 * 2_000 * 256);
    // Flat once the caps are reached: the last round retains what the second did.
    let (second, last) = (at[1], at[4]);
    assert!(last <= second + second / 10, "{at:?}");
    assert!(last < 16 << 20, "{at:?}");
}
