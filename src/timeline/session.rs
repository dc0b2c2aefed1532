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
use crate::read::wire::Wire;
use crate::read::wire::{self, Adapter, Detected, Format, Framing, StreamError};
use crate::timeline::align::Aligner;
#[allow(unused_imports)] // for the doc link
use crate::timeline::align::CHECKPOINT;

// The records and the timeline a session keeps (their own modules), under their old paths.
pub use super::record::*;
pub use super::state::*;

/// The largest JSON document (an error body, a non-streamed answer) read whole.
pub const MAX_DOCUMENT: usize = 1 << 20;
/// Per-token records a stream keeps before merging neighbours (about 56 bytes each).
pub const DEFAULT_DETAIL_CAP: usize = 8192;
/// Choices besides the first whose deltas are counted apart.
pub const MAX_CHOICES: usize = 16;
/// Events that do not tell their format before detection gives up (format `unknown`).
pub(crate) const DETECT_EVENTS: u32 = 8;

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

impl EndKind {
    /// The kinds, by the code the shell passes (`Core.end`): src/words.json `endKinds`.
    pub const ALL: [EndKind; 3] = [EndKind::Complete, EndKind::Aborted, EndKind::Failed];

    /// The kind of a code the shell passed; an unknown code is a complete body.
    pub fn from_code(code: u8) -> EndKind {
        EndKind::ALL
            .get(usize::from(code))
            .copied()
            .unwrap_or(EndKind::Complete)
    }

    /// Its code (see [`EndKind::ALL`]).
    pub fn code(self) -> u8 {
        match self {
            EndKind::Complete => 0,
            EndKind::Aborted => 1,
            EndKind::Failed => 2,
        }
    }
}

/// Why the answer's element could not be read, by the code the shell passes (`Core.dom_reason`,
/// the index), as reports and saved timelines name it: src/words.json `domReasons`.
pub const DOM_REASONS: [&str; 4] = [
    "closed-shadow-root",
    "cross-origin-iframe",
    "not-observed",
    "not-found",
];

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

/// A stream being profiled.
#[derive(Debug)]
pub struct Session {
    framing: Framer,
    adapter: Adapter,
    text: String,
    /// What has been measured.
    pub tl: Timeline,
}

/// Frames kept per stream: ten minutes at 60 Hz.
pub const MAX_FRAMES: usize = 36_000;

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
                prior_chars: None,
                learned: false,
                frames: Vec::new(),
                inputs: Vec::new(),
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
    /// `reason`: the code of one of [`DOM_REASONS`] (an unknown code: none).
    pub fn dom_reason(&mut self, reason: u8) {
        self.tl.dom_reason = DOM_REASONS.get(usize::from(reason)).copied();
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

    /// The user's interactions while the stream was open: `[start, delay, duration]` triplets
    /// (absolute ms, ms, ms; at most 1,000, the latest kept; what does not read left out).
    pub fn inputs(&mut self, triplets: &[f64]) {
        let all: Vec<(f64, f64, f64)> = triplets
            .chunks_exact(3)
            .map(|t| (t[0], t[1], t[2]))
            .filter(|&(s, d, l)| s.is_finite() && d >= 0.0 && l >= d && l.is_finite())
            .collect();
        let from = all.len().saturating_sub(1000);
        self.tl.inputs = all[from..].to_vec();
    }

    /// The frames the page painted while the stream was open: their starts (absolute ms; at
    /// most [`MAX_FRAMES`], the latest kept; what is not a finite time, or out of order, left out).
    pub fn frames(&mut self, starts: &[f64]) {
        let from = starts.len().saturating_sub(MAX_FRAMES);
        let mut last = f64::NEG_INFINITY;
        self.tl.frames = starts[from..]
            .iter()
            .copied()
            .filter(|&t| {
                let keep = t.is_finite() && t > last;
                if keep {
                    last = t;
                }
                keep
            })
            .collect();
    }

    /// The request start, learned after the stream was opened (from Resource Timing, for a
    /// response handed to `track()` without one).
    pub fn set_start(&mut self, start: f64) {
        if start.is_finite() && start <= self.tl.headers_at {
            self.tl.start = start;
            self.tl.start_source = "resource-timing";
        }
    }

    /// The observed container held `chars` characters when the stream opened (NaN: unknown).
    pub fn prior_chars(&mut self, chars: f64) {
        self.tl.prior_chars = (chars >= 0.0).then_some(chars);
    }

    /// Its answer is read by a reading the shell learned from the page: the page must show 99%
    /// of it for any figure to be given.
    pub fn learned(&mut self) {
        self.tl.learned = true;
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

impl Progress {
    /// As the shell reads it: a JSON object whose keys are `Progress`'s of src/types.rs (the
    /// shell adds the rest), an unknown figure null.
    pub fn json(&self) -> String {
        let mut w = crate::jsonwrite::JsonWriter::new();
        w.open_object();
        w.key("arrived");
        w.uint(self.arrived);
        w.key("painted");
        w.uint(self.painted);
        for (k, v) in [
            ("ttft", self.ttft),
            ("ttftPerceived", self.ttft_perceived),
            ("lag", self.lag),
            ("waiting", self.waiting),
        ] {
            w.key(k);
            w.num(v);
        }
        w.close_object();
        w.finish()
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
