//! The `Server-Timing` header (W3C Server Timing, <https://w3c.github.io/server-timing/>):
//! `name;dur=12.5;desc="text", other;dur=3`. Several headers are joined with commas. Parsing is
//! lenient, as the specification's processing model asks: a malformed entry is skipped, a
//! parameter seen twice keeps its first value, a `dur` that is not a number is ignored (here:
//! unknown, not zero), quoted strings may hold commas, semicolons and escaped quotes.
//!
//! tokenpaint reads the metrics it knows into [`ServerTimings`] by name (case-insensitive):
//! `queue`, `prefill`, `decode`, `ttft`, `total`, `load` and a few common aliases. The same
//! syntax is accepted in an SSE event of type `server-timing`, for servers that can only say
//! how long generation took once it is over.

use crate::prelude::*;

use crate::read::wire::ServerTimings;

/// One metric: its name, duration (ms) if given as a number, description if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// The metric name.
    pub name: String,
    /// `dur`, in ms.
    pub dur: Option<f64>,
    /// `desc`.
    pub desc: Option<String>,
}

/// Parses a header value (or several joined with commas). Never fails: what cannot be read is
/// skipped.
pub fn parse(header: &str) -> Vec<Metric> {
    let mut out = Vec::new();
    for entry in split_outside_quotes(header, ',') {
        let mut parts = split_outside_quotes(entry, ';').into_iter();
        let name = parts.next().unwrap_or("").trim();
        if name.is_empty() || !name.bytes().all(is_token_byte) {
            continue;
        }
        let mut m = Metric {
            name: name.to_string(),
            dur: None,
            desc: None,
        };
        let (mut seen_dur, mut seen_desc) = (false, false);
        for param in parts {
            let (key, value) = match param.split_once('=') {
                Some((k, v)) => (k.trim(), unquote(v.trim())),
                None => (param.trim(), String::new()),
            };
            if key.eq_ignore_ascii_case("dur") && !seen_dur {
                seen_dur = true;
                m.dur = number(&value);
            } else if key.eq_ignore_ascii_case("desc") && !seen_desc {
                seen_desc = true;
                m.desc = Some(crate::read::utf8::prefix(&value, 200).into());
            }
        }
        out.push(m);
        if out.len() >= 64 {
            break;
        }
    }
    out
}

/// The timings tokenpaint knows, from a header value.
pub fn timings(header: &str) -> ServerTimings {
    let mut t = ServerTimings::default();
    for m in parse(header) {
        let Some(dur) = m.dur else { continue };
        let slot = match m.name.to_ascii_lowercase().as_str() {
            "queue" | "queue_time" | "queue-time" | "q" => &mut t.queue_ms,
            "prefill" | "prompt" | "prompt_eval" | "prefill_time" => &mut t.prefill_ms,
            "ttft" | "time_to_first_token" => &mut t.ttft_ms,
            "decode" | "generation" | "gen" | "eval" | "decode_time" => &mut t.decode_ms,
            "itl" | "tpot" => &mut t.itl_ms,
            "load" | "load_time" => &mut t.load_ms,
            "total" | "e2e" | "app" => &mut t.total_ms,
            _ => continue,
        };
        slot.get_or_insert(dur);
    }
    t
}

/// TGI's response headers (`x-queue-time`, `x-inference-time`, `x-time-per-token`, in ms),
/// from `name: value` lines.
pub fn tgi_headers(headers: &str) -> ServerTimings {
    let mut t = ServerTimings::default();
    for line in headers.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let v = number(value.trim());
        match name.trim() {
            "x-queue-time" => t.queue_ms = v,
            "x-inference-time" => t.total_ms = v,
            "x-time-per-token" => t.itl_ms = v,
            _ => {}
        }
    }
    t
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() || s.len() > 32 {
        return None;
    }
    let mut sc = crate::read::jsonscan::Scanner::new(s);
    let v = sc.number().ok()?;
    sc.end().ok()?;
    v.is_finite().then_some(v)
}

fn unquote(v: &str) -> String {
    let Some(inner) = v.strip_prefix('"') else {
        return v.to_string();
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Splits on `sep` outside double-quoted strings (with backslash escapes).
fn split_outside_quotes(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if quoted && c == '\\' {
            escaped = true;
        } else if c == '"' {
            quoted = !quoted;
        } else if c == sep && !quoted {
            // `get`, not indexing: the bounds are char boundaries, and a str slice that could
            // panic brings the panic's formatting of chars into the module (about 1 KB gzip).
            out.push(s.get(start..i).unwrap_or_default());
            start = i + c.len_utf8();
        }
    }
    out.push(s.get(start..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_durations_and_descriptions() {
        let m = parse(
            r#"queue;dur=12.5;desc="waiting, for a slot", prefill;dur=80, cache;desc=hit, decode;dur=1e3"#,
        );
        assert_eq!(m.len(), 4);
        assert_eq!(
            (m[0].name.as_str(), m[0].dur, m[0].desc.as_deref()),
            ("queue", Some(12.5), Some("waiting, for a slot"))
        );
        assert_eq!(
            (m[2].name.as_str(), m[2].dur, m[2].desc.as_deref()),
            ("cache", None, Some("hit"))
        );
        assert_eq!(m[3].dur, Some(1000.0));
    }

    #[test]
    fn garbage_is_tolerated() {
        let m = parse(
            r#"ok;dur=1, ;dur=2, bad name;dur=3, x;dur=abc, y;dur=5;dur=6, "q;dur=7", z;desc="a \"quoted\" \; one";dur=8,,"#,
        );
        let names: Vec<_> = m.iter().map(|m| (m.name.as_str(), m.dur)).collect();
        assert_eq!(
            names,
            vec![
                ("ok", Some(1.0)),
                ("x", None),
                ("y", Some(5.0)),
                ("z", Some(8.0))
            ]
        );
        assert_eq!(m[3].desc.as_deref(), Some("a \"quoted\" ; one"));
        assert!(parse("").is_empty());
        assert_eq!(parse(&"a;dur=1,".repeat(1000)).len(), 64);
    }

    #[test]
    fn known_metrics_become_timings() {
        let t =
            timings("Queue;dur=40, prefill;dur=120.5, decode;dur=900, other;dur=5, total;dur=1100");
        assert_eq!(
            (t.queue_ms, t.prefill_ms, t.decode_ms, t.total_ms),
            (Some(40.0), Some(120.5), Some(900.0), Some(1100.0))
        );
        assert_eq!(
            timings("queue;desc=x").queue_ms,
            None,
            "no duration is unknown, not zero"
        );
        let tgi = tgi_headers(
            "x-queue-time: 12\nx-inference-time: 400\nx-time-per-token: 20\nother: 1\n",
        );
        assert_eq!(
            (tgi.queue_ms, tgi.total_ms, tgi.itl_ms),
            (Some(12.0), Some(400.0), Some(20.0))
        );
    }
}
