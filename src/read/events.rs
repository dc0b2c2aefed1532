//! A stream's events for the shell's learner (`js/transports/learn.js`), framed by the same
//! readers as every stream the core reads (issue 58: one path for bytes): server-sent events by
//! [`SseFramer`], lines by [`LineFramer`], anything else decoded as UTF-8 text, each chunk an
//! event. The framing comes from the content type, else from the first bytes, as a session's.
//!
//! Events are handed over as one string: for each, the length of its name in UTF-16 code units,
//! `:`, the name, the length of its data, `:`, the data (`5:delta7:{"a":1}`). Lengths in code
//! units are what JavaScript slices by, and no character of the data needs escaping.

use crate::prelude::*;

use crate::read::lines::{LineFramer, LineItem};
use crate::read::sse::{SseFramer, SseItem};
use crate::read::utf8::Utf8Decoder;
use crate::read::wire::detect::{sniff_bytes, sniff_framing, Detected};
use crate::read::wire::Framing;

#[derive(Debug)]
enum Kind {
    Undecided,
    Sse(SseFramer),
    Lines(LineFramer),
    Text(Utf8Decoder),
}

impl Kind {
    fn of(framing: Framing) -> Kind {
        match framing {
            Framing::Sse => Kind::Sse(SseFramer::default()),
            // A JSON body is read as lines: most stream JSON objects one per line.
            Framing::Lines | Framing::Document => Kind::Lines(LineFramer::default()),
            Framing::Text => Kind::Text(Utf8Decoder::new()),
        }
    }
}

/// The events of one stream, as the core frames them.
#[derive(Debug)]
pub struct EventFramer {
    kind: Kind,
    text: String,
}

impl EventFramer {
    /// A framer for a response of `content_type`.
    pub fn new(content_type: &str) -> EventFramer {
        let kind = match sniff_framing(content_type, "") {
            Detected::Framing(f) => Kind::of(f),
            Detected::Format(f) => Kind::of(f.framing()),
            Detected::Sniff => Kind::Undecided,
        };
        EventFramer {
            kind,
            text: String::new(),
        }
    }

    /// The events `bytes` complete, appended to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut String) {
        if bytes.is_empty() {
            return;
        }
        if let Kind::Undecided = self.kind {
            self.kind = Kind::of(sniff_bytes(bytes));
        }
        match &mut self.kind {
            Kind::Sse(f) => f.feed(bytes, &mut |item| {
                if let SseItem::Event(e) = item {
                    // The default type, `message`, is no name: the learner's paths begin with a
                    // name only where the stream gives one.
                    push(out, if e.event == "message" { "" } else { e.event }, e.data);
                }
            }),
            Kind::Lines(f) => f.feed(bytes, &mut |item| {
                if let LineItem::Line(line) = item {
                    push(out, "", line);
                }
            }),
            Kind::Text(d) => {
                self.text.clear();
                d.decode(bytes, &mut self.text);
                if !self.text.is_empty() {
                    push(out, "", &self.text);
                }
            }
            Kind::Undecided => {}
        }
    }

    /// The stream ended: a last line without its terminator is an event; an SSE event without
    /// its blank line is not (the WHATWG rule).
    pub fn finish(&mut self, out: &mut String) {
        match &mut self.kind {
            Kind::Sse(f) => {
                f.finish();
            }
            Kind::Lines(f) => f.finish(&mut |item| {
                if let LineItem::Line(line) = item {
                    push(out, "", line);
                }
            }),
            Kind::Text(d) => {
                self.text.clear();
                d.finish(&mut self.text);
                if !self.text.is_empty() {
                    push(out, "", &self.text);
                }
            }
            Kind::Undecided => {}
        }
    }
}

fn push(out: &mut String, name: &str, data: &str) {
    for s in [name, data] {
        crate::jsonwrite::write_u64(out, s.encode_utf16().count() as u64);
        out.push(':');
        out.push_str(s);
    }
}

/// The events of `encoded` (as [`EventFramer`] writes them), for tests.
#[cfg(test)]
pub fn decode(encoded: &str) -> Vec<(String, String)> {
    let units: Vec<u16> = encoded.encode_utf16().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut field = || -> Option<String> {
        let mut n = 0usize;
        while i < units.len() && units[i] != u16::from(b':') {
            n = n * 10 + usize::from(units[i] - u16::from(b'0'));
            i += 1;
        }
        i += 1;
        let s = String::from_utf16(units.get(i..i + n)?).ok()?;
        i += n;
        Some(s)
    };
    while let (Some(name), Some(data)) = (field(), field()) {
        out.push((name, data));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(content_type: &str, parts: &[&[u8]]) -> Vec<(String, String)> {
        let mut f = EventFramer::new(content_type);
        let mut out = String::new();
        for p in parts {
            f.feed(p, &mut out);
        }
        f.finish(&mut out);
        decode(&out)
    }

    fn pair(name: &str, data: &str) -> (String, String) {
        (name.into(), data.into())
    }

    #[test]
    fn sse_at_every_split_point_gives_the_events_of_the_whole() {
        let src = "\u{feff}event: a\r\ndata: {\"x\":\"na\u{ef}ve \u{1F600}\"}\r\n\r\ndata: two\rdata: lines\r\r: comment\n\ndata: end\n\ndata: unterminated";
        let whole = framed("text/event-stream", &[src.as_bytes()]);
        assert_eq!(
            whole,
            [
                pair("a", "{\"x\":\"na\u{ef}ve \u{1F600}\"}"),
                pair("", "two\nlines"),
                pair("", "end")
            ]
        );
        let b = src.as_bytes();
        for i in 1..b.len() {
            for j in i..b.len() {
                assert_eq!(
                    framed("text/event-stream", &[&b[..i], &b[i..j], &b[j..]]),
                    whole,
                    "split at {i} and {j}"
                );
            }
        }
    }

    #[test]
    fn lines_flush_the_last_line_at_the_end_and_sniffing_picks_the_framing() {
        let src = "{\"a\":1}\n{\"b\":\"\u{6771}\u{4eac}\"}\r\n{\"c\":3}";
        let whole = framed("application/x-ndjson", &[src.as_bytes()]);
        assert_eq!(
            whole,
            [
                pair("", "{\"a\":1}"),
                pair("", "{\"b\":\"\u{6771}\u{4eac}\"}"),
                pair("", "{\"c\":3}")
            ]
        );
        let b = src.as_bytes();
        for i in 1..b.len() {
            assert_eq!(framed("", &[&b[..i], &b[i..]]), whole, "split at {i}");
        }
        // No content type: SSE is sniffed from the first bytes, text is decoded chunk by chunk.
        assert_eq!(framed("", &[b"data: x\n\n"]), [pair("", "x")]);
        let text = framed(
            "text/plain",
            &[
                "na\u{ef}ve".as_bytes()[..3].as_ref(),
                "na\u{ef}ve".as_bytes()[3..].as_ref(),
            ],
        );
        assert_eq!(
            text.iter().map(|(_, d)| d.as_str()).collect::<String>(),
            "na\u{ef}ve"
        );
    }
}
