//! A saved stream: its timeline with everything the figures read besides (the shell's part, the
//! page's long frames, the conversation's baseline), in a documented, versioned JSON form
//! (`docs/timeline.md`), so that a newer tokenpaint can analyse it again: in Node, in the lab,
//! or for a fleet's streams off the page. [`write()`] saves what [`crate::streams::Streams::finish`]
//! analyses; [`read`] gives it back, and [`analyse`] writes the report the live stream had.
//!
//! Times are absolute (the page's `performance.now()`), as inside the core, and every number is
//! written so that it reads back as the same double (see [`crate::jsonwrite::write_exact`]): the
//! figures analysed again are the live ones to the last bit. An unknown time is `null`. A saved
//! timeline holds no content unless the page opted in (`includeText`), as its report.

use crate::prelude::*;

use crate::figures::browser::Shell;
use crate::figures::report::{self, Meta};
use crate::figures::StreamFigures;
use crate::jsonwrite::JsonWriter;
use crate::read::jsonscan::{self, Scanner};
use crate::read::wire::hops::CDN_HEADERS;
use crate::read::wire::{BufferHint, Format, ServerTimings, StreamError, Usage};
use crate::stats::sketch::Sketch;
use crate::timeline::entries::{LongFrame, LongFrames, ResourceEntry};
use crate::timeline::session::DOM_REASONS;
use crate::timeline::session::{Decimated, DeltaRecord, EndKind, Reasoning, Session, Text};
use crate::timeline::session::{FramePace, Reads, Timeline};

/// The form's name, its first key's value.
pub const KIND: &str = "timeline";
/// The version this build writes. It reads every version up to it.
pub const VERSION: u32 = 1;

/// What the shell told of a stream besides its timeline, owned (see [`Meta`]).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SavedMeta {
    /// The session id.
    pub id: u32,
    /// The request URL.
    pub url: String,
    /// How the body ended, as the shell said.
    pub end_message: String,
    /// The user's label.
    pub label: String,
    /// What carried the stream.
    pub transport: String,
    /// The event id it resumed from.
    pub resumed_from: String,
    /// Its report had the per-token arrays.
    pub timeline: bool,
}

/// A saved stream, read back.
#[derive(Debug)]
pub struct Saved {
    /// The version it was written in.
    pub version: u32,
    /// What the shell told of it.
    pub meta: SavedMeta,
    /// The engine's abilities and the thresholds the report was rated with.
    pub shell: Shell,
    /// The page's long animation frames when the stream ended.
    pub frames: LongFrames,
    /// The conversation baseline the live report used.
    pub baseline: Option<(f64, f64)>,
    /// The stream's timeline.
    pub tl: Timeline,
}

/// Why a saved timeline could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavedError {
    /// Not JSON, or JSON of another shape where a field was expected.
    Malformed,
    /// JSON, but not a tokenpaint timeline (no `"tokenpaint": "timeline"`).
    NotATimeline,
    /// Written by a newer tokenpaint, in a version this build does not know.
    NewerVersion,
}

impl SavedError {
    /// A short machine-readable name.
    pub fn code(self) -> &'static str {
        match self {
            SavedError::Malformed => "saved-timeline-malformed",
            SavedError::NotATimeline => "not-a-saved-timeline",
            SavedError::NewerVersion => "saved-timeline-newer-version",
        }
    }
}

impl From<jsonscan::JsonError> for SavedError {
    fn from(_: jsonscan::JsonError) -> Self {
        SavedError::Malformed
    }
}

type Res<T> = core::result::Result<T, SavedError>;

/// Writes a saved stream: `tl` with the shell's part, the long frames and the baseline its
/// report is computed with.
pub fn write(
    tl: &Timeline,
    meta: &Meta<'_>,
    shell: &Shell,
    frames: &LongFrames,
    baseline: Option<(f64, f64)>,
) -> String {
    let mut w = JsonWriter::new();
    w.open_object();
    w.key("tokenpaint");
    w.str(KIND);
    w.key("version");
    w.uint(u64::from(VERSION));
    w.key("id");
    w.uint(u64::from(meta.id));
    w.key("timeline");
    w.bool(meta.timeline);
    for (k, v) in [
        ("url", meta.url),
        ("endMessage", meta.end_message),
        ("label", meta.label),
        ("transport", meta.transport),
        ("resumedFrom", meta.resumed_from),
    ] {
        w.key(k);
        w.str(v);
    }
    write_shell(&mut w, shell);
    w.key("longFrames");
    w.open_array();
    for f in &frames.frames {
        nums(&mut w, &[f64::from(f.seq), f.start, f.duration, f.blocking]);
    }
    w.close_array();
    w.key("baseline");
    opt_pair(&mut w, baseline);
    w.key("stream");
    write_timeline(&mut w, tl);
    w.close_object();
    w.finish()
}

fn write_shell(w: &mut JsonWriter, s: &Shell) {
    w.key("shell");
    w.open_object();
    w.key("lateMs");
    w.raw_f64(s.late_ms);
    w.key("timerMs");
    w.raw_f64(s.timer_ms.unwrap_or(f64::NAN));
    for (k, v) in [
        ("longFrames", s.long_frames),
        ("eventTiming", s.event_timing),
        ("paint", s.paint),
        ("resourceTiming", s.resource_timing),
        ("noDevtoolsTrack", s.no_devtools_track),
    ] {
        w.key(k);
        w.bool(v);
    }
    w.key("thresholds");
    w.open_array();
    for &(good, poor) in &s.thresholds {
        nums(w, &[good, poor]);
    }
    w.close_array();
    w.close_object();
}

/// `[a, b, …]` at full precision (`null` for what is not finite).
fn nums(w: &mut JsonWriter, v: &[f64]) {
    w.open_array();
    for &x in v {
        w.raw_f64(x);
    }
    w.close_array();
}

fn opt_pair(w: &mut JsonWriter, p: Option<(f64, f64)>) {
    match p {
        Some((a, b)) => nums(w, &[a, b]),
        None => w.null(),
    }
}

fn opt_str(w: &mut JsonWriter, s: Option<&str>) {
    match s {
        Some(s) => w.str(s),
        None => w.null(),
    }
}

fn reasoning_nums(r: &Reasoning) -> [f64; 4] {
    let t = |v: Option<f64>| v.unwrap_or(f64::NAN);
    [f64::from(r.deltas), r.chars as f64, t(r.first), t(r.last)]
}

/// A count, or -1 for none (`null` would read as "unknown" where 0 is a count).
fn opt_count(v: Option<u64>) -> f64 {
    v.map_or(-1.0, |v| v as f64)
}

fn write_timeline(w: &mut JsonWriter, tl: &Timeline) {
    w.open_object();
    write_scalars(w, tl);
    write_records(w, tl);
    write_entries(w, tl);
    write_outcome(w, tl);
    w.close_object();
}

/// The stream's times, counts, flags and reasons.
fn write_scalars(w: &mut JsonWriter, tl: &Timeline) {
    let t = |v: Option<f64>| v.unwrap_or(f64::NAN);
    w.key("format");
    opt_str(w, tl.format.map(Format::name));
    w.key("startSource");
    w.str(tl.start_source);
    for (k, v) in [
        ("start", tl.start),
        ("headersAt", tl.headers_at),
        ("firstByte", t(tl.first_byte)),
        ("firstEvent", t(tl.first_event)),
        ("caughtUp", t(tl.caught_up)),
        ("lastCommit", t(tl.last_commit)),
        ("priorChars", t(tl.prior_chars)),
        ("stallMs", tl.stall_ms),
    ] {
        w.key(k);
        w.raw_f64(v);
    }
    for (k, v) in [
        ("httpStatus", u64::from(tl.http_status)),
        ("bytes", tl.bytes),
        ("chunks", tl.chunks),
        ("deltas", tl.deltas),
        ("detailCap", tl.detail_cap as u64),
        ("chars", tl.chars),
        ("toolCalls", u64::from(tl.tool_calls)),
        ("events", tl.events),
        ("malformed", u64::from(tl.malformed)),
    ] {
        w.key(k);
        w.uint(v);
    }
    for (k, v) in [
        ("serverTimingHeader", tl.server_timing_header),
        ("doneMarker", tl.done_marker),
        ("truncated", tl.truncated),
        ("observed", tl.observed),
        ("paintMissing", tl.paint_missing),
        ("learned", tl.learned),
    ] {
        w.key(k);
        w.bool(v);
    }
    for (k, v) in [
        ("domReason", tl.dom_reason),
        ("firstMalformed", tl.first_malformed),
        ("framingError", tl.framing_error),
        ("finishReason", tl.finish_reason.as_deref()),
    ] {
        w.key(k);
        opt_str(w, v);
    }
}

/// The per-delta records and the deltas counted apart.
fn write_records(w: &mut JsonWriter, tl: &Timeline) {
    w.key("records");
    w.open_array();
    for r in &tl.records {
        nums(
            w,
            &[
                r.arrived,
                f64::from(r.count),
                f64::from(r.gap),
                f64::from(r.chars),
                f64::from(r.visible),
                f64::from(r.visible_end),
                r.committed,
                r.frame,
                r.painted,
                f64::from(r.server),
            ],
        );
    }
    w.close_array();
    w.key("decimated");
    match &tl.decimated {
        Some(d) => {
            w.open_object();
            w.key("itl");
            d.itl.export(w);
            w.key("lag");
            d.lag.export(w);
            w.key("hiddenExcluded");
            w.uint(d.hidden_excluded);
            w.key("rounds");
            w.uint(u64::from(d.rounds));
            w.close_object();
        }
        None => w.null(),
    }
    w.key("firstVisiblePaint");
    opt_pair(w, tl.first_visible_paint);
    w.key("reasoning");
    nums(w, &reasoning_nums(&tl.reasoning));
    w.key("refusal");
    nums(w, &reasoning_nums(&tl.refusal));
    w.key("toolSpan");
    opt_pair(w, tl.tool_span);
    w.key("otherChoices");
    w.open_array();
    for &(i, n) in &tl.other_choices {
        nums(w, &[f64::from(i), n as f64]);
    }
    w.close_array();
}

/// The hop the headers point at, and the browser's entries.
fn write_entries(w: &mut JsonWriter, tl: &Timeline) {
    w.key("bufferHint");
    match tl.buffer_hint {
        Some(h) => {
            w.open_object();
            w.key("place");
            w.str(h.place);
            w.key("header");
            w.str(h.header);
            w.key("compressed");
            w.bool(h.compressed);
            w.close_object();
        }
        None => w.null(),
    }
    w.key("resource");
    match &tl.resource {
        Some(e) => nums(w, &e.fields()),
        None => w.null(),
    }
    w.key("frames");
    nums(w, &tl.frames);
    w.key("inputs");
    w.open_array();
    for &(s, d, dur) in &tl.inputs {
        nums(w, &[s, d, dur]);
    }
    w.close_array();
}

/// What the server said, how the stream ended, and what the page's clock saw.
fn write_outcome(w: &mut JsonWriter, tl: &Timeline) {
    let t = |v: Option<f64>| v.unwrap_or(f64::NAN);
    w.key("usage");
    match &tl.usage {
        Some(u) => nums(
            w,
            &[
                opt_count(u.prompt_tokens),
                opt_count(u.completion_tokens),
                opt_count(u.reasoning_tokens),
                opt_count(u.cached_tokens),
            ],
        ),
        None => w.null(),
    }
    w.key("streamError");
    match &tl.stream_error {
        Some(e) => {
            w.open_object();
            w.key("code");
            w.str(&e.code);
            w.key("message");
            w.str(&e.message);
            w.close_object();
        }
        None => w.null(),
    }
    let s = &tl.server;
    w.key("server");
    nums(
        w,
        &[
            t(s.queue_ms),
            t(s.ttft_ms),
            t(s.prefill_ms),
            t(s.decode_ms),
            t(s.itl_ms),
            t(s.load_ms),
            t(s.total_ms),
        ],
    );
    w.key("text");
    match &tl.text {
        Some(x) => {
            w.open_object();
            w.key("answer");
            w.str(&x.answer);
            w.key("reasoning");
            w.str(&x.reasoning);
            w.close_object();
        }
        None => w.null(),
    }
    // A page still hidden when the stream ended: its interval's end is infinite, saved as null.
    w.key("hidden");
    w.open_array();
    for &(a, b) in &tl.hidden {
        nums(w, &[a, b]);
    }
    w.close_array();
    w.key("end");
    match tl.end {
        Some((kind, at)) => nums(w, &[f64::from(kind.code()), at]),
        None => w.null(),
    }
    w.key("matched");
    nums(
        w,
        &[
            tl.aligner.arrived_len() as f64,
            tl.aligner.frontier() as f64,
        ],
    );
    w.key("framePace");
    nums(
        w,
        &[
            f64::from(tl.frame_pace.on_time),
            f64::from(tl.frame_pace.late),
        ],
    );
    w.key("blocked");
    w.open_array();
    for &(a, b, ms) in tl.blocked.intervals() {
        nums(w, &[a, b, ms]);
    }
    w.close_array();
    w.key("reads");
    nums(
        w,
        &[
            tl.reads.seen as f64,
            tl.reads.late_sum,
            tl.reads.late_deltas as f64,
        ],
    );
}

// --- reading -----------------------------------------------------------------------------------

/// A number, or NaN for `null`. Correctly rounded (`str::parse`, where the live core's reader is
/// not, for its size), so that every double the writer wrote comes back bit for bit.
fn num(sc: &mut Scanner<'_>) -> Res<f64> {
    if sc.is_null() {
        sc.skip()?;
        return Ok(f64::NAN);
    }
    Ok(exact(sc)?)
}

/// A number, correctly rounded (see [`num`]).
fn exact(sc: &mut Scanner<'_>) -> jsonscan::Result<f64> {
    let text = sc.number_text()?;
    Ok(decimal(text).unwrap_or_else(|| jsonscan::number_in(text).unwrap_or(f64::NAN)))
}

/// The double nearest to a decimal `[-]digits[.digits]` whose digits fit in 64 bits, with at most
/// 22 decimals
/// (what [`crate::jsonwrite::write_exact`] writes), rounded half to even: correctly rounded, as
/// `str::parse` is, without its tables (about 19 KB gzip of wasm). `None` for another form (an
/// exponent, more digits), which the scanner's own reader reads then.
fn decimal(text: &str) -> Option<f64> {
    let (neg, text) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 22 {
        return None;
    }
    let mut n = 0u64;
    for c in int.bytes().chain(frac.bytes()) {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    let d = frac.len() as u32;
    let v = if d == 0 {
        // u64 to f64 rounds to nearest, ties to even.
        n as f64
    } else if n < 1 << 53 {
        // Both exact (10^d is, to 10^22), and IEEE division is correctly rounded.
        n as f64 / (0..d).fold(1.0, |p, _| p * 10.0)
    } else {
        // n/10^d to 54 bits and more (n is shifted to fill 128 bits, 10^d < 2^74), and whether
        // anything is left: rounded to 53 bits by hand.
        let p = (0..d).fold(1u128, |p, _| p * 10);
        let k = n.leading_zeros() + 64;
        let wide = u128::from(n) << k;
        let (q, sticky) = (wide / p, wide % p != 0);
        let bits = 128 - q.leading_zeros();
        let shift = bits.saturating_sub(53);
        let mut m = q >> shift;
        if shift > 0 {
            let rest = q & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            if rest > half || (rest == half && (sticky || m & 1 == 1)) {
                m += 1;
            }
        }
        // m < 2^54 is exact as a double, and so is the power of two that scales it.
        let e = i64::from(shift) - i64::from(k);
        m as f64 * f64::from_bits(((1023 + e) as u64) << 52)
    };
    Some(if neg { -v } else { v })
}

fn opt(v: f64) -> Option<f64> {
    (!v.is_nan()).then_some(v)
}

fn uint(sc: &mut Scanner<'_>) -> Res<u64> {
    let v = sc.number()?;
    if (0.0..=9.007_199_254_740_992e15).contains(&v) {
        Ok(v as u64)
    } else {
        Err(SavedError::Malformed)
    }
}

fn flag(sc: &mut Scanner<'_>) -> Res<bool> {
    sc.bool_or_skip()?.ok_or(SavedError::Malformed)
}

fn string(sc: &mut Scanner<'_>) -> Res<String> {
    let mut s = String::new();
    if sc.string_or_skip(&mut s)? {
        Ok(s)
    } else {
        Err(SavedError::Malformed)
    }
}

fn opt_string(sc: &mut Scanner<'_>) -> Res<Option<String>> {
    if sc.is_null() {
        sc.skip()?;
        return Ok(None);
    }
    string(sc).map(Some)
}

/// One of `known`, by its text; a name this build does not know reads as `fallback`.
fn known(
    sc: &mut Scanner<'_>,
    known: &[&'static str],
    fallback: Option<&'static str>,
) -> Res<Option<&'static str>> {
    Ok(opt_string(sc)?.and_then(|s| known.iter().copied().find(|k| *k == s).or(fallback)))
}

/// An array whose items `f` reads, with the first error it met (the scanner's callbacks carry
/// JSON errors only).
fn array_of<T>(sc: &mut Scanner<'_>, f: fn(&mut Scanner<'_>) -> Res<T>) -> Res<Vec<T>> {
    let mut out = Vec::new();
    let mut err = None;
    sc.array(&mut |sc, _| {
        match f(sc) {
            Ok(x) => out.push(x),
            Err(e) => err = err.or(Some(e)),
        }
        Ok(())
    })?;
    err.map_or(Ok(out), Err)
}

/// An array of numbers (`null` read as NaN).
fn numbers(sc: &mut Scanner<'_>) -> Res<Vec<f64>> {
    array_of(sc, num)
}

/// An array of exactly `N` numbers, or `null`.
fn opt_tuple<const N: usize>(sc: &mut Scanner<'_>) -> Res<Option<[f64; N]>> {
    if sc.is_null() {
        sc.skip()?;
        return Ok(None);
    }
    tuple(sc).map(Some)
}

fn tuple<const N: usize>(sc: &mut Scanner<'_>) -> Res<[f64; N]> {
    let v = numbers(sc)?;
    v.try_into().map_err(|_| SavedError::Malformed)
}

/// An array of arrays of exactly `N` numbers each.
fn tuples<const N: usize>(sc: &mut Scanner<'_>) -> Res<Vec<[f64; N]>> {
    array_of(sc, tuple::<N>)
}

/// Reads an object's fields with `f`, which gives the first error it met (the scanner's
/// callbacks carry JSON errors only).
fn fields(sc: &mut Scanner<'_>, f: &mut dyn FnMut(&mut Scanner<'_>, &[u8]) -> Res<()>) -> Res<()> {
    let mut err = None;
    sc.object(&mut |sc, key| {
        if err.is_none() {
            if let Err(e) = f(sc, key) {
                err = Some(e);
            }
        } else {
            sc.skip()?;
        }
        Ok(())
    })?;
    err.map_or(Ok(()), Err)
}

/// Reads a saved stream (what [`write()`] wrote, in this or an earlier version).
pub fn read(text: &str) -> Res<Saved> {
    if !text.trim_start().starts_with('{') {
        return Err(SavedError::Malformed);
    }
    let mut sc = Scanner::new(text);
    let mut kind_ok = false;
    let mut version = None;
    let mut meta = SavedMeta::default();
    let mut shell = Shell::default();
    let mut frames = LongFrames::default();
    let mut baseline = None;
    let mut tl = None;
    fields(&mut sc, &mut |sc, key| {
        match key {
            b"tokenpaint" => kind_ok = opt_string(sc)?.as_deref() == Some(KIND),
            b"version" => {
                let v = uint(sc)?;
                if v > u64::from(VERSION) {
                    return Err(SavedError::NewerVersion);
                }
                version = Some(v as u32);
            }
            b"id" => meta.id = uint(sc)?.min(u64::from(u32::MAX)) as u32,
            b"url" => meta.url = string(sc)?,
            b"endMessage" => meta.end_message = string(sc)?,
            b"label" => meta.label = string(sc)?,
            b"transport" => meta.transport = string(sc)?,
            b"resumedFrom" => meta.resumed_from = string(sc)?,
            b"timeline" => meta.timeline = flag(sc)?,
            b"shell" => shell = read_shell(sc)?,
            b"longFrames" => {
                for [seq, start, duration, blocking] in tuples(sc)? {
                    frames.push(LongFrame {
                        seq: seq as u32,
                        start,
                        duration,
                        blocking,
                    });
                }
            }
            b"baseline" => baseline = opt_tuple::<2>(sc)?.map(|[a, b]| (a, b)),
            b"stream" => tl = Some(read_timeline(sc)?),
            _ => sc.skip()?,
        }
        Ok(())
    })
    .map_err(|e| if kind_ok { e } else { SavedError::NotATimeline })?;
    sc.end()?;
    if !kind_ok {
        return Err(SavedError::NotATimeline);
    }
    let (Some(version), Some(tl)) = (version, tl) else {
        return Err(SavedError::Malformed);
    };
    Ok(Saved {
        version,
        meta,
        shell,
        frames,
        baseline,
        tl,
    })
}

fn read_shell(sc: &mut Scanner<'_>) -> Res<Shell> {
    let mut s = Shell::default();
    fields(sc, &mut |sc, key| {
        match key {
            b"lateMs" => s.late_ms = num(sc)?,
            b"timerMs" => s.timer_ms = opt(num(sc)?),
            b"longFrames" => s.long_frames = flag(sc)?,
            b"eventTiming" => s.event_timing = flag(sc)?,
            b"paint" => s.paint = flag(sc)?,
            b"resourceTiming" => s.resource_timing = flag(sc)?,
            b"noDevtoolsTrack" => s.no_devtools_track = flag(sc)?,
            b"thresholds" => {
                let t = tuples::<2>(sc)?;
                if t.len() != s.thresholds.len() {
                    return Err(SavedError::Malformed);
                }
                for (slot, [good, poor]) in s.thresholds.iter_mut().zip(t) {
                    *slot = (good, poor);
                }
            }
            _ => sc.skip()?,
        }
        Ok(())
    })?;
    Ok(s)
}

fn reasoning(v: [f64; 4]) -> Reasoning {
    Reasoning {
        deltas: v[0] as u32,
        chars: v[1] as u64,
        first: opt(v[2]),
        last: opt(v[3]),
    }
}

fn count(v: f64) -> Option<u64> {
    (v >= 0.0).then_some(v as u64)
}

const START_SOURCES: [&str; 4] = ["request", "resource-timing", "headers", "unknown"];
const FRAMING_ERRORS: [&str; 3] = ["line-too-long", "event-too-large", "document-too-large"];
const PLACES: [&str; 4] = ["cdn", "proxy", "compression", "server"];

fn read_timeline(sc: &mut Scanner<'_>) -> Res<Timeline> {
    let mut tl = Session::new("auto", "", "", 0.0, f64::NAN, 0).tl;
    let mut matched = (0.0, 0.0);
    fields(sc, &mut |sc, key| {
        match key {
            b"format" => tl.format = opt_string(sc)?.as_deref().and_then(format_of),
            b"startSource" => {
                tl.start_source = known(sc, &START_SOURCES, Some("unknown"))?.unwrap_or("unknown")
            }
            b"start" => tl.start = num(sc)?,
            b"headersAt" => tl.headers_at = num(sc)?,
            b"firstByte" => tl.first_byte = opt(num(sc)?),
            b"firstEvent" => tl.first_event = opt(num(sc)?),
            b"caughtUp" => tl.caught_up = opt(num(sc)?),
            b"lastCommit" => tl.last_commit = opt(num(sc)?),
            b"priorChars" => tl.prior_chars = opt(num(sc)?),
            b"stallMs" => tl.stall_ms = num(sc)?,
            b"httpStatus" => tl.http_status = uint(sc)?.min(999) as u16,
            b"bytes" => tl.bytes = uint(sc)?,
            b"chunks" => tl.chunks = uint(sc)?,
            b"deltas" => tl.deltas = uint(sc)?,
            b"detailCap" => tl.detail_cap = uint(sc)? as usize,
            b"chars" => tl.chars = uint(sc)?,
            b"toolCalls" => tl.tool_calls = uint(sc)? as u32,
            b"events" => tl.events = uint(sc)?,
            b"malformed" => tl.malformed = uint(sc)? as u32,
            b"serverTimingHeader" => tl.server_timing_header = flag(sc)?,
            b"doneMarker" => tl.done_marker = flag(sc)?,
            b"truncated" => tl.truncated = flag(sc)?,
            b"observed" => tl.observed = flag(sc)?,
            b"paintMissing" => tl.paint_missing = flag(sc)?,
            b"learned" => tl.learned = flag(sc)?,
            b"domReason" => tl.dom_reason = known(sc, &DOM_REASONS, None)?,
            b"firstMalformed" => {
                tl.first_malformed = known(sc, &MALFORMED, Some("malformed"))?;
            }
            b"framingError" => {
                tl.framing_error = known(sc, &FRAMING_ERRORS, Some("framing-error"))?;
            }
            b"finishReason" => tl.finish_reason = opt_string(sc)?,
            _ => {
                if !read_part(&mut tl, &mut matched, sc, key)? {
                    sc.skip()?;
                }
            }
        }
        Ok(())
    })?;
    tl.aligner = crate::timeline::align::Aligner::restored(matched.0 as usize, matched.1 as usize);
    Ok(tl)
}

/// The timeline's compound fields; false for a key it does not know.
fn read_part(
    tl: &mut Timeline,
    matched: &mut (f64, f64),
    sc: &mut Scanner<'_>,
    key: &[u8],
) -> Res<bool> {
    match key {
        b"records" => tl.records = tuples::<10>(sc)?.into_iter().map(record).collect(),
        b"decimated" => tl.decimated = read_decimated(sc)?,
        b"firstVisiblePaint" => tl.first_visible_paint = opt_tuple::<2>(sc)?.map(|[a, b]| (a, b)),
        b"reasoning" => tl.reasoning = reasoning(tuple(sc)?),
        b"refusal" => tl.refusal = reasoning(tuple(sc)?),
        b"toolSpan" => tl.tool_span = opt_tuple::<2>(sc)?.map(|[a, b]| (a, b)),
        b"otherChoices" => {
            tl.other_choices = tuples::<2>(sc)?
                .into_iter()
                .map(|[i, n]| (i as u32, n as u64))
                .collect()
        }
        b"bufferHint" => tl.buffer_hint = read_hint(sc)?,
        b"resource" => {
            tl.resource = opt_tuple::<8>(sc)?.and_then(|v| ResourceEntry::from_fields(&v));
        }
        b"frames" => tl.frames = numbers(sc)?,
        b"inputs" => {
            tl.inputs = tuples::<3>(sc)?
                .into_iter()
                .map(|[a, b, c]| (a, b, c))
                .collect()
        }
        b"usage" => {
            tl.usage = opt_tuple::<4>(sc)?.map(|[p, c, r, k]| Usage {
                prompt_tokens: count(p),
                completion_tokens: count(c),
                reasoning_tokens: count(r),
                cached_tokens: count(k),
            })
        }
        b"streamError" => tl.stream_error = read_error(sc)?,
        b"server" => {
            let [q, t, p, d, i, l, total] = tuple(sc)?;
            tl.server = ServerTimings {
                queue_ms: opt(q),
                ttft_ms: opt(t),
                prefill_ms: opt(p),
                decode_ms: opt(d),
                itl_ms: opt(i),
                load_ms: opt(l),
                total_ms: opt(total),
            };
        }
        b"text" => tl.text = read_text(sc)?,
        b"hidden" => {
            tl.hidden = tuples::<2>(sc)?
                .into_iter()
                .map(|[a, b]| (a, if b.is_nan() { f64::INFINITY } else { b }))
                .collect()
        }
        b"end" => tl.end = opt_tuple::<2>(sc)?.map(|[k, at]| (EndKind::from_code(k as u8), at)),
        b"matched" => {
            let [arrived, frontier] = tuple(sc)?;
            *matched = (arrived, frontier);
        }
        b"framePace" => {
            let [on_time, late] = tuple(sc)?;
            tl.frame_pace = FramePace {
                on_time: on_time as u32,
                late: late as u32,
            };
        }
        b"blocked" => {
            tl.blocked = crate::timeline::blocked::Blocked::from_intervals(
                tuples::<3>(sc)?.into_iter().map(|[a, b, c]| (a, b, c)),
            )
        }
        b"reads" => {
            let [seen, late_sum, late_deltas] = tuple(sc)?;
            tl.reads = Reads {
                seen: seen as u64,
                late_sum,
                late_deltas: late_deltas as u64,
            };
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The codes of a malformed event: the JSON scanner's, and the readers'.
const MALFORMED: [&str; 4] = [
    "json-unexpected-end",
    "json-unexpected-byte",
    "json-bad-escape",
    "json-bad-number",
];

fn format_of(name: &str) -> Option<Format> {
    Format::ALL.into_iter().find(|f| f.name() == name)
}

fn record(v: [f64; 10]) -> DeltaRecord {
    DeltaRecord {
        arrived: v[0],
        count: v[1] as u32,
        gap: v[2] as f32,
        chars: v[3] as u32,
        visible: v[4] as u32,
        visible_end: v[5] as u32,
        committed: v[6],
        frame: v[7],
        painted: v[8],
        server: v[9] as f32,
    }
}

/// Reads one field of an object into a `T`; false for a key it does not know.
type FieldOf<'f, T> = dyn FnMut(&mut T, &mut Scanner<'_>, &[u8]) -> Res<bool> + 'f;

/// An object whose fields `f` reads into a `T` (from its default), or `None` for `null`.
fn opt_object<T: Default>(sc: &mut Scanner<'_>, f: &mut FieldOf<'_, T>) -> Res<Option<T>> {
    if sc.is_null() {
        sc.skip()?;
        return Ok(None);
    }
    let mut v = T::default();
    fields(sc, &mut |sc, key| {
        if !f(&mut v, sc, key)? {
            sc.skip()?;
        }
        Ok(())
    })?;
    Ok(Some(v))
}

fn read_decimated(sc: &mut Scanner<'_>) -> Res<Option<Box<Decimated>>> {
    let d = opt_object(sc, &mut |d: &mut Decimated, sc, key| {
        match key {
            b"itl" => d.itl = Sketch::import(sc, exact)?,
            b"lag" => d.lag = Sketch::import(sc, exact)?,
            b"hiddenExcluded" => d.hidden_excluded = uint(sc)?,
            b"rounds" => d.rounds = uint(sc)? as u32,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(d.map(Box::new))
}

fn read_hint(sc: &mut Scanner<'_>) -> Res<Option<BufferHint>> {
    let mut headers: Vec<&'static str> = vec!["via", "server", "content-encoding"];
    headers.extend_from_slice(CDN_HEADERS);
    type Hint = (Option<&'static str>, Option<&'static str>, bool);
    let h = opt_object(sc, &mut |h: &mut Hint, sc, key| {
        match key {
            b"place" => h.0 = known(sc, &PLACES, None)?,
            b"header" => h.1 = known(sc, &headers, None)?,
            b"compressed" => h.2 = flag(sc)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(h.and_then(|(place, header, compressed)| {
        Some(BufferHint {
            place: place?,
            header: header?,
            compressed,
        })
    }))
}

fn read_error(sc: &mut Scanner<'_>) -> Res<Option<StreamError>> {
    let e = opt_object(sc, &mut |e: &mut StreamError, sc, key| {
        match key {
            b"code" => e.code = string(sc)?,
            b"message" => e.message = string(sc)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(e.map(StreamError::bounded))
}

fn read_text(sc: &mut Scanner<'_>) -> Res<Option<Text>> {
    opt_object(sc, &mut |t: &mut Text, sc, key| {
        match key {
            b"answer" => t.answer = string(sc)?,
            b"reasoning" => t.reasoning = string(sc)?,
            _ => return Ok(false),
        }
        Ok(true)
    })
}

/// Analyses a saved stream again: its report as the live stream had it, and its figures for a
/// summary.
pub fn analyse(text: &str) -> Res<(String, StreamFigures)> {
    let s = read(text)?;
    let meta = Meta {
        id: s.meta.id,
        url: &s.meta.url,
        end_message: &s.meta.end_message,
        timeline: s.meta.timeline,
        label: &s.meta.label,
        transport: &s.meta.transport,
        resumed_from: &s.meta.resumed_from,
    };
    Ok(report::write_with(
        &s.tl,
        &meta,
        Some(&s.shell),
        Some(&s.frames),
        s.baseline,
    ))
}

#[cfg(test)]
mod tests {
    use super::decimal;
    use crate::jsonwrite::write_exact;

    #[test]
    fn decimals_are_read_correctly_rounded() {
        // Random decimals of up to 19 digits and 22 decimals, against Rust's own parser (correctly
        // rounded), and every double written exactly reads back bit for bit.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let digits = 1 + next() % 19;
            let n = next() % 10u64.pow(digits as u32);
            let d = (next() % 23).min(digits) as usize;
            let s = format!("{n:0width$}", width = d + 1);
            let s = format!("{}.{}", &s[..s.len() - d], &s[s.len() - d..]);
            let s = s.trim_end_matches('.');
            assert_eq!(
                decimal(s).map(f64::to_bits),
                Some(s.parse::<f64>().unwrap().to_bits()),
                "{s}"
            );
            let v = f64::from_bits((next() % (1087 << 52)).max(1010 << 52));
            let mut w = String::new();
            write_exact(&mut w, v);
            assert_eq!(
                decimal(&w).map(f64::to_bits),
                Some(v.to_bits()),
                "{v:?} as {w}"
            );
        }
        assert_eq!(decimal("-0").map(f64::to_bits), Some((-0.0f64).to_bits()));
        assert_eq!(decimal("1e5"), None);
        assert_eq!(decimal("123456789012345678901"), None);
    }
}
