//! What the example chats (Leptos, Dioxus, Yew) share that is not tokenpaint's part:
//!
//! - [`stream`] reads an answer from the demo server's OpenAI-compatible endpoint through
//!   `Profiler::fetch`, and hands the answer so far to the app at each chunk;
//! - the page's own truth for the tests: when the reader got each delta ([`stream`] records it)
//!   and when the framework wrote the text that shows it ([`committed`], called by each app from
//!   its framework's after-render hook);
//! - [`Headline`], the figures each app shows of a report;
//! - [`expose`], the hooks the browser tests drive: `window.send(query)`, `window.toggle()`,
//!   `window.truth()`, `window.appText()`, `window.nextReport(ms)`, `window.typedReports`,
//!   `window.typedProgress` and `window.tokenpaintProfiler` (the JavaScript profiler).
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use tokenpaint::types::Report;
use tokenpaint::web::Profiler;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// (answer length, time the reader got it) and (answer length on screen, time written).
    static ARRIVALS: RefCell<Vec<(usize, f64)>> = const { RefCell::new(Vec::new()) };
    static COMMITS: RefCell<Vec<(usize, f64)>> = const { RefCell::new(Vec::new()) };
    /// The bytes of the last answer, as the app read them.
    static BODY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `performance.now()`.
pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The headline figures of a report.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    pub ttft: String,
    pub ttft_perceived: String,
    pub lag_p50: String,
    pub matched: String,
    pub tokens: String,
    pub verdict: String,
}

impl Headline {
    pub fn of(r: &Report) -> Headline {
        Headline {
            ttft: ms(r.ttft),
            ttft_perceived: ms(r.ttft_perceived.map(|b| b.painted)),
            lag_p50: ms(r.lag.map(|l| l.p50)),
            matched: r
                .matched_pct
                .map_or("unknown".into(), |m| format!("{m:.1}%")),
            tokens: r.tokens.map_or("unknown".into(), |t| t.to_string()),
            verdict: r.verdict().unwrap_or("none").to_string(),
        }
    }
}

fn ms(v: Option<f64>) -> String {
    v.map_or("unknown".into(), |v| format!("{v:.1} ms"))
}

/// The live line: characters arrived, and the backlog when it is known.
pub fn live_line(backlog: Option<i64>, arrived: u64) -> String {
    match backlog {
        Some(b) => format!("streaming: {arrived} characters arrived, backlog {b}"),
        None => format!("streaming: {arrived} characters arrived"),
    }
}

/// Reads the answer to `query` (the demo server's knobs) through the profiler: every body chunk as
/// it comes, each SSE `data:` event's content appended, and `set_text` called with the answer so
/// far after each chunk that added to it.
pub async fn stream(
    profiler: &Profiler,
    query: &str,
    set_text: &dyn Fn(String),
) -> Result<(), JsValue> {
    set_text(String::new());
    BODY.with(|b| b.borrow_mut().clear());
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&JsValue::from_str("{}"));
    let url = format!("/v1/chat/completions?{query}");
    let response = profiler.fetch(&url, &init).await?;
    let body = response.body().ok_or("no body")?;
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut pending: Vec<u8> = Vec::new();
    let mut text = String::new();
    loop {
        let step = JsFuture::from(reader.read()).await?;
        if js_sys::Reflect::get(&step, &"done".into())?.is_truthy() {
            break;
        }
        let chunk =
            js_sys::Uint8Array::new(&js_sys::Reflect::get(&step, &"value".into())?).to_vec();
        BODY.with(|b| b.borrow_mut().extend_from_slice(&chunk));
        pending.extend_from_slice(&chunk);
        let t = now();
        let mut grew = false;
        while let Some(end) = pending.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = pending.drain(..end + 2).collect();
            let event = String::from_utf8_lossy(&event);
            for data in event.lines().filter_map(|l| l.strip_prefix("data: ")) {
                if let Some(content) = content_of(data) {
                    text.push_str(&content);
                    ARRIVALS.with(|a| a.borrow_mut().push((text.len(), t)));
                    grew = true;
                }
            }
        }
        if grew {
            set_text(text.clone());
        }
    }
    Ok(())
}

/// `choices[0].delta.content` of one event, if it has some.
fn content_of(data: &str) -> Option<String> {
    let v = js_sys::JSON::parse(data).ok()?;
    let choice = js_sys::Reflect::get(&v, &"choices".into()).ok()?;
    let first = js_sys::Reflect::get(&choice, &0.into()).ok()?;
    let delta = js_sys::Reflect::get(&first, &"delta".into()).ok()?;
    let content = js_sys::Reflect::get(&delta, &"content".into())
        .ok()?
        .as_string()?;
    (!content.is_empty()).then_some(content)
}

/// The app's truth: the framework has written an answer of `len` bytes to the DOM, now.
pub fn committed(len: usize) {
    COMMITS.with(|c| c.borrow_mut().push((len, now())));
}

/// A typed report or progress, written back to JavaScript (`window[list]`) for the tests to read.
pub fn keep_for_tests(list: &str, r: &impl serde::Serialize) {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    if let (Some(w), Ok(v)) = (web_sys::window(), r.serialize(&ser)) {
        if let Ok(list) = js_sys::Reflect::get(&w, &list.into()) {
            if let Some(list) = list.dyn_ref::<js_sys::Array>() {
                list.push(&v);
            }
        }
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// The median of (time the text that showed a delta was written − the delta's arrival).
fn truth() -> Option<f64> {
    let arrivals = ARRIVALS.with(|a| a.borrow().clone());
    let commits = COMMITS.with(|c| c.borrow().clone());
    median(
        arrivals
            .iter()
            .filter_map(|&(end, t)| {
                commits
                    .iter()
                    .find(|&&(len, c)| len >= end && c >= t)
                    .map(|&(_, c)| c - t)
            })
            .collect(),
    )
}

fn set(name: &str, f: &JsValue) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), f);
    }
}

/// Exposes the test hooks. `set_text` shows the answer so far (the app's state setter); `toggle`
/// unmounts or mounts the chat and says whether it is mounted.
pub fn expose(
    profiler: &Profiler,
    set_text: impl Fn(String) + 'static,
    toggle: impl Fn() -> bool + 'static,
) {
    let set_text: Rc<dyn Fn(String)> = Rc::new(set_text);
    let p = profiler.clone();
    let send = Closure::<dyn Fn(String) -> js_sys::Promise>::new(move |query: String| {
        ARRIVALS.with(|a| a.borrow_mut().clear());
        COMMITS.with(|c| c.borrow_mut().clear());
        let (p, set_text) = (p.clone(), set_text.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            stream(&p, &query, &*set_text).await.map(|()| JsValue::TRUE)
        })
    });
    set("send", send.as_ref());
    send.forget();
    let toggle = Closure::<dyn Fn() -> bool>::new(toggle);
    set("toggle", toggle.as_ref());
    toggle.forget();
    let truth =
        Closure::<dyn Fn() -> JsValue>::new(|| truth().map_or(JsValue::NULL, JsValue::from));
    set("truth", truth.as_ref());
    truth.forget();
    let text = Closure::<dyn Fn() -> String>::new(|| {
        BODY.with(|b| String::from_utf8_lossy(&b.borrow()).into_owned())
    });
    set("appText", text.as_ref());
    text.forget();
    // The next report within `ms` (the typed API's deadline): its TTFT, or the error's text.
    let p = profiler.clone();
    let next = Closure::<dyn Fn(u32) -> js_sys::Promise>::new(move |ms: u32| {
        let p = p.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let got = p.next_report(Duration::from_millis(u64::from(ms))).await;
            Ok(match got {
                Ok(r) => r.ttft.map_or(JsValue::NULL, JsValue::from),
                Err(e) => JsValue::from(e.to_string()),
            })
        })
    });
    set("nextReport", next.as_ref());
    next.forget();
    set("typedReports", &js_sys::Array::new());
    set("typedProgress", &js_sys::Array::new());
    set("tokenpaintProfiler", &profiler.as_js());
}

/// Tells the tests the app is up.
pub fn ready() {
    set("appReady", &JsValue::TRUE);
}
