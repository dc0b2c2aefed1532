//! What rests on what the browser told: Resource Timing, late paints and their long animation
//! frames, ratings ([`BrowserFigures`]).

use super::*;

/// The figures that rest on what the browser told: Resource Timing, long animation frames,
/// ratings and the paint source.
#[derive(Debug, Clone, Default)]
pub struct BrowserFigures {
    /// The request's Resource Timing, from the request start (`None`: no entry).
    pub resource: Option<ResourceFigure>,
    /// Tokens painted late and the long frames that overlapped them (`None`: nothing was
    /// painted, so lateness is not known).
    pub late: Option<LatePaints>,
    /// The rating of each headline metric that has a value: (metric, rating).
    pub ratings: Vec<(&'static str, &'static str)>,
    /// `raf` when paint brackets could be taken.
    pub paint_source: Option<&'static str>,
    /// The resolution of the page's timer (ms), as measured when the shell started.
    pub timer_ms: Option<f64>,
}

/// The figures of a Resource Timing entry, named as a report names them (the values of
/// [`ResourceFigure`], in this order).
pub const RESOURCE_FIGURES: [&str; 7] = [
    "startTime",
    "dns",
    "connect",
    "requestStart",
    "responseStart",
    "responseEnd",
    "browserQueue",
];

/// A Resource Timing entry's [`RESOURCE_FIGURES`], in ms from the request start (rounded to
/// 0.01 ms): its start, DNS lookup, connection set-up, the request leaving, the network's first
/// byte, the body's end, and the wait in the browser less DNS and connection set-up.
pub type ResourceFigure = [Option<f64>; 7];

/// Tokens painted more than `threshold` ms after they arrived, and the long animation frames
/// on their way to the screen, the frames that delayed the most tokens first.
#[derive(Debug, Clone, Default)]
pub struct LatePaints {
    /// The threshold (ms).
    pub threshold: f64,
    /// Late records.
    pub tokens: u64,
    /// Late records that overlap a long frame (`None`: the engine has no long frames).
    pub attributed: Option<u64>,
    /// At most 10 frames.
    pub frames: Vec<LateFrame>,
}

/// A long animation frame that delayed late tokens (the shell adds the scripts that ran in it,
/// which it knows by `seq`).
#[derive(Debug, Clone, Default)]
pub struct LateFrame {
    /// The shell's number for the frame.
    pub seq: u32,
    /// Its start, from the request start (ms).
    pub start: f64,
    /// Its duration (ms).
    pub duration: f64,
    /// Its blocking duration (ms).
    pub blocking: f64,
    /// Late tokens it overlapped.
    pub tokens: u64,
}

/// The figures that rest on what the browser told.
pub(super) fn browser(
    tl: &Timeline,
    f: &StreamFigures,
    shell: &Shell,
    frames: Option<&LongFrames>,
) -> BrowserFigures {
    let rel = |v: Option<f64>| v.map(|v| round(v - tl.start));
    let span = |(a, b): (Option<f64>, Option<f64>)| a.zip(b).map(|(a, b)| round(b - a));
    let resource = tl.resource.as_ref().map(|e| -> ResourceFigure {
        [
            rel(Some(e.start)),
            span(e.dns),
            span(e.connect),
            rel(e.request_start),
            rel(e.response_start),
            rel(e.response_end),
            e.browser_queue().map(round),
        ]
    });
    let values = [
        f.ttft,
        f.ttft_perceived.map(|b| b.1),
        f.e2e_perceived.map(|b| b.1),
        f.tpot,
        f.lag_spread.map(|s| s.p50),
    ];
    let ratings = crate::figures::browser::RATED
        .iter()
        .zip(values)
        .zip(shell.thresholds)
        .filter_map(|((name, v), t)| v.map(|v| (*name, crate::figures::browser::rate(v, t))))
        .collect();
    BrowserFigures {
        resource,
        late: tl
            .records
            .iter()
            .any(|t| t.painted.is_finite())
            .then(|| late_paints(tl, shell, frames)),
        ratings,
        paint_source: shell.paint.then_some("raf"),
        timer_ms: shell.timer_ms,
    }
}

/// The records painted more than `late_ms` after they arrived (not while the page was
/// hidden), and the long frames that overlapped their way to the screen.
pub(super) fn late_paints(tl: &Timeline, shell: &Shell, frames: Option<&LongFrames>) -> LatePaints {
    let mut by_frame: Vec<(usize, u64)> = Vec::new();
    let (mut late, mut attributed) = (0u64, 0u64);
    for t in &tl.records {
        let (start, end) = (t.arrived, t.painted);
        if !end.is_finite() || end - start <= shell.late_ms {
            continue;
        }
        if tl.hidden.iter().any(|&(hs, he)| hs < end && start < he) {
            continue;
        }
        late += 1;
        let mut any = false;
        for (i, _) in frames.into_iter().flat_map(|f| f.overlapping(start, end)) {
            any = true;
            match by_frame.iter_mut().find(|(j, _)| *j == i) {
                Some((_, n)) => *n += 1,
                None => by_frame.push((i, 1)),
            }
        }
        attributed += u64::from(any);
    }
    let all = frames.map(|f| &f.frames);
    let frame = |i: usize| all.and_then(|f| f.get(i));
    // The frames that delayed the most tokens first, then the longest. An insertion sort: the
    // list is short, and the standard sort would add 3 KB of wasm.
    let d = |i| frame(i).map_or(0.0, |f| f.duration);
    let before = |a: (usize, u64), b: (usize, u64)| a.1 > b.1 || (a.1 == b.1 && d(a.0) > d(b.0));
    for i in 1..by_frame.len() {
        let mut j = i;
        while j > 0 && before(by_frame[j], by_frame[j - 1]) {
            by_frame.swap(j, j - 1);
            j -= 1;
        }
    }
    LatePaints {
        threshold: shell.late_ms,
        tokens: late,
        attributed: shell.long_frames.then_some(attributed),
        frames: by_frame
            .iter()
            .take(10)
            .filter_map(|&(i, tokens)| {
                frame(i).map(|f| LateFrame {
                    seq: f.seq,
                    start: round(f.start - tl.start),
                    duration: round(f.duration),
                    blocking: round(f.blocking),
                    tokens,
                })
            })
            .collect(),
    }
}
