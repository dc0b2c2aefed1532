//! One stream's timeline ([`Timeline`]): everything the session learned from the body, the page
//! and the browser, and how wire events, renders and frames change it.

use super::session::*;
use crate::prelude::*;
use crate::read::wire::{self, Adapter, Format, Framing, ServerTimings, StreamError};
use crate::read::wire::{Usage, Wire};
use crate::timeline::align::Aligner;

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
    /// The frames the page painted while the stream was open (their starts, absolute ms, in
    /// order), when the shell counted them; empty otherwise.
    pub frames: Vec<f64>,
    /// The user's interactions while the stream was open (Event Timing): start (absolute ms),
    /// input delay and duration (ms).
    pub inputs: Vec<(f64, f64, f64)>,
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
    pub(crate) undecided: u32,
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
    pub(crate) next_commit: usize,
    pub(crate) next_paint: usize,
    /// When the frontier last moved.
    pub last_commit: Option<f64>,
    /// Frames painted while this stream was open, by how soon each followed the one before:
    /// within 1.6 frames (an idle main thread) or later (busy with long tasks).
    pub frame_pace: FramePace,
    pub(crate) last_frame: Option<f64>,
    /// When the page's main thread was seen blocked while this stream was open.
    pub blocked: crate::timeline::blocked::Blocked,
    /// Reads an arrival clock off the main thread also stamped (see [`Session::chunk_seen`]).
    pub reads: Reads,
    /// The event that carried the last answer delta (its number in `events`).
    pub(crate) answer_event: u64,
    /// Characters the observed container already held when the stream opened: the
    /// conversation before this answer (`None`: unknown, as for a stream with its own target).
    pub prior_chars: Option<f64>,
    /// Its answer is read by a reading the shell learned from the page (a hypothesis): where the
    /// page shows less than 99% of it, no figure is given from it.
    pub learned: bool,
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
    pub(crate) fn event(
        &mut self,
        adapter: &mut Adapter,
        framing: Framing,
        kind: &str,
        data: &str,
        t: f64,
    ) {
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

    pub(crate) fn wire(&mut self, w: Wire<'_>, t: f64) {
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

    pub(crate) fn rendered(&mut self, text: &str, from: u32, t: f64) -> Option<u32> {
        let frontier = self.aligner.rendered(text, from)? as u32;
        self.observed = true;
        Some(self.commit_to(frontier, t))
    }

    /// Text the page showed before it arrived here waits in the aligner: once more of the
    /// answer has arrived, what it shows is on screen now. Only visible text that the frontier
    /// passes counts: a delta with nothing visible is delivered at the element's next change.
    pub(crate) fn realign(&mut self, t: f64) {
        let before = self.aligner.frontier();
        let at = self.aligner.rendered_units();
        if let Some(frontier) = self.aligner.rendered("", at).filter(|&f| f > before) {
            self.commit_to(frontier as u32, t);
        }
    }

    /// Commits at `t` the tokens the frontier has passed; returns how many.
    pub(crate) fn commit_to(&mut self, frontier: u32, t: f64) -> u32 {
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

    pub(crate) fn painted(&mut self, frame: f64, cutoff: f64, after: f64) -> u32 {
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
    pub(crate) fn decimate(&mut self) {
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
