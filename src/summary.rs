//! Percentiles over finished streams, from mergeable sketches: overall and by format, URL and
//! label; SLO targets with goodput; a diagnosis over the whole; and a compact export that
//! another summary (another tab, page or user) can merge exactly.

use crate::prelude::*;

use crate::figures::{Metric, Status, StreamFigures};
use crate::jsonwrite::JsonWriter;
use crate::read::jsonscan::{Result as JsonResult, Scanner};
use crate::stats::sketch::Sketch;

/// Distinct names kept per grouping (format, URL, label); later ones are counted as `other`.
const MAX_GROUPS: usize = 32;

/// A target: the `quantile` of `metric` over streams must be at most `max` ms. A stream meets
/// it when its own value (for ITL and lag, its own quantile) is at most `max`.
#[derive(Debug, Clone, PartialEq)]
pub struct Slo {
    /// The metric.
    pub metric: Metric,
    /// 0..=1.
    pub quantile: f64,
    /// ms.
    pub max: f64,
}

/// Parses targets written `metric quantile max; …` (e.g. `ttftPerceived 0.95 1000; tpot 0.5
/// 50`); unknown metrics and malformed entries are skipped.
pub fn parse_slos(spec: &str) -> Vec<Slo> {
    spec.split(';')
        .filter_map(|entry| {
            let mut it = entry.split_whitespace();
            let name = it.next()?;
            let metric = Metric::from_name(name).filter(|m| m.has_target())?;
            let quantile = crate::read::jsonscan::number_in(it.next()?)?;
            let max = crate::read::jsonscan::number_in(it.next()?)?;
            ((0.0..=1.0).contains(&quantile) && max >= 0.0).then_some(Slo {
                metric,
                quantile,
                max,
            })
        })
        .take(16)
        .collect()
}

/// The aggregates of one group of streams.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    statuses: [u64; 4],
    sketches: Vec<Sketch>,
    /// Streams that met every target, of those judged.
    met: u64,
    judged: u64,
    /// Streams by their headline verdict (the report's first), at most [`MAX_GROUPS`] names.
    verdicts: Vec<(String, u64)>,
    /// Tokens painted late, over all streams.
    late_tokens: u64,
    /// Every verdict with an estimated gain: (name, streams, perceived TTFT and E2E gained in
    /// all, ms), at most [`MAX_GROUPS`] names.
    gains: Vec<(String, u64, f64, f64)>,
}

impl Group {
    fn sketch(&mut self, i: usize) -> &mut Sketch {
        if self.sketches.len() < Metric::ALL.len() {
            self.sketches.resize(Metric::ALL.len(), Sketch::new());
        }
        &mut self.sketches[i]
    }

    fn get(&self, m: Metric) -> Option<&Sketch> {
        self.sketches.get(m.index()).filter(|s| s.count() > 0)
    }

    /// The `q` quantile of metric `m` over this group's streams.
    fn q(&self, m: Metric, q: f64) -> Option<f64> {
        self.get(m).and_then(|s| s.quantile(q))
    }

    fn count_verdict(&mut self, name: &str, n: u64) {
        let full = self.verdicts.len() >= MAX_GROUPS;
        match self.verdicts.iter_mut().find(|(v, _)| v == name) {
            Some((_, c)) => *c += n,
            None if !full => self.verdicts.push((name.into(), n)),
            None => {}
        }
    }

    fn count_gain(&mut self, name: &str, n: u64, ttft: f64, e2e: f64) {
        let full = self.gains.len() >= MAX_GROUPS;
        match self.gains.iter_mut().find(|g| g.0 == name) {
            Some(g) => {
                g.1 += n;
                g.2 += ttft;
                g.3 += e2e;
            }
            None if !full => self.gains.push((name.into(), n, ttft, e2e)),
            None => {}
        }
    }

    fn add(&mut self, f: &StreamFigures, slos: &[Slo]) {
        self.statuses[f.status as usize] += 1;
        for v in &f.verdicts {
            if let Some(g) = v.gain {
                self.count_gain(v.verdict, 1, g.ttft, g.e2e);
            }
        }
        // The same headline verdict and late paints the stream's report says.
        if let Some(v) = f.verdicts.first() {
            self.count_verdict(v.verdict, 1);
        }
        self.late_tokens += f
            .browser
            .as_ref()
            .and_then(|b| b.late.as_ref())
            .map_or(0, |l| l.tokens);
        if f.status != Status::Ok {
            // A stream that failed, was abandoned or ended early met no target: it lowers
            // goodput (its figures stay out of the percentiles, which describe answers).
            if !slos.is_empty() {
                self.judged += 1;
            }
            return;
        }
        for m in Metric::ALL {
            if let Some(v) = f.value(m) {
                self.sketch(m.index()).add(v);
            } else if let Some(samples) = f.samples(m) {
                samples.add_to(self.sketch(m.index()));
            }
        }
        if !slos.is_empty() {
            self.judged += 1;
            if slos.iter().all(|s| {
                f.value_for(s.metric, s.quantile)
                    .is_some_and(|v| v <= s.max)
            }) {
                self.met += 1;
            }
        }
    }

    /// Counts every stream of the group `k` times.
    fn scale(&mut self, k: u64) {
        for n in self
            .statuses
            .iter_mut()
            .chain([&mut self.met, &mut self.judged, &mut self.late_tokens])
            .chain(self.verdicts.iter_mut().map(|(_, n)| n))
        {
            *n *= k;
        }
        for s in &mut self.sketches {
            s.scale(k);
        }
        for g in &mut self.gains {
            g.1 *= k;
            g.2 *= k as f64;
            g.3 *= k as f64;
        }
    }

    fn merge(&mut self, other: &Group) {
        for (v, n) in &other.verdicts {
            self.count_verdict(v, *n);
        }
        for (v, n, t, e) in &other.gains {
            self.count_gain(v, *n, *t, *e);
        }
        self.late_tokens += other.late_tokens;
        for i in 0..4 {
            self.statuses[i] += other.statuses[i];
        }
        for (i, s) in other.sketches.iter().enumerate() {
            self.sketch(i).merge(s);
        }
        self.met += other.met;
        self.judged += other.judged;
    }

    fn write(&self, w: &mut JsonWriter, slos: &[Slo]) {
        w.open_object();
        w.key("count");
        w.uint(self.statuses[Status::Ok as usize]);
        w.key("streams");
        w.open_object();
        for s in [
            Status::Ok,
            Status::Error,
            Status::Aborted,
            Status::Incomplete,
        ] {
            w.key(s.name());
            w.uint(self.statuses[s as usize]);
        }
        w.close_object();
        for m in Metric::ALL {
            w.key(m.name());
            w.open_object();
            let s = self.get(m);
            w.key("count");
            w.uint(s.map_or(0, Sketch::count));
            for (q, k) in [(0.5, "p50"), (0.9, "p90"), (0.95, "p95"), (0.99, "p99")] {
                w.key(k);
                w.opt_num(s.and_then(|s| s.quantile(q)));
            }
            w.key("max");
            w.opt_num(s.and_then(Sketch::max));
            w.close_object();
        }
        w.key("slo");
        w.open_array();
        for slo in slos {
            let value = self.q(slo.metric, slo.quantile);
            w.open_object();
            w.key("metric");
            w.str(slo.metric.name());
            w.key("quantile");
            w.num(slo.quantile);
            w.key("max");
            w.num(slo.max);
            w.key("value");
            w.opt_num(value);
            w.key("holds");
            match value {
                Some(v) => w.bool(v <= slo.max),
                None => w.null(),
            }
            w.close_object();
        }
        w.close_array();
        w.key("goodput");
        if self.judged > 0 {
            w.open_object();
            w.key("met");
            w.uint(self.met);
            w.key("of");
            w.uint(self.judged);
            w.key("share");
            w.num(self.met as f64 / self.judged as f64);
            w.key("notOk");
            w.uint(self.statuses[1..].iter().sum());
            w.close_object();
        } else {
            w.null();
        }
        w.key("diagnosis");
        w.open_array();
        for (verdict, evidence, fix) in self.diagnose() {
            w.open_object();
            w.key("verdict");
            w.str(verdict);
            w.key("evidence");
            w.open_object();
            for (k, v) in evidence {
                w.key(k);
                w.opt_num(v);
            }
            w.close_object();
            debug_assert!(crate::figures::FIX_IDS.contains(&fix), "{fix}");
            w.key("fixId");
            w.str(fix);
            w.close_object();
        }
        w.close_array();
        // Each stream's headline verdict, as its report gave it, and its late paints.
        w.key("verdicts");
        w.open_object();
        for (v, n) in &self.verdicts {
            w.key_str(v);
            w.uint(*n);
        }
        w.close_object();
        w.key("latePaintTokens");
        w.uint(self.late_tokens);
        self.write_gains(w);
        w.close_object();
    }

    /// The verdicts' gains, the fix worth most first: perceived TTFT and E2E gained over all
    /// streams.
    fn write_gains(&self, w: &mut JsonWriter) {
        w.key("gains");
        w.open_array();
        // A selection, not a sort: there are few, and a sort would link its code into the wasm.
        let mut done = 0u64;
        for _ in &self.gains {
            let Some((i, (v, n, t, e))) = self
                .gains
                .iter()
                .enumerate()
                .filter(|(i, _)| done & (1 << i) == 0)
                .reduce(|a, b| {
                    if b.1 .2 + b.1 .3 > a.1 .2 + a.1 .3 {
                        b
                    } else {
                        a
                    }
                })
            else {
                break;
            };
            done |= 1 << i;
            w.open_object();
            w.key("verdict");
            w.str(v);
            w.key("streams");
            w.uint(*n);
            w.nums(&[("ttftPerceived", *t), ("e2ePerceived", *e)]);
            w.close_object();
        }
        w.close_array();
    }

    /// Verdicts over many streams: a tail problem (p95/p99 poor while p50 is good) and
    /// "components fine, E2E high" (capacity).
    #[allow(clippy::type_complexity)]
    fn diagnose(&self) -> Vec<(&'static str, Vec<(&'static str, Option<f64>)>, &'static str)> {
        let q = |m: Metric, p: f64| self.q(m, p);
        let n = self.statuses[Status::Ok as usize];
        let mut out = Vec::new();
        if n < 5 {
            return out;
        }
        let (ttft50, ttft95) = (q(Metric::Ttft, 0.5), q(Metric::Ttft, 0.95));
        let (tpot50, tpot95) = (q(Metric::Tpot, 0.5), q(Metric::Tpot, 0.95));
        let (queue50, queue95) = (q(Metric::Queue, 0.5), q(Metric::Queue, 0.95));
        let (prefill95, decode95) = (q(Metric::Prefill, 0.95), q(Metric::Decode, 0.95));
        let tail = matches!((ttft50, ttft95), (Some(a), Some(b)) if b > 2.0 * a && b > 1000.0);
        let decode_steady = matches!((tpot50, tpot95), (Some(a), Some(b)) if b <= 1.5 * a);
        // The server says the slow streams waited: queue time that matters (over 200 ms) and is
        // at least half of the p95 TTFT is capacity, whatever the median does.
        let queue_heavy =
            matches!((queue95, ttft95), (Some(qu), Some(t)) if qu > 200.0 && qu >= 0.5 * t);
        if queue_heavy || (tail && queue95.is_none() && decode_steady) {
            out.push((
                "capacity",
                vec![
                    ("ttftP50", ttft50),
                    ("ttftP95", ttft95),
                    ("queueP50", queue50),
                    ("queueP95", queue95),
                    ("prefillP95", prefill95),
                    ("tpotP95", tpot95),
                    ("decodeP95", decode95),
                ],
                "capacity",
            ));
        } else if tail {
            out.push((
                "tail",
                vec![
                    ("ttftP50", ttft50),
                    ("ttftP95", ttft95),
                    ("ttftP99", q(Metric::Ttft, 0.99)),
                ],
                "tail",
            ));
        }
        let (lag50, lag95) = (q(Metric::Lag, 0.5), q(Metric::Lag, 0.95));
        if matches!((lag50, lag95), (Some(a), Some(b)) if b > 200.0 && b > 4.0 * a.max(1.0)) {
            out.push((
                "client-tail",
                vec![("lagP50", lag50), ("lagP95", lag95)],
                "client-tail",
            ));
        }
        out
    }

    fn export(&self, w: &mut JsonWriter) {
        w.open_array();
        for s in self.statuses {
            w.uint(s);
        }
        w.uint(self.met);
        w.uint(self.judged);
        w.open_array();
        for s in &self.sketches {
            s.export(w);
        }
        w.close_array();
        w.open_array();
        for (v, n) in &self.verdicts {
            w.open_array();
            w.str(v);
            w.uint(*n);
            w.close_array();
        }
        w.close_array();
        w.uint(self.late_tokens);
        w.open_array();
        for (v, n, t, e) in &self.gains {
            w.open_array();
            w.str(v);
            w.uint(*n);
            w.num(*t);
            w.num(*e);
            w.close_array();
        }
        w.close_array();
        w.close_array();
    }

    fn import(sc: &mut Scanner<'_>) -> JsonResult<Group> {
        let mut g = Group::default();
        let mut nums = [0u64; 6];
        sc.array(&mut |sc, i| {
            if i < 6 {
                nums[i] = sc.number()?.max(0.0) as u64;
                Ok(())
            } else if i == 6 {
                sc.array(&mut |sc, _| {
                    g.sketches.push(Sketch::import(sc, |sc| sc.number())?);
                    Ok(())
                })
            } else if i == 7 {
                // Verdict counts (absent from exports made before they were counted).
                sc.array(&mut |sc, _| {
                    let (mut name, mut n) = (String::new(), 0u64);
                    sc.array(&mut |sc, j| match j {
                        0 => sc.string_or_skip(&mut name).map(drop),
                        1 => {
                            n = sc.number()?.max(0.0) as u64;
                            Ok(())
                        }
                        _ => sc.skip(),
                    })?;
                    g.count_verdict(&name, n);
                    Ok(())
                })
            } else if i == 8 {
                g.late_tokens = sc.number()?.max(0.0) as u64;
                Ok(())
            } else if i == 9 {
                // Gains (absent from exports made before they were estimated).
                sc.array(&mut |sc, _| {
                    let (mut name, mut n) = (String::new(), [0f64; 3]);
                    sc.array(&mut |sc, j| match j {
                        0 => sc.string_or_skip(&mut name).map(drop),
                        1..=3 => {
                            n[j - 1] = sc.number()?.max(0.0);
                            Ok(())
                        }
                        _ => sc.skip(),
                    })?;
                    g.count_gain(&name, n[0] as u64, n[1], n[2]);
                    Ok(())
                })
            } else {
                sc.skip()
            }
        })?;
        g.statuses.copy_from_slice(&nums[..4]);
        g.met = nums[4];
        g.judged = nums[5];
        g.sketches.truncate(Metric::ALL.len());
        Ok(g)
    }
}

/// Aggregates of every finished stream of a profiler (and of any summaries merged into it).
///
/// Sampling: a profiler that profiles a fraction `r` of page loads has a summary whose counts
/// are streams sampled at rate `r` (its `rate`). Merging a summary sampled at another rate keeps
/// the percentiles honest by weight: the one sampled at the lower rate stands for more streams,
/// so its counts are multiplied by the ratio of the rates (rounded to a whole number) and the
/// merged counts are in units of the higher rate. `weighted` says that happened.
#[derive(Debug, Clone)]
pub struct Summary {
    all: Group,
    by: [Vec<(String, Group)>; 3],
    slos: Vec<Slo>,
    /// The sample rate the counts are in units of.
    rate: f64,
    /// This profiler's own sample rate.
    own_rate: f64,
    /// Whether summaries sampled at different rates were merged in.
    weighted: bool,
}

impl Default for Summary {
    fn default() -> Self {
        Self {
            all: Group::default(),
            by: Default::default(),
            slos: Vec::new(),
            rate: 1.0,
            own_rate: 1.0,
            weighted: false,
        }
    }
}

/// How many times a stream sampled at `low` counts in units of the rate `high` (≥ 1).
fn weight(high: f64, low: f64) -> u64 {
    let k = (high / low + 0.5) as u64;
    k.max(1)
}

/// A sample rate read from outside: in (0, 1], else 1.
fn valid_rate(r: f64) -> f64 {
    if r > 0.0 && r <= 1.0 {
        r
    } else {
        1.0
    }
}

const BY: [&str; 3] = ["format", "url", "label"];

fn group_for<'a>(groups: &'a mut Vec<(String, Group)>, key: &str) -> &'a mut Group {
    let key = if groups.len() >= MAX_GROUPS && !groups.iter().any(|(k, _)| k == key) {
        "other"
    } else {
        key
    };
    match groups.iter().position(|(k, _)| k == key) {
        Some(i) => &mut groups[i].1,
        None => {
            groups.push((key.to_string(), Group::default()));
            &mut groups.last_mut().expect("just pushed").1
        }
    }
}

impl Summary {
    /// An empty summary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the SLO targets.
    pub fn set_slos(&mut self, slos: Vec<Slo>) {
        self.slos = slos;
    }

    /// Sets this profiler's sample rate (0 < rate ≤ 1; anything else is 1). Only before any
    /// stream was added or merged; later calls change nothing.
    pub fn set_rate(&mut self, rate: f64) {
        if self.all.statuses.iter().all(|&n| n == 0) && !self.weighted {
            self.rate = valid_rate(rate);
            self.own_rate = self.rate;
        }
    }

    /// Takes in one stream. Latency figures come from streams that completed (`ok`): a failed
    /// or cancelled stream's E2E is not an E2E. Every stream is counted by status.
    pub fn add(&mut self, m: &StreamFigures) {
        let k = weight(self.rate, self.own_rate);
        let add = |g: &mut Group, slos: &[Slo]| {
            if k == 1 {
                g.add(m, slos);
            } else {
                let mut one = Group::default();
                one.add(m, slos);
                one.scale(k);
                g.merge(&one);
            }
        };
        add(&mut self.all, &self.slos);
        for (i, key) in [m.format, m.url.as_str(), m.label.as_str()]
            .into_iter()
            .enumerate()
        {
            if !key.is_empty() {
                add(group_for(&mut self.by[i], key), &self.slos);
            }
        }
    }

    /// Counts everything so far `k` times.
    fn scale(&mut self, k: u64) {
        self.all.scale(k);
        for groups in &mut self.by {
            for (_, g) in groups {
                g.scale(k);
            }
        }
    }

    /// The summary as JSON: overall figures at the top, then `by.format`, `by.url`, `by.label`.
    pub fn to_json(&self) -> String {
        let mut w = JsonWriter::new();
        self.all.write(&mut w, &self.slos);
        let mut s = w.finish();
        s.pop(); // reopen the overall object to add the groups
        let mut w = JsonWriter::new();
        w.open_object();
        for (i, name) in BY.iter().enumerate() {
            w.key(name);
            w.open_object();
            for (key, g) in &self.by[i] {
                w.key_str(key);
                g.write(&mut w, &self.slos);
            }
            w.close_object();
        }
        w.close_object();
        s.push_str(",\"by\":");
        s.push_str(&w.finish());
        let mut w = JsonWriter::new();
        w.open_object();
        w.key("sampleRate");
        w.num(self.rate);
        w.key("weighted");
        w.bool(self.weighted);
        w.close_object();
        let tail = w.finish();
        s.push(',');
        // Not `&tail[1..]`: a str slice that could panic brings the panic's char formatting in.
        s.push_str(tail.strip_prefix('{').unwrap_or(&tail));
        s
    }

    /// A compact form that [`Summary::merge_json`] reads back exactly.
    pub fn export(&self) -> String {
        let mut w = JsonWriter::new();
        w.open_object();
        w.key("v");
        w.uint(1);
        w.key("rate");
        w.num(self.rate);
        w.key("weighted");
        w.uint(u64::from(self.weighted));
        w.key("all");
        self.all.export(&mut w);
        for (i, name) in BY.iter().enumerate() {
            w.key(name);
            w.open_object();
            for (key, g) in &self.by[i] {
                w.key_str(key);
                g.export(&mut w);
            }
            w.close_object();
        }
        w.close_object();
        w.finish()
    }

    /// Merges an exported summary into this one; `false` (and no change) if it cannot be read.
    pub fn merge_json(&mut self, exported: &str) -> bool {
        let mut other = Summary::default();
        let mut sc = Scanner::new(exported);
        let mut key_buf = String::new();
        let ok = sc.object(&mut |sc, key| match key {
            b"rate" => {
                other.rate = valid_rate(sc.number()?);
                Ok(())
            }
            b"weighted" => {
                other.weighted = sc.number()? > 0.0;
                Ok(())
            }
            b"all" => {
                other.all = Group::import(sc)?;
                Ok(())
            }
            b"format" | b"url" | b"label" => {
                let i = match key {
                    b"format" => 0,
                    b"url" => 1,
                    _ => 2,
                };
                let groups = &mut other.by[i];
                let mut names = Vec::new();
                sc.object(&mut |sc, name| {
                    key_buf.clear();
                    crate::read::utf8::push_lossy(&mut key_buf, name);
                    names.push((key_buf.clone(), Group::import(sc)?));
                    Ok(())
                })?;
                *groups = names;
                Ok(())
            }
            _ => sc.skip(),
        });
        if ok.is_err() || sc.end().is_err() {
            return false;
        }
        if other.rate < self.rate {
            other.scale(weight(self.rate, other.rate));
            self.weighted = true;
        } else if other.rate > self.rate {
            self.scale(weight(other.rate, self.rate));
            self.rate = other.rate;
            self.weighted = true;
        }
        self.weighted |= other.weighted;
        self.all.merge(&other.all);
        for i in 0..3 {
            for (key, g) in &other.by[i] {
                group_for(&mut self.by[i], key).merge(g);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::diagnosis::{Gain, Verdict};

    fn stream(
        ttft: f64,
        tpot: f64,
        queue: Option<f64>,
        format: &'static str,
        label: &str,
    ) -> StreamFigures {
        use crate::figures::phases::{Breakdown, Phase};
        let ms = [queue, Some(100.0), None, Some(500.0), None, Some(8.0)];
        let names = [
            "queue",
            "prefill",
            "network",
            "decode",
            "intermediary",
            "client",
        ];
        let phases = core::array::from_fn(|i| Phase {
            name: names[i],
            ms: ms[i],
            source: None,
        });
        StreamFigures {
            status: Status::Ok,
            ttft: Some(ttft),
            ttft_perceived: Some((ttft + 5.0, ttft + 10.0)),
            tpot: Some(tpot),
            lag: crate::stats::Samples::Exact(vec![5.0, 15.0]),
            breakdown: Some(Breakdown {
                phases,
                unknown: [None; 6],
                total: 0.0,
                perceived: false,
                unattributed: 0.0,
                intermediary: None,
                first: [None; 7],
                queue_basis: None,
                server_wait: None,
            }),
            format,
            url: "http://x/v1/chat/completions".into(),
            label: label.into(),
            ..StreamFigures::default()
        }
    }

    fn field<'a>(json: &'a str, path: &[&str]) -> &'a str {
        let mut s = json;
        for k in path {
            let at = s
                .find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("{k} in {s}"));
            s = &s[at + k.len() + 3..];
        }
        let end = s.find([',', '}']).unwrap_or(s.len());
        &s[..end]
    }

    #[test]
    fn only_completed_streams_feed_the_percentiles() {
        let mut s = Summary::new();
        for i in 1..=100 {
            s.add(&stream(f64::from(i), 20.0, None, "openai-chat", ""));
        }
        s.add(&StreamFigures {
            status: Status::Error,
            ttft: Some(1e6),
            ..StreamFigures::default()
        });
        let j = s.to_json();
        assert!(
            j.starts_with(
                r#"{"count":100,"streams":{"ok":100,"error":1,"aborted":0,"incomplete":0}"#
            ),
            "{j}"
        );
        let p50: f64 = field(&j, &["ttft", "p50"]).parse().unwrap();
        assert!((p50 - 50.5).abs() <= 0.51, "{p50}");
        assert_eq!(field(&j, &["lag", "count"]), "200");
        assert_eq!(field(&j, &["prefill", "p50"]), "100");
        assert_eq!(field(&j, &["queue", "count"]), "0");
        assert_eq!(field(&j, &["by", "format", "openai-chat", "count"]), "100");
    }

    #[test]
    fn smoothness_over_answers_the_longest_freeze_frames_and_input() {
        use crate::figures::delivery::Stall;
        use crate::figures::smooth::{Frames, Input};
        let mut s = Summary::new();
        for i in 0..10 {
            let mut f = stream(300.0, 20.0, None, "openai-chat", "");
            f.e2e_perceived = Some((1000.0, 1010.0));
            // Nine answers painted without a freeze, one frozen 600 ms (twice, 600 the longest).
            f.stalls = Some(if i == 9 {
                vec![
                    Stall {
                        start: 100.0,
                        end: 300.0,
                    },
                    Stall {
                        start: 400.0,
                        end: 1000.0,
                    },
                ]
            } else {
                vec![]
            });
            f.frames = Some(Frames {
                painted: 60,
                dropped: i,
                fps: 60.0 - f64::from(i),
                interval: 16.7,
                longest_gap: 33.0,
            });
            f.input = (i < 4).then_some(Input {
                count: 3,
                delay_max: 5.0,
                duration_p50: 24.0,
                duration_max: 40.0 + 100.0 * f64::from(i),
                worst_at: 500.0,
            });
            s.add(&f);
        }
        // An answer never painted has no freeze to tell.
        let mut unpainted = stream(300.0, 20.0, None, "openai-chat", "");
        unpainted.stalls = Some(vec![]);
        s.add(&unpainted);
        let j = s.to_json();
        assert_eq!(field(&j, &["freeze", "count"]), "10");
        assert_eq!(field(&j, &["freeze", "p50"]), "0");
        assert_eq!(field(&j, &["freeze", "max"]), "600");
        assert_eq!(field(&j, &["fps", "count"]), "10");
        assert_eq!(field(&j, &["droppedFrames", "max"]), "9");
        assert_eq!(field(&j, &["inputDuration", "count"]), "4");
        assert_eq!(field(&j, &["inputDuration", "max"]), "340");
        // A target on the longest freeze; none on a frame rate (higher is better there).
        assert_eq!(parse_slos("freeze 0.95 500; fps 0.5 50").len(), 1);
    }

    #[test]
    fn groups_by_format_url_and_label() {
        let mut s = Summary::new();
        s.add(&stream(100.0, 20.0, None, "openai-chat", "prod"));
        s.add(&stream(300.0, 20.0, None, "anthropic", "prod"));
        s.add(&stream(500.0, 20.0, None, "anthropic", "canary"));
        let j = s.to_json();
        assert_eq!(field(&j, &["by", "format", "anthropic", "count"]), "2");
        assert_eq!(field(&j, &["by", "label", "prod", "count"]), "2");
        assert_eq!(field(&j, &["by", "label", "canary", "ttft", "max"]), "500");
        assert_eq!(
            field(&j, &["by", "url", "http://x/v1/chat/completions", "count"]),
            "3"
        );
    }

    #[test]
    fn slos_and_goodput() {
        let mut s = Summary::new();
        s.set_slos(parse_slos(
            "ttftPerceived 0.95 1000; tpot 0.5 50; nonsense 1 2; lag x 3",
        ));
        for i in 0..10 {
            s.add(&stream(
                if i < 8 { 400.0 } else { 2000.0 },
                20.0,
                None,
                "openai-chat",
                "",
            ));
        }
        let j = s.to_json();
        assert!(
            j.contains(r#""slo":[{"metric":"ttftPerceived","quantile":0.95,"max":1000,"value":"#),
            "{j}"
        );
        assert!(j.contains(r#""holds":false},{"metric":"tpot","quantile":0.5,"max":50,"value":20,"holds":true}]"#), "{j}");
        assert!(
            j.contains(r#""goodput":{"met":8,"of":10,"share":0.8,"notOk":0}"#),
            "{j}"
        );
    }

    #[test]
    fn failed_and_abandoned_streams_lower_goodput() {
        let mut s = Summary::new();
        s.set_slos(parse_slos("ttftPerceived 0.95 1000"));
        for _ in 0..8 {
            s.add(&stream(400.0, 20.0, None, "openai-chat", ""));
        }
        for status in [Status::Aborted, Status::Error] {
            s.add(&StreamFigures {
                status,
                ..stream(400.0, 20.0, None, "openai-chat", "")
            });
        }
        let j = s.to_json();
        assert!(
            j.contains(r#""goodput":{"met":8,"of":10,"share":0.8,"notOk":2}"#),
            "{j}"
        );
        assert!(j.contains(r#""streams":{"ok":8,"error":1,"aborted":1,"incomplete":0}"#));
    }

    #[test]
    fn summaries_sampled_at_different_rates_merge_by_weight() {
        // Page A profiles every load and saw 9 fast streams; page B profiles 1 load in 10 and
        // saw 1 slow one, which stands for 10. Unweighted, the slow one would be 1 stream in 10
        // and the p50 fast; by weight it is 10 in 19, and the p50 is slow.
        let (mut a, mut b) = (Summary::new(), Summary::new());
        a.set_rate(1.0);
        b.set_rate(0.1);
        for _ in 0..9 {
            a.add(&stream(100.0, 10.0, None, "openai-chat", ""));
        }
        b.add(&stream(1000.0, 10.0, None, "openai-chat", ""));
        assert!(
            b.to_json()
                .ends_with(r#""sampleRate":0.1,"weighted":false}"#),
            "{}",
            b.to_json()
        );
        let exported = b.export();
        let mut merged = a.clone();
        assert!(merged.merge_json(&exported));
        let j = merged.to_json();
        assert!(j.starts_with(r#"{"count":19,"streams":{"ok":19,"#), "{j}");
        assert!(j.ends_with(r#""sampleRate":1,"weighted":true}"#), "{j}");
        let p50: f64 = field(&j, &["ttft", "p50"]).parse().unwrap();
        assert!((p50 - 1000.0).abs() <= 10.0, "{p50}");
        // The other way round: B takes A's summary in; its counts become A's units (rate 1)
        // and its own later streams count 10 times.
        let mut b2 = b.clone();
        assert!(b2.merge_json(&a.export()));
        b2.add(&stream(1000.0, 10.0, None, "openai-chat", ""));
        let j2 = b2.to_json();
        assert!(j2.starts_with(r#"{"count":29,"streams":{"ok":29,"#), "{j2}");
        assert!(j2.ends_with(r#""sampleRate":1,"weighted":true}"#), "{j2}");
        // Weighted stays weighted when merged on, and equal rates merge as they always did.
        let mut c = Summary::new();
        assert!(c.merge_json(&merged.export()));
        assert!(c.to_json().ends_with(r#""weighted":true}"#));
        let mut d = a.clone();
        assert!(d.merge_json(&a.export()));
        assert!(d.to_json().starts_with(r#"{"count":18,"#));
        assert!(d.to_json().ends_with(r#""sampleRate":1,"weighted":false}"#));
    }

    /// Verdicts with gains, two kinds by turns (whole milliseconds, so sums are exact).
    fn gained(i: u32) -> Vec<Verdict> {
        let v = |verdict, ttft: f64, e2e: f64| Verdict {
            verdict,
            evidence: Vec::new(),
            fix_id: "",
            missing: Vec::new(),
            place: None,
            gain: Some(Gain {
                ttft,
                e2e,
                basis: "no-hold",
            }),
        };
        match i % 3 {
            0 => vec![v("client-render-bound", 40.0, 900.0)],
            1 => vec![
                v("intermediary-buffered", 2000.0, 0.0),
                v("decode-stall", 0.0, 500.0),
            ],
            _ => Vec::new(),
        }
    }

    #[test]
    fn gains_add_up_over_streams_and_the_fix_worth_most_comes_first() {
        let mut s = Summary::new();
        for i in 0..6 {
            let mut m = stream(100.0, 10.0, None, "tgi", "");
            m.verdicts = gained(i);
            s.add(&m);
        }
        let j = s.to_json();
        let at = |v: &str| {
            j.find(&format!("{{\"verdict\":\"{v}\",\"streams\""))
                .unwrap_or_else(|| panic!("{v} in {j}"))
        };
        assert!(
            at("intermediary-buffered") < at("client-render-bound"),
            "{j}"
        );
        assert!(at("client-render-bound") < at("decode-stall"), "{j}");
        assert!(j.contains(r#"{"verdict":"intermediary-buffered","streams":2,"ttftPerceived":4000,"e2ePerceived":0}"#), "{j}");
        assert!(j.contains(r#"{"verdict":"client-render-bound","streams":2,"ttftPerceived":80,"e2ePerceived":1800}"#), "{j}");
    }

    #[test]
    fn an_export_merges_exactly() {
        let (mut a, mut b, mut whole) = (Summary::new(), Summary::new(), Summary::new());
        for i in 0..200 {
            let m = stream(
                50.0 + f64::from(i) * 3.7,
                10.0 + f64::from(i % 7),
                Some(f64::from(i)),
                if i % 3 == 0 { "ollama" } else { "tgi" },
                "l\"1",
            );
            let mut m = m;
            m.verdicts = gained(i);
            if i % 2 == 0 {
                a.add(&m)
            } else {
                b.add(&m)
            }
            whole.add(&m);
        }
        let exported = b.export();
        assert!(a.merge_json(&exported));
        assert_eq!(a.to_json(), whole.to_json());
        assert!(!a.merge_json("{\"all\":[1,2"));
        assert!(!a.merge_json("garbage"));
        assert_eq!(
            a.to_json(),
            whole.to_json(),
            "a failed merge changes nothing"
        );
    }

    #[test]
    fn many_streams_fast_alone_but_queued_is_capacity() {
        let mut s = Summary::new();
        for i in 0..40 {
            let queue = if i % 4 == 0 { 3000.0 } else { 10.0 };
            s.add(&stream(300.0 + queue, 20.0, Some(queue), "openai-chat", ""));
        }
        let j = s.to_json();
        assert!(j.contains(r#""diagnosis":[{"verdict":"capacity""#), "{j}");
        let mut healthy = Summary::new();
        for _ in 0..40 {
            healthy.add(&stream(300.0, 20.0, Some(10.0), "openai-chat", ""));
        }
        assert!(healthy.to_json().contains(r#""diagnosis":[]"#));
    }
}
