//! Percentiles over finished streams, from mergeable sketches.

use crate::jsonwrite::JsonWriter;
use crate::report::{Metrics, Status};
use crate::sketch::Sketch;

/// Aggregates of every finished stream of a profiler.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    statuses: [u64; 4],
    ttft: Sketch,
    ttft_perceived: Sketch,
    e2e: Sketch,
    e2e_perceived: Sketch,
    tpot: Sketch,
    itl: Sketch,
    lag: Sketch,
}

fn add(s: &mut Sketch, v: Option<f64>) {
    if let Some(v) = v {
        s.add(v);
    }
}

impl Summary {
    /// An empty summary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in one stream. Latency figures are taken from streams that completed (`ok`): a
    /// failed or cancelled stream's E2E is not an E2E. Every stream is counted by status.
    pub fn add(&mut self, m: &Metrics) {
        let status = m.status.unwrap_or(Status::Incomplete);
        self.statuses[status as usize] += 1;
        if status != Status::Ok {
            return;
        }
        add(&mut self.ttft, m.ttft);
        add(&mut self.ttft_perceived, m.ttft_perceived);
        add(&mut self.e2e, m.e2e);
        add(&mut self.e2e_perceived, m.e2e_perceived);
        add(&mut self.tpot, m.tpot);
        m.itl.iter().for_each(|&v| self.itl.add(v));
        m.lag.iter().for_each(|&v| self.lag.add(v));
    }

    /// The summary as JSON: streams by status, and per metric count, p50/p90/p95/p99, max.
    pub fn to_json(&self) -> String {
        let mut w = JsonWriter::new();
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
        for (name, s) in [
            ("ttft", &self.ttft),
            ("ttftPerceived", &self.ttft_perceived),
            ("e2e", &self.e2e),
            ("e2ePerceived", &self.e2e_perceived),
            ("tpot", &self.tpot),
            ("itl", &self.itl),
            ("lag", &self.lag),
        ] {
            w.key(name);
            w.open_object();
            w.key("count");
            w.uint(s.count());
            for (q, k) in [(0.5, "p50"), (0.9, "p90"), (0.95, "p95"), (0.99, "p99")] {
                w.key(k);
                w.opt_num(s.quantile(q));
            }
            w.key("max");
            w.opt_num(s.max());
            w.close_object();
        }
        w.close_object();
        w.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_completed_streams_feed_the_percentiles() {
        let mut s = Summary::new();
        for i in 1..=100 {
            s.add(&Metrics {
                status: Some(Status::Ok),
                ttft: Some(f64::from(i)),
                lag: vec![5.0, 15.0],
                ..Metrics::default()
            });
        }
        s.add(&Metrics {
            status: Some(Status::Error),
            ttft: Some(1e6),
            ..Metrics::default()
        });
        let j = s.to_json();
        assert!(
            j.starts_with(
                r#"{"count":100,"streams":{"ok":100,"error":1,"aborted":0,"incomplete":0}"#
            ),
            "{j}"
        );
        // p50 of 1..=100 interpolates ranks 49 and 50: 50.5, within 1%.
        let ttft = &j[j.find("\"ttft\":").unwrap()..];
        assert!(
            ttft.starts_with(r#""ttft":{"count":100,"p50":50"#)
                || ttft.starts_with(r#""ttft":{"count":100,"p50":49.9"#),
            "{ttft}"
        );
        assert!(ttft.contains(r#""max":100}"#));
        assert!(j.contains(r#""lag":{"count":200,"#));
        assert!(j.contains(
            r#""tpot":{"count":0,"p50":null,"p90":null,"p95":null,"p99":null,"max":null}"#
        ));
    }
}
