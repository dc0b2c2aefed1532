//! tokenpaint for Rust web apps (Leptos, Dioxus, Yew): a typed API over the npm package's browser
//! shell (feature `web`, wasm32 only).
//!
//! The shell (`js/` of the npm package `tokenpaint`) stamps times, watches the DOM and paints,
//! and runs the core in a WebAssembly instance of its own. This module binds to it by its package
//! name, so the app's bundler, or an import map on a plain page, must resolve `tokenpaint`:
//!
//! ```html
//! <script type="importmap">{ "imports": { "tokenpaint": "/node_modules/tokenpaint/js/index.js" } }</script>
//! ```
//!
//! Why the shell, and not the same logic again in Rust: the core never runs inside the app's own
//! wasm instance. A panic in the core traps the core's instance only; the shell reports it
//! (`status: "failed"`), starts a fresh instance, and the app's instance, its state and its UI
//! carry on. Nothing here panics, and no JavaScript exception crosses into the app: every call
//! into the shell is caught. The app's response reaches it byte for byte, through the same code
//! the JavaScript apps use.
//!
//! ```ignore
//! use tokenpaint::web::{Options, Profiler};
//! let profiler = Profiler::new(&Options::default());
//! let _watching = profiler.observe(&message_list);          // unobserves on drop
//! let _reports = profiler.on_report(|r| log(r.ttft));       // unsubscribes on drop
//! let response = profiler.fetch("/v1/chat/completions", &init).await?;
//! ```
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use gloo_timers::future::TimeoutFuture;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, Request, RequestInit, Response};

use crate::types::{Progress, Report, Summary};

#[wasm_bindgen(module = "tokenpaint")]
extern "C" {
    /// The shell's `Profiler` class.
    #[wasm_bindgen(js_name = Profiler)]
    #[derive(Debug, Clone)]
    type Shell;

    #[wasm_bindgen(constructor, catch, js_class = "Profiler")]
    fn new(options: &JsValue) -> Result<Shell, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn observe(this: &Shell, element: &Element) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch)]
    fn unobserve(this: &Shell, element: &Element) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch)]
    fn track(this: &Shell, response: &Response, options: &JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, getter = fetch)]
    fn fetch_fn(this: &Shell) -> JsValue;

    #[wasm_bindgen(method, getter = ready)]
    fn ready_promise(this: &Shell) -> JsValue;

    #[wasm_bindgen(method, catch, js_name = onReport)]
    fn on_report(this: &Shell, callback: &js_sys::Function) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = onProgress)]
    fn on_progress(this: &Shell, callback: &js_sys::Function) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn reports(this: &Shell) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn summary(this: &Shell) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = exportSummary)]
    fn export_summary(this: &Shell) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = mergeSummary)]
    fn merge_summary(this: &Shell, exported: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn close(this: &Shell) -> Result<(), JsValue>;
}

/// What can go wrong reading what the shell gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The shell could not be made or called (the message is the JavaScript error's).
    Shell(String),
    /// A report or summary did not have the shape of [`Report`] or [`Summary`].
    Shape(String),
    /// No report came within the time given to [`Profiler::next_report`] (ms).
    Timeout(u32),
    /// There is no shell to report anything (the page load is not sampled, or the shell could not
    /// be made).
    Unavailable,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Shell(m) => write!(f, "tokenpaint shell: {m}"),
            Error::Shape(m) => write!(f, "tokenpaint report shape: {m}"),
            Error::Timeout(ms) => write!(f, "tokenpaint: no report within {ms} ms"),
            Error::Unavailable => write!(f, "tokenpaint: not profiling this page"),
        }
    }
}

impl std::error::Error for Error {}

fn message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// The profiler's options (the JavaScript `ProfilerOptions`); `None` keeps the default.
///
/// ```ignore
/// let options = Options { label: Some("chat".into()), sample_rate: Some(0.1), ..Options::default() };
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Options {
    /// The stream format (`auto` by default: detected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Quiet time after the stream's end before a report is taken without full paint (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settle_ms: Option<f64>,
    /// Longest wait after the end of the stream before a report is taken (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_settle_ms: Option<f64>,
    /// A stream with no chunk for this long is reported incomplete (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_ms: Option<f64>,
    /// Include per-token arrays in reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<bool>,
    /// How many reports [`Profiler::reports`] keeps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_reports: Option<u32>,
    /// Put the answer and reasoning text in reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_text: Option<bool>,
    /// Text waiting with no paint for longer than this is a stall (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stall_ms: Option<f64>,
    /// Per-token records kept per stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_token_detail: Option<u32>,
    /// A token painted more than this after it arrived is late (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_ms: Option<f64>,
    /// Phases on a "tokenpaint" track of the DevTools Performance panel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devtools: Option<bool>,
    /// A label for every stream of this profiler; summaries group by label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Targets, e.g. `ttftPerceived` → `p95` → 1000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slo: Option<BTreeMap<String, BTreeMap<String, f64>>>,
    /// `[good up to, poor above]` in ms per rated metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thresholds: Option<BTreeMap<String, [f64; 2]>>,
    /// The share of page loads profiled, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_rate: Option<f64>,
    /// The share of streams profiled on a sampled page, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_sample_rate: Option<f64>,
}

/// Options of [`Profiler::track`] (the JavaScript `TrackOptions`).
#[derive(Debug, Clone, Default)]
pub struct TrackOptions {
    /// A label for this stream.
    pub label: Option<String>,
    /// The element that will show this response's answer.
    pub target: Option<Element>,
    /// When the request started, as `performance.now()`.
    pub start: Option<f64>,
    /// The stream format for this response.
    pub format: Option<String>,
}

impl TrackOptions {
    fn to_js(&self) -> JsValue {
        let o = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
        };
        if let Some(l) = &self.label {
            set("label", l.into());
        }
        if let Some(t) = &self.target {
            set("target", t.into());
        }
        if let Some(s) = self.start {
            set("start", s.into());
        }
        if let Some(f) = &self.format {
            set("format", f.into());
        }
        o.into()
    }
}

/// A profiler: the shell's `Profiler`, typed. Cloning it gives another handle to the same one.
///
/// It never panics and never throws: if the shell cannot be made (the `tokenpaint` module is
/// there but failed), every method does nothing, [`Profiler::fetch`] is the browser's own, and
/// [`Profiler::error`] says why.
#[derive(Clone)]
pub struct Profiler {
    shell: Option<Shell>,
    error: Option<String>,
}

impl fmt::Debug for Profiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Profiler")
            .field("active", &self.shell.is_some())
            .field("error", &self.error)
            .finish()
    }
}

impl Profiler {
    /// Makes a profiler with `options`.
    ///
    /// ```ignore
    /// let profiler = Profiler::new(&Options::default());
    /// ```
    pub fn new(options: &Options) -> Profiler {
        let ser = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
        let js = match options.serialize(&ser) {
            Ok(js) => js,
            Err(e) => {
                return Profiler {
                    shell: None,
                    error: Some(e.to_string()),
                }
            }
        };
        match Shell::new(&js) {
            Ok(shell) => Profiler {
                shell: Some(shell),
                error: None,
            },
            Err(e) => Profiler {
                shell: None,
                error: Some(message(&e)),
            },
        }
    }

    /// Why the shell could not be made, if it could not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Watches `element`, in which the app renders answers, until the guard is dropped.
    ///
    /// ```ignore
    /// let guard = profiler.observe(&list); // in a component's mount
    /// drop(guard);                          // on unmount: unobserved
    /// ```
    pub fn observe(&self, element: &Element) -> ObserveGuard {
        if let Some(shell) = &self.shell {
            let _ = shell.observe(element);
        }
        ObserveGuard {
            shell: self.shell.clone(),
            element: Some(element.clone()),
        }
    }

    /// Profiles a response fetched by other means; read the returned response, not `response`.
    pub fn track(&self, response: Response, options: &TrackOptions) -> Response {
        let Some(shell) = &self.shell else {
            return response;
        };
        match shell.track(&response, &options.to_js()) {
            Ok(r) => r.dyn_into::<Response>().unwrap_or(response),
            Err(_) => response,
        }
    }

    fn fetch_function(&self) -> Option<js_sys::Function> {
        let f = match &self.shell {
            Some(shell) => shell.fetch_fn(),
            None => js_sys::Reflect::get(&js_sys::global(), &"fetch".into()).ok()?,
        };
        f.dyn_into::<js_sys::Function>().ok()
    }

    async fn call_fetch(&self, input: &JsValue, init: &JsValue) -> Result<Response, JsValue> {
        let f = self
            .fetch_function()
            .ok_or_else(|| JsValue::from_str("no fetch in this context"))?;
        let promise = f.call2(&JsValue::UNDEFINED, input, init)?;
        let response = JsFuture::from(js_sys::Promise::resolve(&promise)).await?;
        response.dyn_into::<Response>()
    }

    /// Fetches `url` as `fetch(url, init)` does, profiling the response. The error is fetch's own.
    ///
    /// ```ignore
    /// let init = RequestInit::new();
    /// init.set_method("POST");
    /// let response = profiler.fetch("/v1/chat/completions", &init).await?;
    /// ```
    pub async fn fetch(&self, url: &str, init: &RequestInit) -> Result<Response, JsValue> {
        self.call_fetch(&JsValue::from_str(url), init.as_ref())
            .await
    }

    /// Fetches `request` as `fetch(request)` does, profiling the response.
    pub async fn fetch_request(&self, request: &Request) -> Result<Response, JsValue> {
        self.call_fetch(request.as_ref(), &JsValue::UNDEFINED).await
    }

    /// Calls `callback` with each finished stream's report, until the subscription is dropped.
    ///
    /// A report that does not read as a [`Report`] (a shell newer than this crate that changed a
    /// field's type) is not passed on; the first such is logged to the console as a warning.
    ///
    /// ```ignore
    /// let _sub = profiler.on_report(move |r| set_ttft.set(r.ttft));
    /// ```
    pub fn on_report(&self, callback: impl FnMut(&Report) + 'static) -> Subscription {
        self.subscribe(Shell::on_report, callback)
    }

    /// The next report to finish, within `timeout`: [`Error::Timeout`] when none came, and
    /// [`Error::Unavailable`] at once without a shell. The subscription and the timer it uses are
    /// both dropped when the future is (a component that unmounts while waiting leaks neither).
    ///
    /// ```ignore
    /// let report = profiler.next_report(Duration::from_secs(30)).await?;
    /// ```
    pub fn next_report(&self, timeout: Duration) -> impl Future<Output = Result<Report, Error>> {
        let ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        let slot: Rc<RefCell<NextSlot>> = Rc::default();
        let sub = self.shell.as_ref().map(|_| {
            let slot = Rc::clone(&slot);
            self.on_report(move |r| {
                let mut s = slot.borrow_mut();
                if s.report.is_none() {
                    s.report = Some(r.clone());
                    if let Some(w) = s.waker.take() {
                        w.wake();
                    }
                }
            })
        });
        NextReport {
            slot,
            timer: sub.as_ref().map(|_| TimeoutFuture::new(ms)),
            ms,
            _sub: sub,
        }
    }

    /// Calls `callback` with each open stream's figures so far, after painted frames, every
    /// 100 ms at most, until the subscription is dropped (nothing is done without one).
    ///
    /// ```ignore
    /// let _live = profiler.on_progress(move |p| set_backlog.set(p.backlog));
    /// ```
    pub fn on_progress(&self, callback: impl FnMut(&Progress) + 'static) -> Subscription {
        self.subscribe(Shell::on_progress, callback)
    }

    fn subscribe<T: serde::de::DeserializeOwned + 'static>(
        &self,
        register: fn(&Shell, &js_sys::Function) -> Result<JsValue, JsValue>,
        mut callback: impl FnMut(&T) + 'static,
    ) -> Subscription {
        let Some(shell) = &self.shell else {
            return Subscription {
                off: None,
                closure: None,
            };
        };
        let warned = Cell::new(false);
        let closure = Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| {
            match serde_wasm_bindgen::from_value::<T>(v) {
                Ok(x) => callback(&x),
                Err(e) if !warned.get() => {
                    warned.set(true);
                    let e = Error::Shape(e.to_string());
                    web_sys::console::warn_1(&format!("tokenpaint: {e}").into());
                }
                Err(_) => {}
            }
        });
        let off = register(shell, closure.as_ref().unchecked_ref())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        Subscription {
            off,
            closure: Some(closure),
        }
    }

    /// The reports kept (the last `max_reports`).
    pub fn reports(&self) -> Result<Vec<Report>, Error> {
        let Some(shell) = &self.shell else {
            return Ok(Vec::new());
        };
        let v = shell.reports().map_err(|e| Error::Shell(message(&e)))?;
        serde_wasm_bindgen::from_value(v).map_err(|e| Error::Shape(e.to_string()))
    }

    /// Percentiles over the finished streams; `None` before the core is loaded or unsampled.
    pub fn summary(&self) -> Result<Option<Summary>, Error> {
        let Some(shell) = &self.shell else {
            return Ok(None);
        };
        let v = shell.summary().map_err(|e| Error::Shell(message(&e)))?;
        if v.is_null() || v.is_undefined() {
            return Ok(None);
        }
        serde_wasm_bindgen::from_value(v)
            .map(Some)
            .map_err(|e| Error::Shape(e.to_string()))
    }

    /// The summary in a compact form that [`Profiler::merge_summary`] reads back exactly.
    pub fn export_summary(&self) -> Option<String> {
        self.shell.as_ref()?.export_summary().ok()?.as_string()
    }

    /// Merges a summary exported elsewhere; false if it could not be read.
    pub fn merge_summary(&self, exported: &str) -> bool {
        self.shell
            .as_ref()
            .and_then(|s| s.merge_summary(exported).ok())
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    /// Waits until the profiler is ready (its core loaded); false when unsampled or failed.
    pub async fn ready(&self) -> bool {
        let Some(shell) = &self.shell else {
            return false;
        };
        let p = js_sys::Promise::resolve(&shell.ready_promise());
        matches!(JsFuture::from(p).await, Ok(v) if !v.is_null() && !v.is_undefined())
    }

    /// Disconnects for good: observers, paint clock, exporter.
    pub fn close(&self) {
        if let Some(shell) = &self.shell {
            let _ = shell.close();
        }
    }

    /// The JavaScript `Profiler`, for what this API does not cover (`undefined` without one).
    pub fn as_js(&self) -> JsValue {
        self.shell
            .as_ref()
            .map_or(JsValue::UNDEFINED, |s| JsValue::from(s.clone()))
    }
}

#[derive(Default)]
struct NextSlot {
    report: Option<Report>,
    waker: Option<Waker>,
}

/// The future of [`Profiler::next_report`]: its subscription and its timer, dropped with it.
#[must_use = "futures do nothing unless awaited"]
struct NextReport {
    slot: Rc<RefCell<NextSlot>>,
    timer: Option<TimeoutFuture>,
    ms: u32,
    _sub: Option<Subscription>,
}

impl Future for NextReport {
    type Output = Result<Report, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(r) = self.slot.borrow_mut().report.take() {
            return Poll::Ready(Ok(r));
        }
        let ms = self.ms;
        let Some(timer) = self.timer.as_mut() else {
            return Poll::Ready(Err(Error::Unavailable));
        };
        if Pin::new(timer).poll(cx).is_ready() {
            return Poll::Ready(Err(Error::Timeout(ms)));
        }
        self.slot.borrow_mut().waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Watching one element: dropping the guard unobserves it (see [`Profiler::observe`]).
#[must_use = "dropping the guard stops observing at once"]
#[derive(Debug)]
pub struct ObserveGuard {
    shell: Option<Shell>,
    element: Option<Element>,
}

impl ObserveGuard {
    /// Keeps observing for the profiler's lifetime, with no guard to hold.
    pub fn keep(mut self) {
        self.element = None;
    }
}

impl Drop for ObserveGuard {
    fn drop(&mut self) {
        if let (Some(shell), Some(element)) = (&self.shell, self.element.take()) {
            let _ = shell.unobserve(&element);
        }
    }
}

/// A report or progress callback: dropping it unsubscribes and frees the callback (see
/// [`Profiler::on_report`], [`Profiler::on_progress`]).
#[must_use = "dropping the subscription unsubscribes at once"]
pub struct Subscription {
    off: Option<js_sys::Function>,
    closure: Option<Closure<dyn FnMut(JsValue)>>,
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("active", &self.closure.is_some())
            .finish()
    }
}

impl Subscription {
    /// Keeps the callback for the page's lifetime, with no guard to hold (its memory is never
    /// freed).
    pub fn keep(mut self) {
        self.off = None;
        if let Some(c) = self.closure.take() {
            c.forget();
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(off) = self.off.take() {
            let _ = off.call0(&JsValue::UNDEFINED);
        }
        // The shell no longer holds the callback: its closure is freed here.
        self.closure = None;
    }
}
