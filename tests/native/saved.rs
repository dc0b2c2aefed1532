//! A saved timeline (src/saved.rs) analysed again gives the live report, over random streams:
//! every format's framing, reasoning, tool calls, usage and server timings, errors, decimated
//! detail, hidden pages, Resource Timing, long frames, the user's inputs, a conversation's
//! baseline, and every way a stream ends. And the summary of the re-analysed streams is the live
//! summary. A saved timeline that cannot be read gives a typed error, never a report.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tokenpaint::saved::{self, SavedError};
use tokenpaint::streams::{Config, Streams};
use tokenpaint::timeline::entries::{LongFrame, ResourceEntry};
use tokenpaint::timeline::session::EndKind;

#[derive(Debug, Clone)]
struct Stream {
    /// 0 OpenAI chat (SSE), 1 Ollama (NDJSON), 2 plain text, 3 Anthropic (SSE).
    format: usize,
    /// Each delta: its text length, the ms since the one before, whether it is reasoning.
    deltas: Vec<(usize, f64, bool)>,
    /// Deltas per chunk.
    per_chunk: usize,
    /// The page renders this many ms after a chunk (None: it never renders).
    render_lag: Option<f64>,
    paint_lag: f64,
    hidden: Option<(f64, f64)>,
    resource: bool,
    inputs: Vec<(f64, f64, f64)>,
    usage: bool,
    error: bool,
    end: u8,
    keep_text: bool,
    prior_chars: f64,
    learned: bool,
}

fn stream() -> impl Strategy<Value = Stream> {
    (
        (
            0usize..4,
            prop::collection::vec(
                (1usize..12, 0.0f64..80.0, prop::bool::weighted(0.15)),
                0..160,
            ),
            1usize..6,
            prop::option::weighted(0.85, 1.0f64..120.0),
            1.0f64..40.0,
            prop::option::weighted(0.2, (0.0f64..800.0, 10.0f64..600.0)),
        ),
        (
            any::<bool>(),
            prop::collection::vec((0.0f64..3000.0, 0.0f64..50.0, 5.0f64..200.0), 0..4),
            any::<bool>(),
            prop::bool::weighted(0.1),
            0u8..3,
            any::<bool>(),
            prop_oneof![Just(f64::NAN), 0.0f64..20_000.0],
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (format, deltas, per_chunk, render_lag, paint_lag, hidden),
                (resource, inputs, usage, error, end, keep_text, prior_chars, learned),
            )| Stream {
                format,
                deltas,
                per_chunk,
                render_lag,
                paint_lag,
                hidden,
                resource,
                inputs,
                usage,
                error,
                end,
                keep_text,
                prior_chars,
                learned,
            },
        )
}

fn text_of(n: usize, i: usize) -> String {
    let mut s = format!(" w{i}");
    while s.len() < n {
        s.push('x');
    }
    s
}

/// The events of one delta in the stream's format.
fn event(format: usize, text: &str, reasoning: bool) -> String {
    match (format, reasoning) {
        (0, false) => format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n"),
        (0, true) => format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"reasoning_content\":\"{text}\"}}}}]}}\n\n"),
        (1, _) => format!("{{\"model\":\"m\",\"message\":{{\"role\":\"assistant\",\"content\":\"{text}\"}},\"done\":false}}\n"),
        (2, _) => text.to_string(),
        (_, false) => format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{text}\"}}}}\n\n"),
        (_, true) => format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"thinking_delta\",\"thinking\":\"{text}\"}}}}\n\n"),
    }
}

fn tail(format: usize, usage: bool, error: bool) -> String {
    let mut s = String::new();
    if error && format == 0 {
        s.push_str("data: {\"error\":{\"code\":\"overloaded\",\"message\":\"try later\"}}\n\n");
    }
    match format {
        0 if usage => s.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":40},\"timings\":{\"prompt_ms\":35.5,\"predicted_ms\":410.25}}\n\ndata: [DONE]\n\n"),
        0 => s.push_str("data: [DONE]\n\n"),
        1 => s.push_str("{\"model\":\"m\",\"done\":true,\"prompt_eval_count\":9,\"eval_count\":33,\"prompt_eval_duration\":21000000,\"eval_duration\":390000000,\"load_duration\":1000000,\"total_duration\":420000000}\n"),
        3 => s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"),
        _ => {}
    }
    if error && format == 1 {
        s.push_str("{not json\n");
    }
    s
}

/// Plays `st` into `s` from `t0`; returns its id and when it ended.
fn play(s: &mut Streams, st: &Stream, t0: f64, seq: &mut u32) -> (u32, f64) {
    let (format, ct) = match st.format {
        0 => ("auto", "text/event-stream"),
        1 => ("auto", "application/x-ndjson"),
        2 => ("text", "text/plain"),
        _ => ("anthropic", "text/event-stream"),
    };
    let headers = if st.format == 0 {
        "server: nginx\ncontent-encoding: gzip"
    } else {
        ""
    };
    let id = s.open(format, ct, headers, "/v1/x", t0, t0 + 40.0, 200);
    s.describe(
        id,
        "label",
        "fetch",
        "",
        st.keep_text,
        false,
        st.prior_chars,
        st.learned,
    );
    if st.resource {
        s.resource(
            id,
            ResourceEntry {
                start: t0,
                dns: (Some(t0 + 1.0), Some(t0 + 3.0)),
                connect: (Some(t0 + 3.0), Some(t0 + 9.0)),
                request_start: Some(t0 + 9.5),
                response_start: Some(t0 + 38.0),
                response_end: None,
            },
        );
    }
    let mut t = t0 + 60.0;
    let mut shown = String::new();
    let mut pending = String::new();
    for (i, chunk) in st.deltas.chunks(st.per_chunk).enumerate() {
        let mut bytes = String::new();
        for (j, &(n, gap, reasoning)) in chunk.iter().enumerate() {
            t += gap;
            let text = text_of(n, i * st.per_chunk + j);
            bytes.push_str(&event(st.format, &text, reasoning && st.format != 2));
            if !reasoning || st.format == 2 || st.format == 1 {
                pending.push_str(&text);
            }
        }
        s.chunk(id, bytes.as_bytes(), t, false, f64::NAN);
        if let Some(lag) = st.render_lag {
            shown.push_str(&pending);
            pending.clear();
            let at = t + lag;
            s.rendered(id, &shown, 0, at);
            // A long frame on every fifth render.
            if i % 5 == 4 {
                *seq += 1;
                s.long_frame(LongFrame {
                    seq: *seq,
                    start: at - 2.0,
                    duration: 90.0,
                    blocking: 40.0,
                });
            }
            s.painted(at + 1.0, at + 2.0, at + st.paint_lag, at - 16.0);
        }
    }
    if let Some((a, len)) = st.hidden {
        s.hidden(t0 + a, t0 + a + len);
    }
    let triplets: Vec<f64> = st
        .inputs
        .iter()
        .flat_map(|&(a, d, dur)| [t0 + a, d, dur])
        .collect();
    s.inputs(id, &triplets);
    s.frames(id, &[t0 + 100.0, t0 + 116.7, t0 + 133.4]);
    t += 5.0;
    s.chunk(
        id,
        tail(st.format, st.usage, st.error).as_bytes(),
        t,
        false,
        f64::NAN,
    );
    let kind = match st.end {
        0 => EndKind::Complete,
        1 => EndKind::Aborted,
        _ => EndKind::Failed,
    };
    t += 3.0;
    s.end(id, kind, t, if st.end == 2 { "network error" } else { "" });
    (id, t)
}

/// The report without its `saved`, and the saved timeline.
fn split(report: &str) -> (String, String) {
    let at = report
        .rfind(",\"saved\":")
        .expect("the report carries its saved timeline");
    let saved = report[at + ",\"saved\":".len()..report.len() - 1].to_string();
    (format!("{}}}", &report[..at]), saved)
}

const CONFIG: &str = "paint=1\nlongFrames=1\neventTiming=1\nlate=40\ntimer=0.1\n\
                      thresholds=ttft 800 2000; lag 40 150\ndetail=64\nsampleRate=0.5\n\
                      slo=ttftPerceived 0.95 1000";

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_saved_timeline_analysed_again_gives_the_live_report_and_summary(
        streams in prop::collection::vec(stream(), 1..4),
        timeline in any::<bool>(),
    ) {
        let mut live = Streams::default();
        live.configure(&Config::parse(CONFIG));
        let mut again = Streams::default();
        again.configure(&Config::parse(CONFIG));
        let mut t0 = 1000.0;
        let mut seq = 0;
        for st in &streams {
            let (id, end) = play(&mut live, st, t0, &mut seq);
            let figures = format!("{:?}", live.figures(id).expect("open"));
            let report = live.finish(id, timeline, true).expect("a report");
            let (report, saved) = split(&report);
            // The figures are the live ones at full precision, not only to the report's
            // rounding: every time reads back bit for bit (Debug writes a double's shortest
            // round-trip form).
            let (_, again_figures) = saved::analyse(&saved).expect("a saved timeline reads");
            prop_assert_eq!(format!("{:?}", again_figures), figures);
            let analysed = again.analyse(&saved);
            prop_assert_eq!(analysed.as_deref(), Ok(report.as_str()));
            // Saving is not part of the figures: the same stream without it reports the same.
            t0 = end + 500.0;
        }
        prop_assert_eq!(again.summary(), live.summary());
    }
}

#[test]
fn a_report_is_saved_only_when_asked() {
    let mut s = Streams::default();
    let st = Stream {
        format: 0,
        deltas: vec![(4, 10.0, false); 5],
        per_chunk: 1,
        render_lag: Some(5.0),
        paint_lag: 8.0,
        hidden: None,
        resource: false,
        inputs: vec![],
        usage: true,
        error: false,
        end: 0,
        keep_text: false,
        prior_chars: f64::NAN,
        learned: false,
    };
    let mut seq = 0;
    let (a, _) = play(&mut s, &st, 1000.0, &mut seq);
    let (b, _) = play(&mut s, &st, 3000.0, &mut seq);
    assert!(!s.finish(a, false, false).unwrap().contains("\"saved\""));
    let with = s.finish(b, false, true).unwrap();
    let (_, saved) = split(&with);
    assert!(
        saved.starts_with("{\"tokenpaint\":\"timeline\",\"version\":1,"),
        "{saved}"
    );
    // No content unless the page opted in: the words of the answer are not in it.
    assert!(!saved.contains(" w1"), "{saved}");
}

#[test]
fn what_is_not_a_saved_timeline_gives_a_typed_error() {
    let mut s = Streams::default();
    let cases: [(&str, SavedError); 6] = [
        ("", SavedError::Malformed),
        (
            "{\"tokenpaint\":\"timeline\",\"version\":1",
            SavedError::Malformed,
        ),
        (
            "{\"tokenpaint\":\"reports\",\"version\":1,\"stream\":{}}",
            SavedError::NotATimeline,
        ),
        ("{\"id\":3,\"diagnosis\":[]}", SavedError::NotATimeline),
        (
            "{\"tokenpaint\":\"timeline\",\"version\":2,\"stream\":{}}",
            SavedError::NewerVersion,
        ),
        (
            "{\"tokenpaint\":\"timeline\",\"version\":1,\"stream\":{\"records\":[[1,2]]}}",
            SavedError::Malformed,
        ),
    ];
    for (text, want) in cases {
        assert_eq!(saved::read(text).err(), Some(want), "{text}");
        assert_eq!(s.analyse(text), Err(want), "{text}");
    }
    assert!(
        s.summary().contains("\"count\":0"),
        "nothing joined the summary"
    );
    // The least a timeline holds: a stream that never sent a byte reads, and reports.
    let least = "{\"tokenpaint\":\"timeline\",\"version\":1,\"stream\":{\"start\":5}}";
    let r = s.analyse(least).expect("a report");
    assert!(r.starts_with('{') && r.contains("\"diagnosis\""), "{r}");
}
