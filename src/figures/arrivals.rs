//! Whose clock stamped the arrivals and how late the page read them ([`Arrivals`]), and whose
//! pace TPOT and ITL are ([`Pace`]).

use super::*;

/// Which clock stamped the arrivals, and how much of what they show was the page's late read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arrivals {
    /// `page-read`: each chunk is stamped when the page's JavaScript read it, on the main
    /// thread, so a blocked page delays "arrival" too. `service-worker`: stamped when the
    /// opt-in arrival clock (a service worker) passed it on, off the page's main thread.
    pub clock: &'static str,
    /// The main thread's blocked time seen while the stream was open (ms; `None`: the paint
    /// clock never ran, so it is not known).
    pub blocked_ms: Option<f64>,
    /// Mean delay per delta of reads that bunched up after the main thread was blocked (ms;
    /// `None` with fewer than 3 deltas).
    pub late_read_ms: Option<f64>,
    /// Arrival groups read late by the page.
    pub late_read_groups: u32,
    /// How long after the network's last byte (Resource Timing `responseEnd`) the page read
    /// the end of the body (ms; `None` without an entry).
    pub end_read_late_ms: Option<f64>,
}

/// Whose pace the headline TPOT and ITL are: the decoder's, or, when the arrivals were held
/// together, the buffer's (then the server's own step is beside them, when it said it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pace {
    /// `arrivals` (as decoded, as far as the page can tell), `buffer` (an intermediary
    /// released them together), `page-reads` (a blocked page read them together).
    pub of: &'static str,
    /// The server's time per token, when it reported its decode time (ms).
    pub server_step: Option<f64>,
}

/// When the main thread was blocked: the paint clock's late frames and the browser's long
/// animation frames.
pub(super) fn blocked(
    tl: &Timeline,
    frames: Option<&LongFrames>,
) -> crate::timeline::blocked::Blocked {
    let mut b = tl.blocked.clone();
    let end = tl.end.map_or(f64::INFINITY, |e| e.1);
    for f in frames
        .into_iter()
        .flat_map(|f| f.overlapping(tl.start, end))
    {
        b.push(f.1.start, f.1.start + f.1.duration);
    }
    b
}

pub(super) fn arrivals(
    tl: &Timeline,
    f: &StreamFigures,
    blocked: &crate::timeline::blocked::Blocked,
) -> Arrivals {
    let inter = f.breakdown.as_ref().and_then(|b| b.intermediary);
    let clock_ran = tl.frame_pace.on_time + tl.frame_pace.late > 0 || !blocked.is_empty();
    let end_read = tl.end.filter(|e| e.0 == EndKind::Complete).map(|e| e.1);
    let end_read_late_ms = tl
        .resource
        .as_ref()
        .and_then(|e| e.response_end)
        .zip(end_read)
        .map(|(net, read)| round((read - net).max(0.0)));
    let r = &tl.reads;
    // Stamped off the main thread: the late read is measured (over every delta, those read at
    // once count 0); else inferred from reads that bunched while the thread was blocked.
    let seen = r.seen > 0;
    let measured = (seen && tl.deltas > 0).then(|| round(r.late_sum / tl.deltas as f64));
    Arrivals {
        clock: if seen { "service-worker" } else { "page-read" },
        blocked_ms: clock_ran.then(|| round(blocked.total())),
        // Inferred only where the blocking could be seen: else unknown, not 0.
        late_read_ms: measured.or(inter.filter(|_| clock_ran).map(|i| round(i.late_read_mean))),
        late_read_groups: inter.map_or(0, |i| i.late_read_groups),
        end_read_late_ms,
    }
}

pub(super) fn pace(f: &StreamFigures) -> Pace {
    use crate::figures::phases::HeldBy;
    let inter = f.breakdown.as_ref().and_then(|b| b.intermediary);
    Pace {
        of: match inter.map(|i| i.held_by) {
            Some(HeldBy::Intermediary) => "buffer",
            Some(HeldBy::Page) => "page-reads",
            _ => "arrivals",
        },
        server_step: inter.filter(|i| i.step_from_server).map(|i| round(i.step)),
    }
}
