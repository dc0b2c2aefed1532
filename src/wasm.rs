//! The binding the JavaScript shell (`js/`) calls: sessions by numeric id, bytes and times in,
//! reports and summaries out as JSON strings. One call per body chunk, per DOM change and per
//! painted frame; no callbacks into JavaScript, so nothing here can re-enter the page.

use crate::prelude::*;

use wasm_bindgen::prelude::*;

use crate::figures::browser::Shell;
use crate::figures::report::{self, Meta};
use crate::read::utf8::prefix;
use crate::summary::Summary;
use crate::timeline::entries::{LongFrame, LongFrames, ResourceEntry};
use crate::timeline::session::{EndKind, FramePace, Session};

struct Open {
    /// Test hook: the next chunk panics (see [`Core::arm_test_trap`]).
    trap: bool,
    id: u32,
    url: String,
    label: String,
    transport: String,
    resumed_from: String,
    end_message: String,
    session: Session,
}

/// All streams of one profiler.
#[wasm_bindgen]
pub struct Core {
    open: Vec<Open>,
    next_id: u32,
    summary: Summary,
    stall_ms: f64,
    detail_cap: usize,
    shell: Shell,
    frames: LongFrames,
}

impl Default for Core {
    fn default() -> Self {
        Core {
            open: Vec::new(),
            next_id: 0,
            summary: Summary::default(),
            stall_ms: 100.0,
            detail_cap: crate::timeline::session::DEFAULT_DETAIL_CAP,
            shell: Shell {
                resource_timing: true,
                ..Shell::default()
            },
            frames: LongFrames::default(),
        }
    }
}

#[wasm_bindgen]
impl Core {
    /// A core with no streams.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Core {
        Core::default()
    }

    /// A long animation frame the page had (absolute ms), numbered by the shell.
    pub fn long_frame(&mut self, seq: u32, start: f64, duration: f64, blocking: f64) {
        self.frames.push(LongFrame {
            seq,
            start,
            duration,
            blocking,
        });
    }

    /// The Resource Timing entry of stream `id`'s request (absolute ms; zero for a field the
    /// browser withheld).
    #[allow(clippy::too_many_arguments)]
    pub fn resource(
        &mut self,
        id: u32,
        start: f64,
        dns_start: f64,
        dns_end: f64,
        connect_start: f64,
        connect_end: f64,
        request_start: f64,
        response_start: f64,
        response_end: f64,
    ) {
        let known = |v: f64| (v > 0.0 && v.is_finite()).then_some(v);
        let entry = ResourceEntry {
            start,
            dns: (known(dns_start), known(dns_end)),
            connect: (known(connect_start), known(connect_end)),
            request_start: known(request_start),
            response_start: known(response_start),
            response_end: known(response_end),
        };
        if let Some(o) = self.get(id) {
            o.session.resource(entry);
        }
    }

    /// The summary in a compact form another profiler (tab, page, user) can merge.
    pub fn export_summary(&self) -> String {
        self.summary.export()
    }

    /// Merges an exported summary; `false` if it cannot be read (nothing changes then).
    pub fn merge_summary(&mut self, exported: &str) -> bool {
        self.summary.merge_json(exported)
    }

    /// Configures the core once, when it is made (one call: each exported method costs the
    /// module a wrapper of a few hundred bytes):
    /// - paint-less waits longer than `stall_ms` are reported as stalls; each stream keeps at
    ///   most `detail_cap` per-token records before merging neighbours (0: the default);
    /// - `slo`: the SLO targets, `metric quantile max; …` (e.g. `ttftPerceived 0.95 1000`);
    /// - what the engine gives (long animation frames, paint brackets), the late-paint
    ///   threshold (ms), rating thresholds written `metric good poor; …`, the timer's resolution
    ///   measured at start (ms; 0 when not measured), and whether the DevTools track was asked
    ///   for in an engine whose DevTools ignore it (only Chromium's show custom tracks);
    /// - `sample_rate`: the share of page loads profiled, which the summary and its export carry.
    #[allow(clippy::too_many_arguments)]
    pub fn configure(
        &mut self,
        stall_ms: f64,
        detail_cap: u32,
        slo: &str,
        late_ms: f64,
        long_frames: bool,
        paint: bool,
        thresholds: &str,
        timer_ms: f64,
        no_devtools_track: bool,
        sample_rate: f64,
    ) {
        if detail_cap > 0 {
            self.detail_cap = detail_cap as usize;
        }
        if stall_ms.is_finite() && stall_ms > 0.0 {
            self.stall_ms = stall_ms;
        }
        self.summary.set_slos(crate::summary::parse_slos(slo));
        self.summary.set_rate(sample_rate);
        // +Infinity: the page's clock never moved while the shell measured it, so it is coarse
        // and its step unknown (the report lists fine-timer and writes timerMs null); 0 or NaN:
        // not measured.
        self.shell.timer_ms = (timer_ms > 0.0).then_some(timer_ms);
        self.shell.no_devtools_track = no_devtools_track;
        if late_ms.is_finite() && late_ms >= 0.0 {
            self.shell.late_ms = late_ms;
        }
        self.shell.long_frames = long_frames;
        self.shell.paint = paint;
        self.shell.set_thresholds(thresholds);
    }

    /// The page was hidden from `start` to `end` (infinite: still hidden): applies to every
    /// open stream.
    pub fn hidden(&mut self, start: f64, end: f64) {
        for o in &mut self.open {
            o.session.hidden(start, end);
        }
    }

    fn get(&mut self, id: u32) -> Option<&mut Open> {
        self.open.iter_mut().find(|o| o.id == id)
    }

    /// Opens a stream; returns its id (never 0). `headers`: the response headers tokenpaint
    /// reads, as `name: value` lines with lower-case names.
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
    ) -> u32 {
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let id = self.next_id;
        let mut session = Session::new(
            format,
            content_type,
            headers,
            start,
            headers_at,
            http_status,
        );
        session.tl.stall_ms = self.stall_ms;
        session.tl.detail_cap = self.detail_cap;
        self.open.push(Open {
            trap: false,
            id,
            url: url.into(),
            label: String::new(),
            transport: String::new(),
            resumed_from: String::new(),
            end_message: String::new(),
            session,
        });
        id
    }

    /// What the shell knows of stream `id` when it opens (one call): its label (summaries group
    /// by label); what carried it to the page (`xhr`, `eventsource`, `websocket`, `socket.io`,
    /// `push`; `fetch` when empty) and the last event id it resumed from (an EventSource
    /// reconnect; empty: none); whether to keep its answer and reasoning text for the report
    /// (the `includeText` opt-in); and whether no request start can be known for it (see
    /// `Session::start_unknown`).
    pub fn describe(
        &mut self,
        id: u32,
        label: &str,
        transport: &str,
        resumed_from: &str,
        keep_text: bool,
        start_unknown: bool,
    ) {
        if let Some(o) = self.get(id) {
            o.label = prefix(label, 64).into();
            if !transport.is_empty() {
                o.transport = prefix(transport, 16).into();
            }
            o.resumed_from = prefix(resumed_from, 256).into();
            if keep_text {
                o.session.keep_text();
            }
            if start_unknown {
                o.session.start_unknown();
            }
        }
    }

    /// A body chunk read at `t`, or with `more`, the next part of the chunk read last.
    pub fn chunk(&mut self, id: u32, bytes: &[u8], t: f64, more: bool, net: f64) {
        if let Some(o) = self.get(id) {
            if o.trap {
                panic!("tokenpaint test trap");
            }
            o.session.chunk_seen(bytes, t, net, more);
        }
    }

    /// Test hook for the fault-isolation tests: the next chunk of stream `id` panics inside the
    /// core, as a bug would. Never called by the shell.
    pub fn arm_test_trap(&mut self, id: u32) {
        if let Some(o) = self.get(id) {
            o.trap = true;
        }
    }

    /// The body ended at `t`: `kind` 0 complete, 1 aborted, 2 failed; `message` says why.
    pub fn end(&mut self, id: u32, kind: u8, t: f64, message: &str) {
        if let Some(o) = self.get(id) {
            let kind = match kind {
                1 => EndKind::Aborted,
                2 => EndKind::Failed,
                _ => EndKind::Complete,
            };
            o.end_message = prefix(message, crate::read::wire::MAX_MESSAGE).into();
            o.session.end(kind, t);
        }
    }

    /// The answer's element changed at `t`: its text from UTF-16 offset `from` on is `text`
    /// (`from`: 0, the previous length, or a multiple of 64). Returns how many tokens were
    /// committed, or -1 when the whole text is needed (call again with `from` 0).
    pub fn rendered(&mut self, id: u32, text: &str, from: u32, t: f64) -> i32 {
        match self.get(id) {
            Some(o) => o.session.rendered(text, from, t).map_or(-1, |n| n as i32),
            None => 0,
        }
    }

    /// The element showing stream `id` changed at `t`, as [`Core::rendered`], in one call: the
    /// tokens committed plus 2^32 times the furthest offset the next re-render can resume from
    /// (see [`Session::resume_limit`]), or -1 when the whole text is needed.
    pub fn render(&mut self, id: u32, text: &str, from: u32, t: f64) -> f64 {
        match self.get(id) {
            Some(o) => match o.session.rendered(text, from, t) {
                Some(n) => f64::from(n) + f64::from(o.session.resume_limit()) * 4_294_967_296.0,
                None => -1.0,
            },
            None => 0.0,
        }
    }

    /// Why the page's element for stream `id` could not be read (`closed-shadow-root`,
    /// `cross-origin-iframe`, `not-found`, `not-observed`).
    pub fn dom_reason(&mut self, id: u32, reason: &str) {
        if let Some(o) = self.get(id) {
            o.session.dom_reason(reason);
        }
    }

    /// Stream `id` began before the module loaded: the page's text was read at `t`.
    pub fn caught_up(&mut self, id: u32, t: f64) {
        if let Some(o) = self.get(id) {
            o.session.caught_up(t);
        }
    }

    /// The request start of stream `id`, learned late (Resource Timing, for `track()`).
    pub fn set_start(&mut self, id: u32, start: f64) {
        if let Some(o) = self.get(id) {
            o.session.set_start(start);
        }
    }
    /// Whether an element's text shows the start of stream `id`'s answer.
    pub fn claims(&mut self, id: u32, text: &str) -> bool {
        self.get(id).is_some_and(|o| o.session.claims(text))
    }

    /// A frame painted (frame start, rendering cutoff or NaN, after-paint time, and the
    /// after-paint time of the frame before when the clock asked for this one then, else NaN):
    /// applies to every open stream. A frame that took much longer than a frame since it was
    /// asked for tells that the main thread was blocked. Returns how many tokens got a paint
    /// bracket.
    pub fn painted(&mut self, frame: f64, cutoff: f64, after: f64, since: f64) -> u32 {
        let late = since.is_finite() && after - since > FramePace::ON_TIME;
        self.open
            .iter_mut()
            .map(|o| {
                if late {
                    o.session.blocked(since, after);
                }
                o.session.painted(frame, cutoff, after)
            })
            .sum()
    }

    /// Stream `id` so far, at `now` (the live view), as a JSON array: arrived and painted
    /// characters, measured and perceived TTFT, the last lag, the oldest wait (null unknown);
    /// "" without the stream.
    pub fn progress(&mut self, id: u32, now: f64) -> String {
        self.get(id).map_or(String::new(), |o| {
            let p = o.session.progress(now);
            let mut w = crate::jsonwrite::JsonWriter::new();
            w.open_array();
            w.uint(p.arrived);
            w.uint(p.painted);
            for v in [p.ttft, p.ttft_perceived, p.lag, p.waiting] {
                w.num(v);
            }
            w.close_array();
            w.finish()
        })
    }

    /// Whether stream `id` has ended and all its visible text is painted.
    pub fn settled(&mut self, id: u32) -> bool {
        self.get(id).is_some_and(|o| o.session.settled())
    }

    /// Closes stream `id` and returns its report as JSON ("" if there is no such stream).
    pub fn finish(&mut self, id: u32, timeline: bool) -> String {
        let Some(i) = self.open.iter().position(|o| o.id == id) else {
            return String::new();
        };
        let o = self.open.swap_remove(i);
        let meta = Meta {
            id,
            url: &o.url,
            end_message: &o.end_message,
            timeline,
            label: &o.label,
            transport: &o.transport,
            resumed_from: &o.resumed_from,
        };
        let (json, metrics) =
            report::write_with(&o.session.tl, &meta, Some(&self.shell), Some(&self.frames));
        self.summary.add(&metrics);
        json
    }

    /// Percentiles over finished streams, as JSON.
    pub fn summary(&self) -> String {
        self.summary.to_json()
    }

    /// Number of open streams.
    pub fn active(&self) -> u32 {
        self.open.len() as u32
    }
}
