//! A profiler's streams: the registry the JavaScript binding (`src/wasm.rs`) converts to and
//! from, kept here so that it is tested natively. Sessions by numeric id, the summary they feed,
//! and the configuration the shell gives once ([`Config`]).

use crate::prelude::*;

use crate::figures::browser::Shell;
use crate::figures::report::{self, Meta};
use crate::figures::StreamFigures;
use crate::read::utf8::prefix;
use crate::saved::{self, SavedError};
use crate::summary::Summary;
use crate::timeline::entries::{LongFrame, LongFrames, ResourceEntry};
use crate::timeline::session::{EndKind, FramePace, Progress, Session};

/// What the shell gives once, when a profiler's core is made: one value, written
/// `name=value` lines (unknown names and values that do not read are ignored):
/// - `stall`: paint-less waits longer than this (ms) are stalls; `detail`: per-token records
///   kept per stream before neighbours merge (0: the default);
/// - `slo`: targets, `metric quantile max; …` (e.g. `ttftPerceived 0.95 1000`);
/// - `late`: the late-paint threshold (ms); `longFrames`, `eventTiming`, `paint`: what the
///   engine gives (`1`);
///   `thresholds`: rating thresholds, `metric good poor; …`; `timer`: the timer's resolution
///   measured at start (ms; `Infinity` when the clock never moved, so it is coarse with its step
///   unknown); `noDevtoolsTrack`: the DevTools track was asked for in an engine whose DevTools
///   ignore it;
/// - `sampleRate`: the share of page loads profiled, which the summary and its export carry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config<'a> {
    /// The stall threshold (ms).
    pub stall_ms: Option<f64>,
    /// Per-token records kept per stream.
    pub detail_cap: Option<usize>,
    /// SLO targets.
    pub slo: &'a str,
    /// The late-paint threshold (ms).
    pub late_ms: Option<f64>,
    /// The engine reports long animation frames.
    pub long_frames: bool,
    /// The engine reports Event Timing entries (the user's interactions).
    pub event_timing: bool,
    /// Paint brackets can be taken.
    pub paint: bool,
    /// Rating thresholds.
    pub thresholds: &'a str,
    /// The timer's resolution (ms).
    pub timer_ms: Option<f64>,
    /// The DevTools track was asked for where it cannot show.
    pub no_devtools_track: bool,
    /// The share of page loads profiled.
    pub sample_rate: Option<f64>,
}

impl<'a> Config<'a> {
    /// Reads `name=value` lines.
    pub fn parse(spec: &'a str) -> Config<'a> {
        let mut c = Config::default();
        for line in spec.split('\n') {
            let Some((name, value)) = line.split_once('=') else {
                continue;
            };
            let num = number(value);
            let flag = value == "1" || value == "true";
            match name {
                "stall" => c.stall_ms = num.filter(|v| v.is_finite() && *v > 0.0),
                "detail" => {
                    c.detail_cap = num
                        .filter(|v| *v >= 1.0 && *v <= 2_147_483_648.0)
                        .map(|v| v as usize)
                }
                "slo" => c.slo = value,
                "late" => c.late_ms = num.filter(|v| v.is_finite() && *v >= 0.0),
                "longFrames" => c.long_frames = flag,
                "eventTiming" => c.event_timing = flag,
                "paint" => c.paint = flag,
                "thresholds" => c.thresholds = value,
                "timer" => c.timer_ms = num.filter(|v| *v > 0.0),
                "noDevtoolsTrack" => c.no_devtools_track = flag,
                "sampleRate" => c.sample_rate = num,
                _ => {}
            }
        }
        c
    }
}

/// A number as JavaScript writes it (`Infinity` too), read by the scanner's number reader:
/// `str::parse::<f64>` would link the standard float parser (about 20 KB of wasm).
#[inline(never)]
fn number(value: &str) -> Option<f64> {
    match value {
        "Infinity" => Some(f64::INFINITY),
        v => crate::read::jsonscan::number_in(v),
    }
}

struct Open {
    /// Test hook: the next chunk panics (see [`Streams::arm_test_trap`]).
    trap: bool,
    id: u32,
    url: String,
    label: String,
    transport: String,
    resumed_from: String,
    end_message: String,
    session: Session,
}

impl Open {
    /// What the shell told of this stream, for its report (`timeline`: with the per-token arrays).
    fn meta(&self, timeline: bool) -> Meta<'_> {
        Meta {
            id: self.id,
            url: &self.url,
            end_message: &self.end_message,
            timeline,
            label: &self.label,
            transport: &self.transport,
            resumed_from: &self.resumed_from,
        }
    }
}

/// `Core.render`'s one-number result (src/options.json `render`): the tokens a render committed
/// plus [`RENDER_RESUME`] times the furthest offset the next re-render can resume from, or
/// [`RENDER_WHOLE`] when the core needs the whole text. One number, as the DOM watch calls it on
/// every change of an answer's element. A double holds 53 bits, so the limit is kept below 2^21
/// (two million UTF-16 units of an answer's text): a re-render of a longer answer resumes no
/// later than that, and reads the rest again (an answer that grows at its end is still read from
/// where it was).
pub fn render_result(r: Option<(u32, u32)>) -> f64 {
    r.map_or(RENDER_WHOLE, |(n, limit)| {
        f64::from(n) + f64::from(limit.min((1 << 21) - 64)) * RENDER_RESUME
    })
}

/// See [`render_result`].
pub const RENDER_RESUME: f64 = 4_294_967_296.0;
/// See [`render_result`].
pub const RENDER_WHOLE: f64 = -1.0;

/// All streams of one profiler.
pub struct Streams {
    open: Vec<Open>,
    next_id: u32,
    summary: Summary,
    stall_ms: f64,
    detail_cap: usize,
    shell: Shell,
    frames: LongFrames,
    /// See [`crate::figures::Context::baseline`].
    baseline: Option<(f64, f64)>,
}

impl Default for Streams {
    fn default() -> Self {
        Streams {
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
            baseline: None,
        }
    }
}

impl Streams {
    /// Configures the registry once, when it is made.
    pub fn configure(&mut self, c: &Config<'_>) {
        if let Some(cap) = c.detail_cap {
            self.detail_cap = cap;
        }
        if let Some(stall) = c.stall_ms {
            self.stall_ms = stall;
        }
        self.summary.set_slos(crate::summary::parse_slos(c.slo));
        self.summary.set_rate(c.sample_rate.unwrap_or(f64::NAN));
        self.shell.timer_ms = c.timer_ms;
        self.shell.no_devtools_track = c.no_devtools_track;
        if let Some(late) = c.late_ms {
            self.shell.late_ms = late;
        }
        self.shell.long_frames = c.long_frames;
        self.shell.event_timing = c.event_timing;
        self.shell.paint = c.paint;
        self.shell.set_thresholds(c.thresholds);
    }

    /// A long animation frame the page had.
    pub fn long_frame(&mut self, frame: LongFrame) {
        self.frames.push(frame);
    }

    /// The Resource Timing entry of stream `id`'s request.
    pub fn resource(&mut self, id: u32, entry: ResourceEntry) {
        if let Some(o) = self.get(id) {
            o.session.resource(entry);
        }
    }

    /// The user's interactions while stream `id` was open: `[start, delay, duration]` triplets.
    pub fn inputs(&mut self, id: u32, triplets: &[f64]) {
        if let Some(o) = self.get(id) {
            o.session.inputs(triplets);
        }
    }

    /// The frames the page painted while stream `id` was open (their starts, absolute ms).
    pub fn frames(&mut self, id: u32, starts: &[f64]) {
        if let Some(o) = self.get(id) {
            o.session.frames(starts);
        }
    }

    /// The summary in a compact form another profiler (tab, page, user) can merge.
    pub fn export_summary(&self) -> String {
        if cfg!(feature = "floor-live") {
            return String::new(); // `npm run size:floor`'s live part (see Cargo.toml)
        }
        self.summary.export()
    }

    /// Merges an exported summary; `false` if it cannot be read (nothing changes then).
    pub fn merge_summary(&mut self, exported: &str) -> bool {
        if cfg!(feature = "floor-live") {
            return exported.is_empty(); // `npm run size:floor`'s live part
        }
        self.summary.merge_json(exported)
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

    /// What the shell knows of stream `id` when it opens: its label, what carried it (`fetch`
    /// when empty), the last event id it resumed from, whether to keep its text, whether no
    /// request start can be known for it, and the characters the observed container held (the
    /// conversation before this answer; NaN when unknown).
    #[allow(clippy::too_many_arguments)]
    pub fn describe(
        &mut self,
        id: u32,
        label: &str,
        transport: &str,
        resumed_from: &str,
        keep_text: bool,
        start_unknown: bool,
        prior_chars: f64,
        learned: bool,
    ) {
        if let Some(o) = self.get(id) {
            o.session.prior_chars(prior_chars);
            if learned {
                o.session.learned();
            }
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

    /// A body chunk read at `t` (`net`: when the arrival clock saw it, else NaN), or with
    /// `more`, the next part of the chunk read last.
    pub fn chunk(&mut self, id: u32, bytes: &[u8], t: f64, more: bool, net: f64) {
        if let Some(o) = self.get(id) {
            if o.trap {
                panic!("tokenpaint test trap");
            }
            o.session.chunk_seen(bytes, t, net, more);
        }
    }

    /// Test hook for the fault-isolation tests: the next chunk of stream `id` panics inside the
    /// core, as a bug would.
    pub fn arm_test_trap(&mut self, id: u32) {
        if let Some(o) = self.get(id) {
            o.trap = true;
        }
    }

    /// The body of stream `id` ended at `t`; `message` says why.
    pub fn end(&mut self, id: u32, kind: EndKind, t: f64, message: &str) {
        if let Some(o) = self.get(id) {
            o.end_message = prefix(message, crate::read::wire::MAX_MESSAGE).into();
            o.session.end(kind, t);
        }
    }

    /// The answer's element changed at `t` (see [`Session::rendered`]): the tokens committed,
    /// and the furthest offset the next re-render can resume from; `None` when the whole text
    /// is needed; `Some((0, 0))` without the stream.
    pub fn rendered(&mut self, id: u32, text: &str, from: u32, t: f64) -> Option<(u32, u32)> {
        match self.get(id) {
            Some(o) => o
                .session
                .rendered(text, from, t)
                .map(|n| (n, o.session.resume_limit())),
            None => Some((0, 0)),
        }
    }

    /// Why the page's element for stream `id` could not be read.
    pub fn dom_reason(&mut self, id: u32, reason: u8) {
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

    /// The request start of stream `id`, learned late.
    pub fn set_start(&mut self, id: u32, start: f64) {
        if let Some(o) = self.get(id) {
            o.session.set_start(start);
        }
    }

    /// Whether an element's text shows the start of stream `id`'s answer.
    pub fn claims(&mut self, id: u32, text: &str) -> bool {
        self.get(id).is_some_and(|o| o.session.claims(text))
    }

    /// A frame painted, for every open stream (see [`Session::painted`]); `since`: the
    /// after-paint time of the frame before when the clock asked for this one then, else NaN.
    /// A frame that took much longer than a frame since it was asked for tells that the main
    /// thread was blocked. Returns how many tokens got a paint bracket.
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

    /// A frame painted before stream `id` opened, handed to it alone: a stream whose answer the
    /// shell learned from the page late gets the frames that showed its first commits (which
    /// the shell replays with their own times). Returns how many tokens got a paint bracket.
    pub fn painted_one(&mut self, id: u32, frame: f64, cutoff: f64, after: f64) -> u32 {
        self.get(id)
            .map_or(0, |o| o.session.painted(frame, cutoff, after))
    }

    /// Stream `id` so far, at `now` (the live view).
    pub fn progress(&mut self, id: u32, now: f64) -> Option<Progress> {
        self.get(id).map(|o| o.session.progress(now))
    }

    /// The format stream `id` is read as, once detected or given.
    pub fn format(&mut self, id: u32) -> Option<crate::read::wire::Format> {
        self.get(id).and_then(|o| o.session.tl.format)
    }

    /// Whether stream `id` has ended and all its visible text is painted.
    pub fn settled(&mut self, id: u32) -> bool {
        self.get(id).is_some_and(|o| o.session.settled())
    }

    /// Stream `id`'s figures as they stand, at full precision (for tests and tools: what its
    /// report would say if it were finished now, before the report's rounding).
    pub fn figures(&self, id: u32) -> Option<StreamFigures> {
        let o = self.open.iter().find(|o| o.id == id)?;
        let (_, figures) = report::write_with(
            &o.session.tl,
            &o.meta(false),
            Some(&self.shell),
            Some(&self.frames),
            self.baseline,
        );
        Some(figures)
    }

    /// Closes stream `id` and returns its report as JSON (`None` if there is no such stream):
    /// with the per-token arrays when `timeline`, and with the stream saved in the report's
    /// `saved` (see [`crate::saved`]) when `save`.
    pub fn finish(&mut self, id: u32, timeline: bool, save: bool) -> Option<String> {
        let i = self.open.iter().position(|o| o.id == id)?;
        let o = self.open.swap_remove(i);
        let meta = o.meta(timeline);
        let baseline = self.baseline;
        // `npm run size:floor`'s live part: the saved timeline alone (see Cargo.toml).
        if cfg!(feature = "floor-live") {
            let _ = save;
            return Some(saved::write(
                &o.session.tl,
                &meta,
                &self.shell,
                &self.frames,
                baseline,
            ));
        }
        let (mut json, metrics) = report::write_with(
            &o.session.tl,
            &meta,
            Some(&self.shell),
            Some(&self.frames),
            baseline,
        );
        if save && json.ends_with('}') {
            json.pop();
            json.push_str(",\"saved\":");
            json.push_str(&saved::write(
                &o.session.tl,
                &meta,
                &self.shell,
                &self.frames,
                baseline,
            ));
            json.push('}');
        }
        // The answer in the shortest conversation is the later answers' baseline.
        if let Some(c) = metrics.conversation {
            if self.baseline.is_none_or(|b| c.0 < b.0) {
                self.baseline = Some(c);
            }
        }
        self.summary.add(&metrics);
        Some(json)
    }

    /// Analyses a saved stream again (a report's `saved`, see [`crate::saved`]): its report,
    /// as the live stream had it, joins this registry's summary. Why it could not be read
    /// otherwise (nothing changes then).
    pub fn analyse(&mut self, text: &str) -> Result<String, SavedError> {
        let (json, metrics) = saved::analyse(text)?;
        self.summary.add(&metrics);
        Ok(json)
    }

    /// Percentiles over finished streams, as JSON.
    pub fn summary(&self) -> String {
        if cfg!(feature = "floor-live") {
            return String::new(); // `npm run size:floor`'s live part
        }
        self.summary.to_json()
    }

    /// Number of open streams.
    pub fn active(&self) -> usize {
        self.open.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each option the core reads (src/options.json's `core`), by its name there: the core's own
    /// default, and its value once configured with `value`.
    #[cfg(not(target_arch = "wasm32"))]
    fn core_option(core: &str, value: f64) -> (f64, f64) {
        let fresh = Streams::default();
        let mut set = Streams::default();
        set.configure(&Config::parse(&format!("{core}={value}")));
        match core {
            "stall" => (fresh.stall_ms, set.stall_ms),
            "late" => (fresh.shell.late_ms, set.shell.late_ms),
            "detail" => (fresh.detail_cap as f64, set.detail_cap as f64),
            other => panic!("src/options.json: the core reads no option `{other}`"),
        }
    }

    // serde_json is a dev-dependency on the host only.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_declared_defaults_of_the_options_the_core_reads_are_the_cores_own() {
        let decl: serde_json::Value =
            serde_json::from_str(include_str!("options.json")).expect("src/options.json");
        let mut seen = Vec::new();
        for o in decl["options"].as_array().expect("options") {
            let Some(core) = o["core"].as_str() else {
                continue;
            };
            let name = o["name"].as_str().expect("name");
            let default = o["default"].as_f64().expect("a number");
            let (own, _) = core_option(core, default);
            assert_eq!(own, default, "{name}: declared {default}, the core's {own}");
            // And the core reads it by that name.
            assert_eq!(
                core_option(core, default + 64.0).1,
                default + 64.0,
                "{name}"
            );
            seen.push(core);
        }
        // Every option the core reads from the shell's options is declared.
        seen.sort_unstable();
        assert_eq!(seen, ["detail", "late", "stall"]);
    }

    /// `Core.render`'s result is packed as declared (src/options.json `render`), which is how
    /// the shell (js/core/wasm.js `RENDER`) unpacks it.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_render_result_is_packed_as_declared() {
        let decl: serde_json::Value =
            serde_json::from_str(include_str!("options.json")).expect("src/options.json");
        let resume = decl["render"]["resume"].as_f64().expect("render.resume");
        let whole = decl["render"]["whole"].as_f64().expect("render.whole");
        assert_eq!(render_result(None), whole);
        for (n, limit) in [
            (0, 0),
            (7, 0),
            (0, 64),
            (12_345, 4_096),
            ((1 << 20) + 3, (1 << 21) - 64),
        ] {
            let r = render_result(Some((n, limit)));
            assert_eq!(r % resume, f64::from(n), "committed of {r}");
            assert_eq!((r / resume).floor(), f64::from(limit), "limit of {r}");
        }
        // Past 2^21 the limit is lowered (a resume reads more again), and the count stays exact.
        let r = render_result(Some((u32::MAX, u32::MAX)));
        assert_eq!(r % resume, f64::from(u32::MAX));
        assert_eq!((r / resume).floor(), f64::from((1u32 << 21) - 64));
    }

    /// Every key of src/options.json's `config` sets a field of `Config` of its own, its value
    /// read as its declared type, and every field has a key there: the declaration the shell's
    /// lines are written from (js/options.js `configText`) and checked against
    /// (tests/native/shell.test.mjs) is the one the core reads.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_declared_configuration_keys_are_the_ones_the_core_reads() {
        let decl: serde_json::Value =
            serde_json::from_str(include_str!("options.json")).expect("src/options.json");
        let fields = |c: &Config<'_>| {
            let d = Config::default();
            [
                c.stall_ms != d.stall_ms,
                c.detail_cap != d.detail_cap,
                c.slo != d.slo,
                c.late_ms != d.late_ms,
                c.long_frames != d.long_frames,
                c.event_timing != d.event_timing,
                c.paint != d.paint,
                c.thresholds != d.thresholds,
                c.timer_ms != d.timer_ms,
                c.no_devtools_track != d.no_devtools_track,
                c.sample_rate != d.sample_rate,
            ]
        };
        let mut set = [false; 11];
        let d = Config::default();
        let config = decl["config"].as_array().expect("config");
        for c in config {
            let (key, example) = (c["key"].as_str().unwrap(), c["example"].as_str().unwrap());
            let line = format!("{key}={example}");
            let changed = fields(&Config::parse(&line));
            let n = changed.iter().filter(|x| **x).count();
            assert_eq!(n, 1, "`{line}` sets one field of Config, not {n}");
            // Its value reads as its declared type does (`configText` of js/options.js writes
            // it so): a flag is `1` or `0`, a number is not read from a word, a text is kept.
            let unset = |value: &str| Config::parse(&format!("{key}={value}")) == d;
            match c["type"].as_str() {
                Some("flag") => assert!(example == "1" && unset("0"), "`{key}`: a flag"),
                Some("number") => assert!(
                    unset("NaN") && unset("x") && !unset("1e3"),
                    "`{key}`: a number"
                ),
                Some("text") => assert!(unset("") && !unset("a b; c d"), "`{key}`: a text"),
                other => panic!("`{key}`: no type of value declared ({other:?})"),
            }
            for (s, c) in set.iter_mut().zip(changed) {
                assert!(!(*s && c), "`{key}`: a field set by another key too");
                *s |= c;
            }
        }
        assert!(
            set.iter().all(|s| *s),
            "a field of Config without a declared key: {set:?}"
        );
        assert_eq!(config.len(), set.len());
    }

    #[test]
    fn the_configuration_is_one_value_and_bad_entries_are_ignored() {
        let c = Config::parse(
            "stall=250\ndetail=64\nslo=ttftPerceived 0.95 1000\nlate=40\nlongFrames=1\npaint=0\n\
             thresholds=ttft 500 900\ntimer=Infinity\nnoDevtoolsTrack=true\nsampleRate=0.25\n\
             detail=-3\nnonsense=1\nno equals sign",
        );
        assert_eq!(c.stall_ms, Some(250.0));
        assert_eq!(
            c.detail_cap, None,
            "the last detail= did not read: none kept"
        );
        assert_eq!(c.slo, "ttftPerceived 0.95 1000");
        assert_eq!(
            (c.late_ms, c.long_frames, c.paint),
            (Some(40.0), true, false)
        );
        assert_eq!(c.thresholds, "ttft 500 900");
        assert_eq!(c.timer_ms, Some(f64::INFINITY));
        assert!(c.no_devtools_track);
        assert_eq!(c.sample_rate, Some(0.25));
        assert_eq!(
            Config::parse("stall=0\ntimer=0\nlate=NaN\nstall=undefined"),
            Config::default()
        );
        let mut s = Streams::default();
        s.configure(&Config::parse(
            "stall=250\nthresholds=ttft 500 900\ntimer=1",
        ));
        assert_eq!(s.stall_ms, 250.0);
        assert_eq!(s.shell.thresholds[0], (500.0, 900.0));
        assert_eq!(s.shell.timer_ms, Some(1.0));
    }

    #[test]
    fn streams_by_id_from_open_to_report_and_unknown_ids_are_harmless() {
        let mut s = Streams::default();
        s.configure(&Config::parse("paint=1"));
        let a = s.open(
            "openai-chat",
            "text/event-stream",
            "",
            "/v1",
            1000.0,
            1005.0,
            200,
        );
        let b = s.open(
            "openai-chat",
            "text/event-stream",
            "",
            "/v1",
            1000.0,
            1005.0,
            200,
        );
        assert!(a != 0 && b != 0 && a != b);
        assert_eq!(s.active(), 2);
        let chunk = |text: &str| {
            format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n"
            )
        };
        s.chunk(a, chunk("Hello").as_bytes(), 1100.0, false, f64::NAN);
        s.chunk(a, chunk(" world").as_bytes(), 1120.0, false, f64::NAN);
        assert_eq!(s.rendered(a, "Hello world", 0, 1125.0), Some((2, 0)));
        assert_eq!(s.painted(1130.0, f64::NAN, 1134.0, f64::NAN), 2);
        s.end(a, EndKind::Complete, 1140.0, "");
        assert!(s.settled(a));
        let p = s.progress(b, 1200.0).unwrap();
        assert_eq!(p.arrived, 0);
        let report = s.finish(a, false, false).unwrap();
        assert!(report.contains("\"status\":\"ok\""), "{report}");
        assert!(report.contains("\"ttft\":100"), "{report}");
        assert_eq!(s.finish(a, false, false), None, "a finished stream is gone");
        // Calls for a stream that is not there do nothing and give the fallback.
        s.chunk(999, b"data: {}\n\n", 1.0, false, f64::NAN);
        s.end(999, EndKind::Failed, 1.0, "x");
        assert_eq!(s.rendered(999, "x", 0, 1.0), Some((0, 0)));
        assert!(s.progress(999, 1.0).is_none() && !s.settled(999) && !s.claims(999, "x"));
        assert_eq!(s.active(), 1);
        assert!(s.summary().contains("\"count\":1"), "{}", s.summary());
    }
}
