//! A Leptos chat page that streams an answer from an OpenAI-compatible server (the demo server's
//! simulated one), renders it as it arrives, and shows tokenpaint's headline figures of each
//! answer, read from the typed report.
//!
//! The tokenpaint part is a few lines in `Chat`: a profiler, `observe` on the message list,
//! `on_report` and `on_progress` (guards, dropped when the component unmounts), and
//! `profiler.fetch`.
//!
//! For the tests, the page also records its own truth (when its reader got each delta, and when
//! Leptos wrote the text that shows it to the DOM) and exposes `window.send(query)`,
//! `window.toggle()` (unmounts or mounts the chat), `window.truth()`, `window.appText()`,
//! `window.nextReport(ms)` (the next report's TTFT within `ms`, or the error's text),
//! `window.typedReports`, `window.typedProgress` and `window.tokenpaintProfiler` (the JavaScript
//! profiler).
use std::cell::RefCell;
use std::rc::Rc;

use leptos::html;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use tokenpaint::types::{Progress, Report};
use tokenpaint::web::{ObserveGuard, Options, Profiler, Subscription};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// One profiler for the page, made when the page starts.
    static PROFILER: Profiler = Profiler::new(&Options { label: Some("leptos".into()), ..Options::default() });
    /// (answer length, time the reader got it) and (answer length on screen, time written).
    static ARRIVALS: RefCell<Vec<(usize, f64)>> = const { RefCell::new(Vec::new()) };
    static COMMITS: RefCell<Vec<(usize, f64)>> = const { RefCell::new(Vec::new()) };
    /// The bytes of the last answer, as the app read them.
    static BODY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn profiler() -> Profiler {
    PROFILER.with(Profiler::clone)
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The headline figures of the last report.
#[derive(Clone, Debug, PartialEq)]
struct Headline {
    ttft: Option<f64>,
    ttft_perceived: Option<f64>,
    lag_p50: Option<f64>,
    matched: Option<f64>,
    tokens: Option<u64>,
    verdict: String,
}

impl Headline {
    fn of(r: &Report) -> Headline {
        Headline {
            ttft: r.ttft,
            ttft_perceived: r.ttft_perceived.map(|b| b.painted),
            lag_p50: r.lag.map(|l| l.p50),
            matched: r.matched_pct,
            tokens: r.tokens,
            verdict: r.verdict().unwrap_or("none").to_string(),
        }
    }
}

fn ms(v: Option<f64>) -> String {
    v.map_or("unknown".into(), |v| format!("{v:.1} ms"))
}

/// Reads the answer: every body chunk as it comes, each SSE `data:` event's content appended.
async fn stream(query: String, set_answer: WriteSignal<String>) -> Result<(), JsValue> {
    set_answer.set(String::new());
    BODY.with(|b| b.borrow_mut().clear());
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&JsValue::from_str("{}"));
    let url = format!("/v1/chat/completions?{query}");
    let response = profiler().fetch(&url, &init).await?;
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
            set_answer.set(text.clone());
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

#[component]
fn Chat(answer: ReadSignal<String>) -> impl IntoView {
    let list = NodeRef::<html::Div>::new();
    let (headline, set_headline) = signal(None::<Headline>);
    let (live, set_live) = signal(None::<(Option<i64>, u64)>);
    // tokenpaint: watch the message list, the answer as it streams, and each report, for as long
    // as this is mounted.
    let guards: Rc<RefCell<Option<(ObserveGuard, Subscription, Subscription)>>> = Rc::default();
    let held = guards.clone();
    Effect::new(move |_| {
        if let Some(el) = list.get() {
            let p = profiler();
            let watching = p.observe(&el);
            let reports = p.on_report(move |r| {
                set_headline.set(Some(Headline::of(r)));
                keep_for_tests("typedReports", r);
            });
            let progress = p.on_progress(move |x: &Progress| {
                set_live.set(Some((x.backlog, x.arrived)));
                keep_for_tests("typedProgress", x);
            });
            *held.borrow_mut() = Some((watching, reports, progress));
        }
    });
    let guards = SendWrapper::new(guards);
    on_cleanup(move || drop(guards.borrow_mut().take()));

    view! {
        <div class="messages" node_ref=list>
            <p class="user">"Explain streaming latency."</p>
            <p class="answer">
                {move || {
                    let text = answer.get();
                    // The app's truth: Leptos writes this text node now.
                    COMMITS.with(|c| c.borrow_mut().push((text.len(), now())));
                    text
                }}
            </p>
        </div>
        <p id="live">
            {move || match live.get() {
                None => String::new(),
                Some((Some(backlog), arrived)) => format!("streaming: {arrived} characters arrived, backlog {backlog}"),
                Some((None, arrived)) => format!("streaming: {arrived} characters arrived"),
            }}
        </p>
        <dl id="headline">
            {move || match headline.get() {
                None => view! { <dt>"report"</dt><dd>"waiting for an answer"</dd> }.into_any(),
                Some(h) => view! {
                    <dt>"TTFT (network)"</dt><dd id="ttft">{ms(h.ttft)}</dd>
                    <dt>"TTFT (perceived)"</dt><dd id="ttft-perceived">{ms(h.ttft_perceived)}</dd>
                    <dt>"lag p50"</dt><dd id="lag">{ms(h.lag_p50)}</dd>
                    <dt>"matched"</dt><dd id="matched">{h.matched.map_or("unknown".into(), |m| format!("{m:.1}%"))}</dd>
                    <dt>"tokens"</dt><dd id="tokens">{h.tokens.map_or("unknown".into(), |t| t.to_string())}</dd>
                    <dt>"verdict"</dt><dd id="verdict">{h.verdict}</dd>
                }.into_any(),
            }}
        </dl>
    }
}

/// A typed report or progress, written back to JavaScript for the tests to read.
fn keep_for_tests(list: &str, r: &impl serde::Serialize) {
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
                    .find(|&&(len, _)| len >= end)
                    .map(|&(_, c)| c - t)
            })
            .collect(),
    )
}

fn expose(name: &str, f: &JsValue) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), f);
    }
}

#[component]
fn App() -> impl IntoView {
    let (answer, set_answer) = signal(String::new());
    let shown = RwSignal::new(true);

    let send = Closure::<dyn Fn(String) -> js_sys::Promise>::new(move |query: String| {
        ARRIVALS.with(|a| a.borrow_mut().clear());
        COMMITS.with(|c| c.borrow_mut().clear());
        wasm_bindgen_futures::future_to_promise(async move {
            stream(query, set_answer).await.map(|()| JsValue::TRUE)
        })
    });
    expose("send", send.as_ref());
    send.forget();
    let toggle = Closure::<dyn Fn() -> bool>::new(move || {
        shown.update(|s| *s = !*s);
        shown.get_untracked()
    });
    expose("toggle", toggle.as_ref());
    toggle.forget();
    let truth =
        Closure::<dyn Fn() -> JsValue>::new(|| truth().map_or(JsValue::NULL, JsValue::from));
    expose("truth", truth.as_ref());
    truth.forget();
    let text = Closure::<dyn Fn() -> String>::new(|| {
        BODY.with(|b| String::from_utf8_lossy(&b.borrow()).into_owned())
    });
    expose("appText", text.as_ref());
    text.forget();
    // The next report within `ms` (the typed API's deadline): its TTFT, or the error's text.
    let next = Closure::<dyn Fn(u32) -> js_sys::Promise>::new(|ms: u32| {
        wasm_bindgen_futures::future_to_promise(async move {
            let got = profiler()
                .next_report(std::time::Duration::from_millis(u64::from(ms)))
                .await;
            Ok(match got {
                Ok(r) => r.ttft.map_or(JsValue::NULL, JsValue::from),
                Err(e) => JsValue::from(e.to_string()),
            })
        })
    });
    expose("nextReport", next.as_ref());
    next.forget();
    expose("typedReports", &js_sys::Array::new());
    expose("typedProgress", &js_sys::Array::new());
    expose("tokenpaintProfiler", &profiler().as_js());

    view! {
        <h1>"A Leptos chat"</h1>
        <Show when=move || shown.get() fallback=|| view! { <p id="unmounted">"chat unmounted"</p> }>
            <Chat answer=answer />
        </Show>
    }
}

fn main() {
    leptos::mount::mount_to_body(App);
    expose("appReady", &JsValue::TRUE);
}
