//! One profiled stream, from its first byte to its last paint.
//!
//! The web shell feeds a session in time order:
//! 1. [`Session::chunk`] for each body chunk, with the time it was read: framing (SSE or plain
//!    text) → adapter → answer deltas, each a *token* stamped with that arrival time;
//! 2. [`Session::rendered`] each time the page changed the element showing the answer, with the
//!    time of the mutation: alignment moves the on-screen frontier, and every token the
//!    frontier passes is *committed* at that time;
//! 3. [`Session::painted`] once per frame that followed commits, with the frame's start and the
//!    after-paint time: committed tokens get that paint bracket;
//! 4. [`Session::end`] when the body ended, failed or was cancelled.
//!
//! All times are `performance.now()` milliseconds; a report states them relative to the
//! request start. A time not known is NaN inside and `null` in a report.

use crate::prelude::*;

use crate::read::lines::{LineFramer, LineItem};
use crate::read::sse::{SseError, SseFramer, SseItem};
use crate::read::utf8::Utf8Decoder;
use crate::read::wire::{self, Adapter, Detected, Format, Framing, ServerTimings, StreamError};
use crate::read::wire::{Usage, Wire};
use crate::stats::sketch::Sketch;
use crate::timeline::align::Aligner;
#[allow(unused_imports)] // for the doc link
use crate::timeline::align::CHECKPOINT;

/// The largest JSON document (an error body, a non-streamed answer) read whole.
pub const MAX_DOCUMENT: usize = 1 << 20;
/// Per-token records a stream keeps before merging neighbours (about 56 bytes each).
pub const DEFAULT_DETAIL_CAP: usize = 8192;
/// Choices besides the first whose deltas are counted apart.
pub const MAX_CHOICES: usize = 16;
/// Events that do not tell their format before detection gives up (format `unknown`).
const DETECT_EVENTS: u32 = 8;

/// How a stream ended, as the shell saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndKind {
    /// The body was read to its end.
    Complete,
    /// The application (or an AbortSignal) cancelled it.
    Aborted,
    /// The network failed mid-stream.
    Failed,
}

/// The answer and reasoning text, kept only when the user opted in (`includeText`).
#[derive(Debug, Clone, Default)]
pub struct Text {
    /// The answer text as it arrived.
    pub answer: String,
    /// The reasoning text as it arrived.
    pub reasoning: String,
}

/// The record of one answer delta (a content-bearing event), or, once a stream passes its
/// detail cap ([`DEFAULT_DETAIL_CAP`]), of a run of `count` consecutive deltas: times are the
/// last delta's, characters are summed (see `Timeline::decimate`). Not a model token: a
/// delta may carry several tokens, and `tokens` in a report is the server's count when known.
#[derive(Debug, Clone, Copy)]
pub struct DeltaRecord {
    /// When the chunk completing it was read.
    pub arrived: f64,
    /// Deltas this record stands for (1 until detail is decimated).
    pub count: u32,
    /// `arrived` minus the mean arrival of the deltas of the record (0 for one delta).
    pub gap: f32,
    /// Characters (Unicode scalar values) of answer text.
    pub chars: u32,
    /// Visible characters of answer text.
    pub visible: u32,
    /// Visible answer characters up to and including this token.
    pub visible_end: u32,
    /// When the page committed it to the DOM (NaN: not seen).
    pub committed: f64,
    /// The start of the frame that painted it (NaN: not painted).
    pub frame: f64,
    /// The after-paint time of that frame (NaN: not painted).
    pub painted: f64,
    /// When the server sampled it, from its first sampled token (llama.cpp
    /// `timings_per_token`: `predicted_ms` in the delta's own event; NaN: not told).
    pub server: f32,
}

/// What a stream keeps once its per-token detail was decimated: the per-token samples as
/// sketches, fed as deltas arrive and paint, so the statistics stay within the sketch's
/// accuracy however long the stream runs.
#[derive(Debug, Clone, Default)]
pub struct Decimated {
    /// Gaps between deltas.
    pub itl: Sketch,
    /// Arrival-to-paint lag, per delta.
    pub lag: Sketch,
    /// Deltas left out of lag because the page was hidden on their way to the screen.
    pub hidden_excluded: u64,
    /// How many times the records were merged.
    pub rounds: u32,
}

impl DeltaRecord {
    /// Whether the record's way to the screen (arrival to paint, or to `now` when not painted)
    /// overlaps a hidden interval of the page.
    pub fn overlaps_hidden(&self, hidden: &[(f64, f64)], now: f64) -> bool {
        let end = if self.painted.is_finite() {
            self.painted
        } else {
            now
        };
        hidden.iter().any(|&(a, b)| a < end && self.arrived < b)
    }

    /// One delta that arrived at `arrived`, not yet committed or painted.
    pub fn arrived(arrived: f64, chars: u32, visible: u32, visible_end: u32) -> DeltaRecord {
        DeltaRecord {
            arrived,
            count: 1,
            gap: 0.0,
            chars,
            visible,
            visible_end,
            committed: f64::NAN,
            frame: f64::NAN,
            painted: f64::NAN,
            server: f32::NAN,
        }
    }
}

/// Reasoning ("thinking") deltas, kept apart from the answer; the same counts for refusals.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reasoning {
    /// Number of reasoning deltas.
    pub deltas: u32,
    /// Characters of reasoning text.
    pub chars: u64,
    /// Arrival of the first reasoning delta.
    pub first: Option<f64>,
    /// Arrival of the last one.
    pub last: Option<f64>,
}

#[derive(Debug)]
enum Framer {
    /// Auto mode before the first bytes: sniff them.
    Undecided,
    Sse(SseFramer),
    Lines(LineFramer),
    Text(Utf8Decoder),
    Document(Vec<u8>),
}

impl Framer {
    fn new(framing: Framing) -> Framer {
        match framing {
            Framing::Sse => Framer::Sse(SseFramer::default()),
            Framing::Lines => Framer::Lines(LineFramer::default()),
            Framing::Text => Framer::Text(Utf8Decoder::new()),
            Framing::Document => Framer::Document(Vec::new()),
        }
    }
}

/// The timeline of one stream.
#[derive(Debug)]
pub struct Timeline {
    /// The resolved format (`None` while auto-detection waits for data).
    pub format: Option<Format>,
    /// Request start (absolute `performance.now()`).
    pub start: f64,
    /// Where `start` comes from: `request` (the profiled fetch, or `track`'s `start`),
    /// `resource-timing`, `headers` (`track()` without a start: the headers' arrival, so
    /// TTFB and TTFT are understated), or `unknown` (then `start` is only the zero of the
    /// timeline, and nothing is measured from it).
    pub start_source: &'static str,
    /// When the response headers arrived.
    pub headers_at: f64,
    /// The HTTP status.
    pub http_status: u16,
    /// The first body chunk.
    pub first_byte: Option<f64>,
    /// Body bytes read.
    pub bytes: u64,
    /// Body chunks read.
    pub chunks: u64,
    /// Answer deltas, one record each until the detail cap, then merged runs.
    pub records: Vec<DeltaRecord>,
    /// Answer deltas in all (records may stand for several).
    pub deltas: u64,
    /// Records kept before neighbours are merged.
    pub detail_cap: usize,
    /// Set once per-token detail was decimated.
    pub decimated: Option<Box<Decimated>>,
    /// The frame and after-paint time of the first delta with visible text.
    pub first_visible_paint: Option<(f64, f64)>,
    /// Answer characters.
    pub chars: u64,
    /// Reasoning deltas.
    pub reasoning: Reasoning,
    /// Refusal deltas (timed with the answer, which they stand in for), counted apart.
    pub refusal: Reasoning,
    /// Tool-call deltas.
    pub tool_calls: u32,
    /// Arrival of the first and the last tool-call delta.
    pub tool_span: Option<(f64, f64)>,
    /// Deltas of the choices other than the first (`n > 1`), by index: at most
    /// [`MAX_CHOICES`] are told apart.
    pub other_choices: Vec<(u32, u64)>,
    /// Framed events read (SSE events, lines, documents), the `server-timing` convention aside.
    pub events: u64,
    /// When the first event (or, for a text body, the first text) arrived: the "first chunk"
    /// of vLLM's benchmark and of OpenTelemetry's `time_to_first_chunk`, whatever it carried
    /// (a role, reasoning, a tool call, or answer text).
    pub first_event: Option<f64>,
    /// Where the response headers say a buffering intermediary may be (see
    /// [`wire::buffering_hint`]).
    pub buffer_hint: Option<wire::BufferHint>,
    /// Why the page's element could not be read, as the shell found it (`closed-shadow-root`,
    /// `cross-origin-iframe`, `not-found`, `not-observed`).
    pub dom_reason: Option<&'static str>,
    /// When the shell caught up with text the page showed before the core was ready: commits
    /// up to then carry that time, not their own.
    pub caught_up: Option<f64>,
    /// The request's Resource Timing entry, when the shell found it.
    pub resource: Option<crate::timeline::entries::ResourceEntry>,
    /// A `Server-Timing` header reached the page (same origin, or exposed by CORS).
    pub server_timing_header: bool,
    /// The server's token counts.
    pub usage: Option<Usage>,
    /// The first error the server sent in the stream.
    pub stream_error: Option<StreamError>,
    /// Events that could not be read, and the first reason.
    pub malformed: u32,
    /// Why the first malformed event failed.
    pub first_malformed: Option<&'static str>,
    /// A framing error: `line-too-long`, `event-too-large`, `document-too-large`.
    pub framing_error: Option<&'static str>,
    /// The server's timings, sent in the body.
    pub server: ServerTimings,
    /// Why generation stopped, as the server said.
    pub finish_reason: Option<String>,
    /// Events read before the format was known, when it was detected.
    undecided: u32,
    /// The text itself, only when the user opted in.
    pub text: Option<Text>,
    /// Intervals when the page was hidden (absolute ms; the end may be infinite).
    pub hidden: Vec<(f64, f64)>,
    /// Paint-less waits longer than this are stalls (ms).
    pub stall_ms: f64,
    /// The stream carried its end marker (`[DONE]`).
    pub done_marker: bool,
    /// The body ended inside an event, which was discarded.
    pub truncated: bool,
    /// How and when the body ended.
    pub end: Option<(EndKind, f64)>,
    /// The rendered element changed at least once.
    pub observed: bool,
    /// Paint brackets could not be taken for some commits (the page was hidden).
    pub paint_missing: bool,
    pub(crate) aligner: Aligner,
    next_commit: usize,
    next_paint: usize,
    /// When the frontier last moved.
    pub last_commit: Option<f64>,
    /// Frames painted while this stream was open, by how soon each followed the one before:
    /// within 1.6 frames (an idle main thread) or later (busy with long tasks).
    pub frame_pace: FramePace,
    last_frame: Option<f64>,
    /// When the page's main thread was seen blocked while this stream was open.
    pub blocked: crate::timeline::blocked::Blocked,
    /// Reads an arrival clock off the main thread also stamped (see [`Session::chunk_seen`]).
    pub reads: Reads,
    /// The event that carried the last answer delta (its number in `events`).
    answer_event: u64,
}

/// What an arrival clock off the main thread saw of the page's reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reads {
    /// Chunks it stamped.
    pub seen: u64,
    /// The page's read minus the clock's stamp, summed over the deltas of those chunks (ms).
    pub late_sum: f64,
    /// Deltas of those chunks.
    pub late_deltas: u64,
}

/// How soon painted frames followed each other while a stream was open: a page that keeps
/// painting every frame is idle between its commits; one whose frames come late is busy.
#[derive(Debug, Clone, Copy, Default)]
pub struct FramePace {
    /// Frames that followed the one before within [`FramePace::ON_TIME`] ms.
    pub on_time: u32,
    /// Frames that came later (up to [`FramePace::PAUSE`] ms; beyond, the clock had paused).
    pub late: u32,
}

impl FramePace {
    /// 1.6 frames at 60 Hz.
    pub const ON_TIME: f64 = 27.0;
    /// A longer gap is the paint clock resting, not a frame.
    pub const PAUSE: f64 = 250.0;

    /// The share of frames that came late, `None` before two frames.
    pub fn busy_share(&self) -> Option<f64> {
        let n = self.on_time + self.late;
        (n > 0).then(|| f64::from(self.late) / f64::from(n))
    }
}

/// A stream being profiled.
#[derive(Debug)]
pub struct Session {
    framing: Framer,
    adapter: Adapter,
    text: String,
    /// What has been measured.
    pub tl: Timeline,
}

impl Session {
    /// Opens a session. `format` is a format name or `auto`; `content_type` and `headers`
    /// (`name: value` lines) are the response's.
    pub fn new(
        format: &str,
        content_type: &str,
        headers: &str,
        start: f64,
        headers_at: f64,
        http_status: u16,
    ) -> Self {
        let requested = Format::from_name(format);
        let (framing, format) = if http_status >= 400 {
            // An error body is not an answer, whatever the format: read it as a document.
            (Framer::Document(Vec::new()), Some(Format::Json))
        } else if let Some(f) = requested {
            (Framer::new(f.framing()), Some(f))
        } else {
            match wire::sniff_framing(content_type, headers) {
                Detected::Format(f) => (Framer::new(f.framing()), Some(f)),
                Detected::Framing(fr) => (Framer::new(fr), None),
                Detected::Sniff => (Framer::Undecided, None),
            }
        };
        // Server timings sent in headers: Server-Timing (possibly several lines) and TGI's.
        let mut server = crate::read::servertiming::tgi_headers(headers);
        let mut server_timing_header = false;
        for line in headers.lines() {
            if let Some((name, value)) = line.split_once(':') {
                if name.trim().eq_ignore_ascii_case("server-timing") {
                    server.merge(crate::read::servertiming::timings(value));
                    server_timing_header = true;
                }
            }
        }
        // No request start (a response handed to `track()` without one): the headers' arrival
        // stands in until Resource Timing tells the real one (see [`Session::set_start`]).
        let (start, start_source) = if start.is_finite() {
            (start, "request")
        } else {
            (headers_at, "headers")
        };
        Session {
            framing,
            adapter: Adapter::new(),
            text: String::new(),
            tl: Timeline {
                format,
                start,
                start_source,
                headers_at,
                http_status,
                first_byte: None,
                bytes: 0,
                chunks: 0,
                records: Vec::new(),
                deltas: 0,
                detail_cap: DEFAULT_DETAIL_CAP,
                decimated: None,
                first_visible_paint: None,
                chars: 0,
                reasoning: Reasoning::default(),
                refusal: Reasoning::default(),
                tool_calls: 0,
                tool_span: None,
                other_choices: Vec::new(),
                events: 0,
                first_event: None,
                buffer_hint: wire::buffering_hint(headers),
                dom_reason: None,
                caught_up: None,
                resource: None,
                server_timing_header,
                usage: None,
                stream_error: None,
                malformed: 0,
                first_malformed: None,
                framing_error: None,
                server,
                finish_reason: None,
                undecided: 0,
                text: None,
                hidden: Vec::new(),
                stall_ms: 100.0,
                done_marker: false,
                truncated: false,
                end: None,
                observed: false,
                paint_missing: false,
                aligner: Aligner::new(),
                next_commit: 0,
                next_paint: 0,
                last_commit: None,
                frame_pace: FramePace::default(),
                last_frame: None,
                blocked: crate::timeline::blocked::Blocked::default(),
                reads: Reads::default(),
                answer_event: 0,
            },
        }
    }

    /// Keeps the answer and reasoning text for the report (off by default: reports carry
    /// counts and times, never content, unless the user opts in).
    pub fn keep_text(&mut self) {
        self.tl.text.get_or_insert_with(Text::default);
    }

    /// One body chunk, read at `t`.
    pub fn chunk(&mut self, bytes: &[u8], t: f64) {
        self.chunk_part(bytes, t, false);
    }

    /// One body chunk read by the page at `read`, which an arrival clock off the main thread
    /// (the opt-in service worker) saw in the browser at `net` (NaN: not seen). The chunk is
    /// stamped with `net` when it was seen: the page's late read is measured, not inferred.
    pub fn chunk_seen(&mut self, bytes: &[u8], read: f64, net: f64, more: bool) {
        if !(net.is_finite() && net <= read) {
            return self.chunk_part(bytes, read, more);
        }
        let before = self.tl.deltas;
        self.chunk_part(bytes, net, more);
        let r = &mut self.tl.reads;
        r.seen += 1;
        let added = self.tl.deltas - before;
        r.late_sum += (read - net) * added as f64;
        r.late_deltas += added;
    }

    /// One body chunk read at `t`, or with `more`, the next part of the chunk read last (the
    /// shell hands a long read over in parts, so that the copy into the module stays small):
    /// the parts count as one chunk.
    pub fn chunk_part(&mut self, bytes: &[u8], t: f64, more: bool) {
        if bytes.is_empty() || self.tl.end.is_some() {
            return;
        }
        let tl = &mut self.tl;
        tl.first_byte.get_or_insert(t);
        tl.bytes += bytes.len() as u64;
        tl.chunks += u64::from(!more);
        if let Framer::Undecided = self.framing {
            self.framing = Framer::new(wire::detect::sniff_bytes(bytes));
        }
        let adapter = &mut self.adapter;
        match &mut self.framing {
            Framer::Sse(framer) => framer.feed(bytes, &mut |item| match item {
                SseItem::Event(e) => tl.event(adapter, Framing::Sse, e.event, e.data, t),
                SseItem::Error(err) => {
                    tl.framing_error.get_or_insert(match err {
                        SseError::LineTooLong { .. } => "line-too-long",
                        SseError::EventTooLarge { .. } => "event-too-large",
                    });
                }
            }),
            Framer::Lines(framer) => framer.feed(bytes, &mut |item| match item {
                LineItem::Line(line) => tl.event(adapter, Framing::Lines, "", line, t),
                LineItem::TooLong { .. } => {
                    tl.framing_error.get_or_insert("line-too-long");
                }
            }),
            Framer::Text(decoder) => {
                self.text.clear();
                decoder.decode(bytes, &mut self.text);
                tl.format.get_or_insert(Format::Text);
                if !self.text.is_empty() {
                    tl.first_event.get_or_insert(t);
                    tl.wire(Wire::Answer(&self.text), t);
                }
            }
            Framer::Document(doc) => {
                if doc.len() + bytes.len() <= MAX_DOCUMENT {
                    doc.extend_from_slice(bytes);
                } else {
                    tl.framing_error.get_or_insert("document-too-large");
                }
            }
            Framer::Undecided => {}
        }
    }

    /// The body ended at `t`.
    pub fn end(&mut self, kind: EndKind, t: f64) {
        if self.tl.end.is_some() {
            return;
        }
        let tl = &mut self.tl;
        let adapter = &mut self.adapter;
        match &mut self.framing {
            Framer::Sse(f) => tl.truncated = f.finish(),
            Framer::Lines(f) => f.finish(&mut |item| {
                if let LineItem::Line(line) = item {
                    tl.event(adapter, Framing::Lines, "", line, t);
                }
            }),
            Framer::Text(d) => {
                self.text.clear();
                d.finish(&mut self.text);
                if !self.text.is_empty() {
                    tl.wire(Wire::Answer(&self.text), t);
                }
            }
            Framer::Document(doc) => {
                let mut text = String::new();
                crate::read::utf8::push_lossy(&mut text, doc);
                let format = tl.format.unwrap_or(Format::Json);
                let before = tl.stream_error.is_some();
                tl.event(adapter, Framing::Document, "", &text, t);
                if tl.http_status >= 400 && !before && tl.stream_error.is_none() {
                    // Not a JSON error: keep the start of the body as the message.
                    let mut message =
                        String::from(crate::read::utf8::prefix(&text, wire::MAX_MESSAGE));
                    message.retain(|c| !c.is_control() || c == ' ');
                    tl.stream_error = Some(StreamError {
                        code: String::new(),
                        message,
                    });
                    tl.malformed = tl.malformed.saturating_sub(1);
                    tl.first_malformed = None;
                }
                tl.format = Some(format);
            }
            Framer::Undecided => {}
        }
        self.tl.end = Some((kind, t));
    }

    /// The element showing the answer changed at `t`: its text from UTF-16 offset `from` on is
    /// now `text` (see [`Aligner::rendered`]: `from` is 0, the previous length, or a
    /// checkpoint). Returns how many tokens were committed, or `None` if the whole text is
    /// needed.
    pub fn rendered(&mut self, text: &str, from: u32, t: f64) -> Option<u32> {
        self.tl.rendered(text, from, t)
    }

    /// The furthest offset a re-render can resume from (see [`Aligner::resume_limit`]).
    pub fn resume_limit(&self) -> u32 {
        self.tl.aligner.resume_limit()
    }

    /// Text appended to the element showing the answer, at `t` (a convenience for tests and
    /// shells that only append).
    pub fn appended(&mut self, text: &str, t: f64) -> u32 {
        let at = self.tl.aligner.rendered_units();
        self.tl.rendered(text, at, t).unwrap_or(0)
    }

    /// Whether `text` (an element's text) shows the start of this answer.
    pub fn claims(&self, text: &str) -> bool {
        self.tl.aligner.claims(text)
    }

    /// A frame was painted: it started at `frame`, its rendering steps began after `cutoff`
    /// (NaN: not known), and the after-paint callback ran at `after`. A commit made after the
    /// cutoff is not in this frame. Returns how many tokens got a paint bracket.
    pub fn painted(&mut self, frame: f64, cutoff: f64, after: f64) -> u32 {
        self.tl.painted(frame, cutoff, after)
    }

    /// The page's main thread was blocked from `start` to `end` (a frame the paint clock asked
    /// for at `start` whose after-paint mark came only at `end`), while the stream was open or
    /// its text still waited for paint. Reads that bunch up after it were the page's late
    /// reads, not an intermediary's holds.
    pub fn blocked(&mut self, start: f64, end: f64) {
        // Until the report, not only until the body's end: a page seconds behind still paints
        // the answer long after the last byte was read.
        self.tl.blocked.push(start, end);
    }

    /// The page was hidden from `start` to `end` (infinite: still hidden). Samples overlapping
    /// it are left out of lag statistics.
    pub fn hidden(&mut self, start: f64, end: f64) {
        if end <= start {
            return;
        }
        // The same interval told again (still hidden at each report, then its real end):
        // one interval, with the latest end.
        if let Some(h) = self.tl.hidden.iter_mut().find(|h| h.0 == start) {
            h.1 = end;
        } else if self.tl.hidden.len() < 64 {
            self.tl.hidden.push((start, end));
        }
    }

    /// What the shell knows about why the answer's element could not be read.
    pub fn dom_reason(&mut self, reason: &str) {
        self.tl.dom_reason = match reason {
            "closed-shadow-root" => Some("closed-shadow-root"),
            "cross-origin-iframe" => Some("cross-origin-iframe"),
            "not-observed" => Some("not-observed"),
            "not-found" => Some("not-found"),
            _ => None,
        };
    }

    /// The shell read, at `t`, text the page showed before the core was ready (a stream that
    /// began before the module loaded): the commits made up to now are stamped `t`.
    pub fn caught_up(&mut self, t: f64) {
        self.tl.caught_up.get_or_insert(t);
    }

    /// The request's Resource Timing entry.
    pub fn resource(&mut self, entry: crate::timeline::entries::ResourceEntry) {
        self.tl.resource = Some(entry);
    }

    /// The request start, learned after the stream was opened (from Resource Timing, for a
    /// response handed to `track()` without one).
    pub fn set_start(&mut self, start: f64) {
        if start.is_finite() && start <= self.tl.headers_at {
            self.tl.start = start;
            self.tl.start_source = "resource-timing";
        }
    }

    /// No request start can be known (an answer on a socket whose request was not seen): the
    /// figures measured from the start (TTFB, TTFT, E2E, the phases) are unknown.
    pub fn start_unknown(&mut self) {
        if self.tl.start_source == "headers" {
            self.tl.start_source = "unknown";
        }
    }

    /// Whether the stream has ended and every visible token has been painted.
    pub fn settled(&self) -> bool {
        self.tl.end.is_some() && self.tl.all_painted()
    }

    /// The stream so far, at `now`, read from the records its report will be made of (the live
    /// view, [`Progress`]). Times are ms from the request start; NaN is unknown.
    pub fn progress(&self, now: f64) -> Progress {
        let tl = &self.tl;
        let rel = |t: f64| t - tl.start;
        let mut p = Progress {
            arrived: 0,
            painted: 0,
            ttft: f64::NAN,
            ttft_perceived: f64::NAN,
            lag: f64::NAN,
            waiting: 0.0,
        };
        // TTFT and its perceived version as the report takes them.
        p.ttft = tl.first_answer().map_or(f64::NAN, rel);
        p.ttft_perceived = tl
            .first_visible_paint
            .filter(|(_, painted)| *painted <= now)
            .map_or(f64::NAN, |(_, painted)| rel(painted));
        for t in &tl.records {
            p.arrived += u64::from(t.chars);
            if t.painted.is_finite() && t.painted <= now {
                p.painted += u64::from(t.chars);
                p.lag = t.painted - t.arrived;
            } else if t.visible > 0 && p.waiting == 0.0 {
                p.waiting = (now - t.arrived).max(0.0);
            }
        }
        p
    }
}

/// A stream so far (see [`Session::progress`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Characters of answer text arrived.
    pub arrived: u64,
    /// Characters of it painted.
    pub painted: u64,
    /// Measured TTFT (NaN before the first answer delta).
    pub ttft: f64,
    /// Perceived TTFT (NaN before the first visible text is painted).
    pub ttft_perceived: f64,
    /// The lag of the last painted token (NaN before the first paint).
    pub lag: f64,
    /// How long the oldest visible text not yet painted has waited (0 when none waits).
    pub waiting: f64,
}

/// Records kept at least, whatever the configured cap.
pub const MIN_DETAIL_CAP: usize = 64;

/// One record for the runs of `a` and the `b` after it.
fn merge(a: DeltaRecord, b: DeltaRecord) -> DeltaRecord {
    let count = a.count.saturating_add(b.count);
    let mean = |t: &DeltaRecord| t.arrived - f64::from(t.gap);
    let mean = (mean(&a) * f64::from(a.count) + mean(&b) * f64::from(b.count)) / f64::from(count);
    DeltaRecord {
        count,
        gap: (b.arrived - mean) as f32,
        chars: a.chars.saturating_add(b.chars),
        visible: a.visible.saturating_add(b.visible),
        ..b
    }
}

impl Decimated {
    /// The lag of a painted record: each of its deltas waited from its arrival to the paint
    /// (the run's mean arrival stands for them).
    fn lag_sample(&mut self, t: &DeltaRecord, hidden: &[(f64, f64)]) {
        if !hidden.is_empty() && t.overlaps_hidden(hidden, t.painted) {
            self.hidden_excluded += u64::from(t.count);
        } else {
            let lag = t.painted - (t.arrived - f64::from(t.gap));
            self.lag.add_n(lag, u64::from(t.count));
        }
    }
}

impl Timeline {
    /// When the first answer delta arrived (absolute ms): measured TTFT, once known.
    pub fn first_answer(&self) -> Option<f64> {
        self.records.first().map(|t| t.arrived)
    }

    /// When the last answer delta so far arrived (absolute ms): measured E2E, once ended.
    pub fn last_answer(&self) -> Option<f64> {
        self.records.last().map(|t| t.arrived)
    }

    /// One framed event: detect the format if needed, then read it.
    fn event(&mut self, adapter: &mut Adapter, framing: Framing, kind: &str, data: &str, t: f64) {
        // A convention for servers that know their timings only at the end: an SSE event of
        // type `server-timing` whose data uses the Server-Timing header's syntax.
        if kind == "server-timing" {
            self.server.merge(crate::read::servertiming::timings(data));
            return;
        }
        self.events += 1;
        self.first_event.get_or_insert(t);
        let format = match self.format {
            Some(f) => f,
            None => match wire::detect_event(framing, kind, data) {
                Some(f) => *self.format.insert(f),
                None => {
                    self.undecided += 1;
                    if self.undecided >= DETECT_EVENTS {
                        self.format = Some(Format::Unknown);
                    }
                    Format::Unknown // still reads an error or an end marker
                }
            },
        };
        if let Err(err) = adapter.event(format, kind, data, &mut |w| self.wire(w, t)) {
            self.malformed += 1;
            self.first_malformed.get_or_insert(err.code());
        }
    }

    fn wire(&mut self, w: Wire<'_>, t: f64) {
        match w {
            Wire::Refusal(text) => {
                let r = &mut self.refusal;
                r.deltas += 1;
                r.chars += crate::read::utf8::char_count(text) as u64;
                r.first.get_or_insert(t);
                r.last = Some(t);
                self.wire(Wire::Answer(text), t);
            }
            Wire::Answer(text) => {
                let visible = self.aligner.push_arrived(text) as u32;
                let chars = crate::read::utf8::char_count(text) as u32;
                self.chars += u64::from(chars);
                if let Some(kept) = &mut self.text {
                    kept.answer.push_str(text);
                }
                self.deltas += 1;
                self.answer_event = self.events;
                if self.records.len() >= self.detail_cap.max(MIN_DETAIL_CAP) {
                    self.decimate();
                }
                if let (Some(d), Some(last)) = (&mut self.decimated, self.records.last()) {
                    d.itl.add(t - last.arrived);
                }
                let end = self.aligner.arrived_len() as u32;
                self.records
                    .push(DeltaRecord::arrived(t, chars, visible, end));
                // Text the page showed before it was read here (rendered inside the
                // transport's own event): on screen as it arrives.
                if self.observed && self.aligner.waiting() {
                    self.realign(t);
                }
            }
            Wire::Reasoning(text) => {
                let r = &mut self.reasoning;
                r.deltas += 1;
                r.chars += crate::read::utf8::char_count(text) as u64;
                r.first.get_or_insert(t);
                r.last = Some(t);
                if let Some(kept) = &mut self.text {
                    kept.reasoning.push_str(text);
                }
            }
            Wire::ToolCall => {
                self.tool_calls += 1;
                let first = self.tool_span.map_or(t, |s| s.0);
                self.tool_span = Some((first, t));
            }
            Wire::OtherChoice(index) => {
                let full = self.other_choices.len() >= MAX_CHOICES;
                match self.other_choices.iter_mut().find(|c| c.0 == index) {
                    Some(c) => c.1 += 1,
                    None if !full => self.other_choices.push((index, 1)),
                    None => {}
                }
            }
            Wire::Usage(u) => self.usage.get_or_insert_with(Usage::default).merge(u),
            Wire::Timings(s) => {
                // Timings in the answer delta's own event are that token's (llama.cpp's
                // `timings_per_token`); those of the last event are the stream's.
                if let (Some(d), true) = (s.decode_ms, self.answer_event == self.events) {
                    if let Some(last) = self.records.last_mut() {
                        last.server = d as f32;
                    }
                }
                self.server.merge(s)
            }
            Wire::Finish(reason) => {
                let mut r = String::from(crate::read::utf8::prefix(reason, 64));
                r.retain(|c| !c.is_control());
                self.finish_reason = Some(r);
            }
            Wire::Error(e) => {
                self.stream_error.get_or_insert(e);
            }
            Wire::Done => self.done_marker = true,
        }
    }

    fn rendered(&mut self, text: &str, from: u32, t: f64) -> Option<u32> {
        let frontier = self.aligner.rendered(text, from)? as u32;
        self.observed = true;
        Some(self.commit_to(frontier, t))
    }

    /// Text the page showed before it arrived here waits in the aligner: once more of the
    /// answer has arrived, what it shows is on screen now. Only visible text that the frontier
    /// passes counts: a delta with nothing visible is delivered at the element's next change.
    fn realign(&mut self, t: f64) {
        let before = self.aligner.frontier();
        let at = self.aligner.rendered_units();
        if let Some(frontier) = self.aligner.rendered("", at).filter(|&f| f > before) {
            self.commit_to(frontier as u32, t);
        }
    }

    /// Commits at `t` the tokens the frontier has passed; returns how many.
    fn commit_to(&mut self, frontier: u32, t: f64) -> u32 {
        let before = self.next_commit;
        // Tokens the frontier has passed are on screen. A token with no visible characters
        // (whitespace, markup) is delivered with the text around it: at the first change of
        // the element after everything before it is on screen.
        while let Some(tok) = self.records.get_mut(self.next_commit) {
            if tok.visible_end > frontier {
                break;
            }
            tok.committed = t;
            self.next_commit += 1;
        }
        let n = (self.next_commit - before) as u32;
        if n > 0 {
            self.last_commit = Some(t);
        }
        n
    }

    fn painted(&mut self, frame: f64, cutoff: f64, after: f64) -> u32 {
        // Commits up to the rendering cutoff are in this frame; without one, up to the
        // after-paint mark (a commit in a task between the two is then credited a frame early).
        let cutoff = if cutoff.is_finite() {
            cutoff.min(after)
        } else {
            after
        };
        if let Some(prev) = self.last_frame.replace(frame) {
            let gap = frame - prev;
            if gap > 0.0 && gap <= FramePace::ON_TIME {
                self.frame_pace.on_time += 1;
            } else if gap > 0.0 && gap < FramePace::PAUSE {
                self.frame_pace.late += 1;
            }
        }
        let before = self.next_paint;
        while self.next_paint < self.next_commit {
            let tok = &mut self.records[self.next_paint];
            // The first frame whose rendering follows the commit painted it: a commit made in
            // a normal task before the frame, or inside the frame's own rAF callbacks.
            if tok.committed > cutoff {
                break;
            }
            // A commit made inside this frame's rendering steps (an app's own rAF callback)
            // happened after the frame started: it cannot have been painted before it.
            tok.frame = frame.max(tok.committed);
            tok.painted = after;
            let tok = *tok;
            if tok.visible > 0 && self.first_visible_paint.is_none() {
                self.first_visible_paint = Some((tok.frame, tok.painted));
            }
            if let Some(d) = &mut self.decimated {
                d.lag_sample(&tok, &self.hidden);
            }
            self.next_paint += 1;
        }
        (self.next_paint - before) as u32
    }

    /// Halves the per-token records: neighbours in the same state (painted; committed, not
    /// yet painted; not yet committed) merge into one record for both runs, keeping the later
    /// one's times and summing counts and characters. The first record stays single (TTFT).
    /// The first time, the per-token samples so far go into sketches, which later deltas feed
    /// directly; counts, characters, first and last times stay exact.
    fn decimate(&mut self) {
        let d = self.decimated.get_or_insert_with(|| {
            let mut d = Box::<Decimated>::default();
            for w in self.records.windows(2) {
                d.itl.add(w[1].arrived - w[0].arrived);
            }
            for t in &self.records[..self.next_paint] {
                d.lag_sample(t, &self.hidden);
            }
            d
        });
        d.rounds += 1;
        let (c, p, n) = (self.next_commit, self.next_paint, self.records.len());
        let state = |i: usize| u8::from(i >= p) + u8::from(i >= c);
        let (mut new_c, mut new_p) = (c.min(1), p.min(1));
        let (mut i, mut out) = (1, 1);
        while i < n {
            if i == c {
                new_c = out;
            }
            if i == p {
                new_p = out;
            }
            let t = self.records[i];
            self.records[out] = if i + 1 < n && state(i) == state(i + 1) {
                let u = self.records[i + 1];
                i += 2;
                merge(t, u)
            } else {
                i += 1;
                t
            };
            out += 1;
        }
        if c == n {
            new_c = out;
        }
        if p == n {
            new_p = out;
        }
        self.records.truncate(out);
        self.next_commit = new_c;
        self.next_paint = new_p;
    }

    /// Whether every token with visible text has been painted.
    pub fn all_painted(&self) -> bool {
        match self.records.iter().rposition(|t| t.visible > 0) {
            Some(last) => self.next_paint > last,
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse(events: &[&str]) -> Vec<u8> {
        events
            .iter()
            .map(|d| format!("data: {d}\n\n"))
            .collect::<String>()
            .into_bytes()
    }

    fn chunk_json(content: &str) -> String {
        format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{content}"}}}}]}}"#)
    }

    #[test]
    fn tokens_carry_the_time_of_the_chunk_that_completed_them() {
        let mut s = Session::new("auto", "text/event-stream", "", 0.0, 5.0, 200);
        let body = sse(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
            &chunk_json("Hello"),
            &chunk_json(" world"),
            "[DONE]",
        ]);
        let cut = body.len() / 2;
        s.chunk(&body[..cut], 10.0);
        s.chunk(&body[cut..], 30.0);
        s.end(EndKind::Complete, 31.0);
        let tl = &s.tl;
        assert_eq!(tl.format, Some(Format::OpenAiChat));
        assert_eq!(tl.first_byte, Some(10.0));
        let arrived: Vec<f64> = tl.records.iter().map(|t| t.arrived).collect();
        assert_eq!(arrived, vec![30.0, 30.0]);
        assert_eq!((tl.chars, tl.done_marker, tl.truncated), (11, true, false));
    }

    #[test]
    fn commits_and_paints_follow_the_screen() {
        let mut s = Session::new("sse-text", "", "", 0.0, 0.0, 200);
        s.chunk(b"data: Hel\n\ndata: lo\n\ndata:  \n\ndata: you\n\n", 10.0);
        assert_eq!(s.tl.records.len(), 4);
        assert_eq!(s.appended("Hel", 12.0), 1);
        assert_eq!(s.painted(16.0, 16.5, 18.0), 1);
        // "lo", the whitespace token and "you" arrive on screen together.
        assert_eq!(s.appended("lo you", 40.0), 3);
        assert_eq!(s.painted(33.0, 40.5, 42.0), 3);
        let tok = &s.tl.records;
        assert_eq!(
            (tok[0].committed, tok[0].frame, tok[0].painted),
            (12.0, 16.0, 18.0)
        );
        // The frame started before the commit (an app rAF render): clamp to the commit.
        assert_eq!(
            (tok[1].committed, tok[1].frame, tok[1].painted),
            (40.0, 40.0, 42.0)
        );
        s.end(EndKind::Complete, 50.0);
        assert!(s.settled());
    }

    #[test]
    fn chunks_seen_off_the_main_thread_are_stamped_there_and_the_late_read_measured() {
        let mut s = Session::new("sse-text", "", "", 0.0, 0.0, 200);
        s.chunk_seen(b"data: a\n\n", 10.0, 9.5, false);
        // Read 300 ms after the browser had it (a blocked page), two deltas.
        s.chunk_seen(b"data: b\n\ndata: c\n\n", 340.0, 40.0, false);
        // Not seen by the clock (NaN), or a stamp after the read (clocks apart): the read.
        s.chunk_seen(b"data: d\n\n", 350.0, f64::NAN, false);
        s.chunk_seen(b"data: e\n\n", 360.0, 361.0, false);
        let arrived: Vec<f64> = s.tl.records.iter().map(|r| r.arrived).collect();
        assert_eq!(arrived, vec![9.5, 40.0, 40.0, 350.0, 360.0]);
        let r = s.tl.reads;
        assert_eq!((r.seen, r.late_deltas), (2, 3));
        assert!((r.late_sum - (0.5 + 600.0)).abs() < 1e-9);
    }

    #[test]
    fn timings_in_a_deltas_own_event_are_that_tokens() {
        // llama-server with timings_per_token: every chunk carries the timings so far; the
        // last one, with no content, is the stream's.
        let ev = |content: &str, ms: f64| {
            format!(
                r#"data: {{"choices":[{{"index":0,"delta":{{"content":"{content}"}}}}],"timings":{{"prompt_n":3,"prompt_ms":40,"predicted_n":1,"predicted_ms":{ms}}}}}"#
            ) + "\n\n"
        };
        let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 0.0, 200);
        s.chunk(ev("a", 0.0).as_bytes(), 50.0);
        s.chunk((ev("b", 20.5) + &ev("c", 41.0)).as_bytes(), 95.0);
        s.chunk(br#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"timings":{"prompt_ms":40,"predicted_n":3,"predicted_ms":42}}"#, 96.0);
        s.chunk(b"\n\n", 96.0);
        let server: Vec<f32> = s.tl.records.iter().map(|r| r.server).collect();
        assert_eq!(server, vec![0.0, 20.5, 41.0]);
        assert_eq!(s.tl.server.decode_ms, Some(42.0));
    }

    #[test]
    fn text_shown_before_it_was_read_is_committed_when_it_arrives() {
        // An XHR page whose progress handler appends the delta before tokenpaint's own
        // listener reads it: the last delta is on screen first, and no change follows.
        let mut s = Session::new("sse-text", "", "", 0.0, 0.0, 200);
        s.chunk(b"data: Hello\n\n", 1.0);
        assert_eq!(s.appended("Hello", 1.5), 1);
        assert_eq!(s.appended(" wonderful", 20.0), 0);
        s.chunk(b"data:  wonderful\n\n", 20.2);
        assert_eq!(s.tl.records[1].committed, 20.2);
        assert_eq!(s.tl.aligner.frontier(), s.tl.aligner.arrived_len());
        s.painted(30.0, 31.0, 32.0);
        s.end(EndKind::Complete, 40.0);
        assert!(s.settled());
    }

    #[test]
    fn a_commit_after_the_after_paint_mark_waits_for_the_next_frame() {
        let mut s = Session::new("sse-text", "", "", 0.0, 0.0, 200);
        s.chunk(b"data: a\n\ndata: b\n\n", 1.0);
        s.appended("a", 2.0);
        s.appended("b", 20.0);
        assert_eq!(s.painted(16.0, 17.0, 18.0), 1);
        s.end(EndKind::Complete, 21.0);
        assert!(!s.settled());
        assert_eq!(s.painted(33.0, 33.5, 35.0), 1);
        assert!(s.settled());
    }

    #[test]
    fn a_commit_after_the_rendering_cutoff_is_painted_by_the_next_frame() {
        // A busy page: the frame rendered at 17, then a 30 ms task committed "b" at 47 before
        // the after-paint mark ran at 48. "b" was not in that frame.
        let mut s = Session::new("sse-text", "", "", 0.0, 0.0, 200);
        s.chunk(b"data: a\n\ndata: b\n\n", 1.0);
        s.appended("a", 2.0);
        s.appended("b", 47.0);
        assert_eq!(s.painted(16.0, 17.0, 48.0), 1);
        assert_eq!(s.painted(49.0, 50.0, 52.0), 1);
        let tok = &s.tl.records;
        assert_eq!((tok[1].frame, tok[1].painted), (49.0, 52.0));
        // Without a cutoff (NaN) the after-paint mark decides, as before.
        let mut s = Session::new("sse-text", "", "", 0.0, 0.0, 200);
        s.chunk(b"data: a\n\ndata: b\n\n", 1.0);
        s.appended("a", 2.0);
        s.appended("b", 47.0);
        assert_eq!(s.painted(16.0, f64::NAN, 48.0), 2);
    }

    #[test]
    fn plain_text_bodies_are_answer_text_and_split_characters_survive() {
        let mut s = Session::new("auto", "text/plain; charset=utf-8", "", 0.0, 0.0, 200);
        let body = "héllo 😀".as_bytes();
        s.chunk(&body[..2], 1.0);
        s.chunk(&body[2..8], 2.0);
        s.chunk(&body[8..], 3.0);
        s.end(EndKind::Complete, 4.0);
        assert_eq!(s.tl.format, Some(Format::Text));
        assert_eq!(s.tl.chars, 7);
    }

    #[test]
    fn auto_detection_sniffs_event_streams_without_the_content_type() {
        let mut s = Session::new("auto", "application/octet-stream", "", 0.0, 0.0, 200);
        s.chunk(&sse(&[&chunk_json("x")]), 1.0);
        assert_eq!(
            (s.tl.format, s.tl.records.len()),
            (Some(Format::OpenAiChat), 1)
        );
    }

    #[test]
    fn malformed_events_are_counted_and_reading_goes_on() {
        let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 0.0, 200);
        s.chunk(&sse(&["{oops", &chunk_json("ok")]), 1.0);
        assert_eq!(
            (s.tl.malformed, s.tl.first_malformed, s.tl.records.len()),
            (1, Some("json-unexpected-byte"), 1)
        );
    }

    #[test]
    fn an_event_cut_by_the_end_of_the_body_marks_the_stream_truncated() {
        let mut s = Session::new("auto", "text/event-stream", "", 0.0, 0.0, 200);
        s.chunk(b"data: {\"choices\":[]}\n\ndata: {\"cho", 1.0);
        s.end(EndKind::Complete, 2.0);
        assert!(s.tl.truncated);
    }
}
