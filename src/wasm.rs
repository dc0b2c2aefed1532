//! The binding the JavaScript shell (`js/`) calls: it only converts. Sessions by numeric id,
//! bytes and times in, reports and summaries out as JSON strings; the registry itself is
//! [`crate::streams`], tested natively. One call per body chunk, per DOM change and per painted
//! frame; no callbacks into JavaScript, so nothing here can re-enter the page.

use crate::prelude::*;

use wasm_bindgen::prelude::*;

#[cfg(not(feature = "analyse"))]
use crate::streams::render_result;
use crate::streams::{Config, Streams};
#[cfg(not(feature = "analyse"))]
use crate::timeline::entries::{LongFrame, ResourceEntry};
#[cfg(not(feature = "analyse"))]
use crate::timeline::session::EndKind;

/// A stream's events for the shell's learner, framed as the core frames every stream
/// ([`crate::read::events::EventFramer`]): one path for bytes.
#[cfg(not(feature = "analyse"))]
#[wasm_bindgen]
pub struct Framer(crate::read::events::EventFramer);

#[cfg(not(feature = "analyse"))]
#[wasm_bindgen]
impl Framer {
    /// A framer for a response of `content_type`.
    #[wasm_bindgen(constructor)]
    pub fn new(content_type: &str) -> Framer {
        Framer(crate::read::events::EventFramer::new(content_type))
    }

    /// The events `bytes` complete (`name length:name data length:data`, lengths in UTF-16
    /// code units).
    pub fn push(&mut self, bytes: &[u8]) -> String {
        let mut out = String::new();
        self.0.feed(bytes, &mut out);
        out
    }

    /// The events the end of the stream completes.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        self.0.finish(&mut out);
        out
    }
}

/// All streams of one profiler.
#[cfg(not(feature = "analyse"))]
#[wasm_bindgen]
#[derive(Default)]
pub struct Core {
    streams: Streams,
}

#[cfg(not(feature = "analyse"))]
#[wasm_bindgen]
impl Core {
    /// A core with no streams.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Core {
        Core::default()
    }

    /// Configures the core once, when it is made: one value, `name=value` lines (see
    /// [`Config`]).
    pub fn configure(&mut self, options: &str) {
        self.streams.configure(&Config::parse(options));
    }

    /// A long animation frame the page had (absolute ms), numbered by the shell.
    pub fn long_frame(&mut self, seq: u32, start: f64, duration: f64, blocking: f64) {
        self.streams.long_frame(LongFrame {
            seq,
            start,
            duration,
            blocking,
        });
    }

    /// The Resource Timing entry of stream `id`'s request: its fields in the declared order
    /// (src/options.json `resource`, the shell's `RESOURCE_FIELDS`; absolute ms, zero for a
    /// field the browser withheld).
    pub fn resource(&mut self, id: u32, fields: &[f64]) {
        if let Some(entry) = ResourceEntry::from_fields(fields) {
            self.streams.resource(id, entry);
        }
    }

    /// The user's interactions while stream `id` was open (Event Timing): `[start, delay,
    /// duration]` triplets (absolute ms, ms, ms).
    pub fn inputs(&mut self, id: u32, triplets: &[f64]) {
        self.streams.inputs(id, triplets);
    }

    /// The frames the page painted while stream `id` was open: their starts (absolute ms).
    pub fn frames(&mut self, id: u32, starts: &[f64]) {
        self.streams.frames(id, starts);
    }

    /// The summary in a compact form another profiler (tab, page, user) can merge.
    pub fn export_summary(&self) -> String {
        self.streams.export_summary()
    }

    /// Merges an exported summary; `false` if it cannot be read (nothing changes then).
    pub fn merge_summary(&mut self, exported: &str) -> bool {
        self.streams.merge_summary(exported)
    }

    /// The page was hidden from `start` to `end` (infinite: still hidden).
    pub fn hidden(&mut self, start: f64, end: f64) {
        self.streams.hidden(start, end);
    }

    /// Opens a stream with what the shell knows of it, and returns its id (never 0): the call
    /// `open` of src/words.json, whose arguments the shell names in one record (js/core/calls.js,
    /// generated from it; tests/repo/words.test.mjs holds this order to it). `headers`: the
    /// response headers tokenpaint reads, as `name: value` lines with lower-case names; the rest
    /// as [`Streams::describe`] takes them.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        &mut self,
        format: &str,
        content_type: &str,
        headers: &str,
        url: &str,
        start: f64,
        headers_at: f64,
        http_status: u16,
        label: &str,
        transport: &str,
        resumed_from: &str,
        keep_text: bool,
        start_unknown: bool,
        prior_chars: f64,
        learned: bool,
    ) -> u32 {
        let id = self.streams.open(
            format,
            content_type,
            headers,
            url,
            start,
            headers_at,
            http_status,
        );
        self.streams.describe(
            id,
            label,
            transport,
            resumed_from,
            keep_text,
            start_unknown,
            prior_chars,
            learned,
        );
        id
    }

    /// A body chunk read at `t`, or with `more`, the next part of the chunk read last.
    pub fn chunk(&mut self, id: u32, bytes: &[u8], t: f64, more: bool, net: f64) {
        self.streams.chunk(id, bytes, t, more, net);
    }

    /// Test hook for the fault-isolation tests: the next chunk of stream `id` panics inside the
    /// core, as a bug would. Never called by the shell.
    pub fn arm_test_trap(&mut self, id: u32) {
        self.streams.arm_test_trap(id);
    }

    /// The body ended at `t`: `kind` 0 complete, 1 aborted, 2 failed; `message` says why.
    pub fn end(&mut self, id: u32, kind: u8, t: f64, message: &str) {
        self.streams.end(id, EndKind::from_code(kind), t, message);
    }

    /// The answer's element changed at `t`: its text from UTF-16 offset `from` on is `text`
    /// (`from`: 0, the previous length, or a multiple of 64). Returns the tokens committed and
    /// the furthest offset the next re-render can resume from, packed as declared (see
    /// [`render_result`]), one call for each decision of the DOM watch.
    pub fn render(&mut self, id: u32, text: &str, from: u32, t: f64) -> f64 {
        render_result(self.streams.rendered(id, text, from, t))
    }

    /// Why the page's element for stream `id` could not be read: the code of one of
    /// [`DOM_REASONS`](crate::timeline::session::DOM_REASONS) (src/words.json `domReasons`).
    pub fn dom_reason(&mut self, id: u32, reason: u8) {
        self.streams.dom_reason(id, reason);
    }

    /// Stream `id` began before the module loaded: the page's text was read at `t`.
    pub fn caught_up(&mut self, id: u32, t: f64) {
        self.streams.caught_up(id, t);
    }

    /// The request start of stream `id`, learned late (Resource Timing, for `track()`).
    pub fn set_start(&mut self, id: u32, start: f64) {
        self.streams.set_start(id, start);
    }

    /// Whether an element's text shows the start of stream `id`'s answer.
    pub fn claims(&mut self, id: u32, text: &str) -> bool {
        self.streams.claims(id, text)
    }

    /// A frame painted (frame start, rendering cutoff or NaN, after-paint time, and the
    /// after-paint time of the frame before when the clock asked for this one then, else NaN).
    /// Returns how many tokens got a paint bracket.
    pub fn painted(&mut self, frame: f64, cutoff: f64, after: f64, since: f64) -> u32 {
        self.streams.painted(frame, cutoff, after, since)
    }

    /// A frame painted before stream `id` opened, for it alone (see [`Streams::painted_one`]).
    pub fn painted_one(&mut self, id: u32, frame: f64, cutoff: f64, after: f64) -> u32 {
        self.streams.painted_one(id, frame, cutoff, after)
    }

    /// Stream `id` so far, at `now` (the live view), as a JSON object with the names of
    /// `Progress` in src/types.rs (see `Progress::json`); "" without the stream.
    pub fn progress(&mut self, id: u32, now: f64) -> String {
        self.streams
            .progress(id, now)
            .map_or(String::new(), |p| p.json())
    }

    /// The format stream `id` is read as so far: a format name, or "" while it is not known
    /// (and for no such stream). The shell learns where the answer is only in streams no reader
    /// holds (`js/transports/learn.js`).
    pub fn format(&mut self, id: u32) -> String {
        self.streams
            .format(id)
            .map_or(String::new(), |f| f.name().into())
    }

    /// Whether stream `id` has ended and all its visible text is painted.
    pub fn settled(&mut self, id: u32) -> bool {
        self.streams.settled(id)
    }

    /// Closes stream `id` and returns its report as JSON ("" if there is no such stream), with
    /// its saved timeline in `saved` when `save`.
    pub fn finish(&mut self, id: u32, timeline: bool, save: bool) -> String {
        self.streams.finish(id, timeline, save).unwrap_or_default()
    }

    /// Percentiles over finished streams, as JSON.
    pub fn summary(&self) -> String {
        self.streams.summary()
    }

    /// Number of open streams.
    pub fn active(&self) -> u32 {
        self.streams.active() as u32
    }
}

/// The analysis module's one export (feature `analyse`): saved timelines analysed again, their
/// reports and their summary. It reads no bytes and watches no page, so the readers, the
/// alignment and the paint bookkeeping are not in it.
#[cfg(feature = "analyse")]
#[wasm_bindgen]
#[derive(Default)]
pub struct Analyst {
    streams: Streams,
}

#[cfg(feature = "analyse")]
#[wasm_bindgen]
impl Analyst {
    /// An analyst with an empty summary.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Analyst {
        Analyst::default()
    }

    /// Configures the summary (`slo`, `sampleRate`; see [`Config`]).
    pub fn configure(&mut self, options: &str) {
        self.streams.configure(&Config::parse(options));
    }

    /// Analyses a saved timeline again (see `crate::saved`): its report as JSON, which joins the
    /// summary, or why it could not be read (`saved-timeline-malformed`, `not-a-saved-timeline`,
    /// `saved-timeline-newer-version`), a string that does not begin with `{`.
    pub fn analyse(&mut self, saved: &str) -> String {
        match self.streams.analyse(saved) {
            Ok(json) => json,
            Err(e) => e.code().into(),
        }
    }

    /// Percentiles over the streams analysed, as JSON.
    pub fn summary(&self) -> String {
        self.streams.summary()
    }

    /// The summary in a compact form a profiler can merge.
    pub fn export_summary(&self) -> String {
        self.streams.export_summary()
    }

    /// Merges an exported summary; `false` if it cannot be read.
    pub fn merge_summary(&mut self, exported: &str) -> bool {
        self.streams.merge_summary(exported)
    }
}
