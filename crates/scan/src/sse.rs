//! Server-sent events framing, as the WHATWG HTML Standard's "Parsing an event stream"
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>).
//!
//! Bytes go in with [`SseFramer::feed`], whatever their chunking; events come out through a
//! callback. Lines end in CR, LF or CRLF; a CRLF split across two chunks is one terminator, so
//! a chunk ending in CR remembers to drop a leading LF of the next chunk. A CR is a terminator
//! at once (Chromium's EventSource agrees: `data: b\r\r` at the very end is a complete event).
//! A partial line is buffered until its terminator arrives, never re-scanned. Lines are decoded
//! as UTF-8 once they are complete, so a multibyte character split across chunks is whole.

use alloc::string::String;
use alloc::vec::Vec;

/// One dispatched event: the event type (`message` unless an `event` field named it) and the
/// data lines joined with LF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event` field, or `message`.
    pub event: &'a str,
    /// The `data` lines joined with `\n`.
    pub data: &'a str,
}

/// Something a framer can report besides events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseError {
    /// A line grew past the configured limit; it was dropped up to its terminator.
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// An event's data grew past the configured limit; the event was dropped.
    EventTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
}

/// What the framer hands to its callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseItem<'a> {
    /// A complete event.
    Event(SseEvent<'a>),
    /// A typed error; framing continues after it.
    Error(SseError),
}

/// The default limit for one line and for one event's data: 1 MiB.
pub const DEFAULT_MAX_LINE: usize = 1 << 20;

/// An incremental SSE parser.
#[derive(Debug, Clone)]
pub struct SseFramer {
    line: Vec<u8>,
    data: String,
    event: String,
    last_event_id: String,
    retry: Option<u64>,
    max_line: usize,
    /// The previous chunk ended in CR: a LF at the start of the next chunk completes a CRLF.
    skip_lf: bool,
    /// No line has been processed yet: a BOM may start the stream, and only there.
    at_start: bool,
    /// The current line passed `max_line`: drop it up to its terminator.
    discarding: bool,
    /// The current event's data passed the limit: drop it when it is dispatched.
    oversized: bool,
}

impl Default for SseFramer {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE)
    }
}

impl SseFramer {
    /// A framer whose lines and event data may each hold at most `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        SseFramer {
            line: Vec::new(),
            data: String::new(),
            event: String::new(),
            last_event_id: String::new(),
            retry: None,
            max_line,
            skip_lf: false,
            at_start: true,
            discarding: false,
            oversized: false,
        }
    }

    /// The last event ID the stream set (the `id` field), as EventSource keeps it.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time the stream asked for (the `retry` field), in ms.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Bytes held between calls (the partial line, the current event's data and type): each is
    /// bounded by the limit, whatever the input.
    pub fn buffered(&self) -> usize {
        self.line.len() + self.data.len() + self.event.len()
    }

    /// Feeds one chunk of the byte stream.
    pub fn feed(&mut self, chunk: &[u8], on: &mut dyn FnMut(SseItem<'_>)) {
        let mut rest = chunk;
        if self.skip_lf && !rest.is_empty() {
            self.skip_lf = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while !rest.is_empty() {
            let Some(i) = crate::find::find2(rest, b'\n', b'\r') else {
                self.buffer(rest, on);
                return;
            };
            if self.line.is_empty() && !self.discarding && i <= self.max_line {
                // The whole line is in this chunk: no copy.
                self.process_line(&rest[..i], on);
            } else {
                self.buffer(&rest[..i], on);
                let line = core::mem::take(&mut self.line);
                if !core::mem::replace(&mut self.discarding, false) {
                    self.process_line(&line, on);
                }
                self.line = line;
                self.line.clear();
            }
            let terminator = rest[i];
            rest = &rest[i + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
        }
    }

    /// Ends the stream. An event without its final blank line is discarded, as the standard
    /// says; returns whether anything (a partial line or event) was discarded.
    pub fn finish(&mut self) -> bool {
        let discarded = !self.line.is_empty() || !self.data.is_empty() || self.discarding;
        self.line.clear();
        self.data.clear();
        self.event.clear();
        self.discarding = false;
        self.oversized = false;
        discarded
    }

    fn buffer(&mut self, bytes: &[u8], on: &mut dyn FnMut(SseItem<'_>)) {
        if self.discarding {
            return;
        }
        if self.line.len() + bytes.len() > self.max_line {
            self.line.clear();
            self.discarding = true;
            on(SseItem::Error(SseError::LineTooLong {
                limit: self.max_line,
            }));
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn process_line(&mut self, mut line: &[u8], on: &mut dyn FnMut(SseItem<'_>)) {
        if core::mem::replace(&mut self.at_start, false) && line.starts_with(b"\xEF\xBB\xBF") {
            line = &line[3..];
        }
        if line.is_empty() {
            self.dispatch(on);
            return;
        }
        if line[0] == b':' {
            return; // a comment
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.oversized {
                    return;
                }
                // Limits apply to the decoded text: an invalid byte becomes a 3-byte U+FFFD.
                crate::utf8::push_lossy(&mut self.data, value);
                self.data.push('\n');
                if self.data.len() > self.max_line {
                    self.oversized = true;
                    self.data = String::new();
                    on(SseItem::Error(SseError::EventTooLarge {
                        limit: self.max_line,
                    }));
                }
            }
            b"event" => {
                self.event.clear();
                crate::utf8::push_lossy(&mut self.event, value);
                if self.event.len() > self.max_line {
                    let mut cut = self.max_line;
                    while !self.event.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    self.event.truncate(cut);
                }
            }
            // "If the field value does not contain U+0000 NULL, then set the last event ID
            // buffer to the field value. Otherwise, ignore the field."
            b"id" if !value.contains(&0) => {
                self.last_event_id.clear();
                crate::utf8::push_lossy(&mut self.last_event_id, value);
            }
            // Only ASCII digits; anything else is ignored.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = value.iter().fold(0u64, |acc, d| {
                    acc.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                });
                self.retry = Some(ms);
            }
            _ => {} // unknown fields are ignored
        }
    }

    fn dispatch(&mut self, on: &mut dyn FnMut(SseItem<'_>)) {
        if core::mem::replace(&mut self.oversized, false) || self.data.is_empty() {
            self.data.clear();
            self.event.clear();
            return;
        }
        if self.data.ends_with('\n') {
            self.data.pop();
        }
        let event = if self.event.is_empty() {
            "message"
        } else {
            &self.event
        };
        on(SseItem::Event(SseEvent {
            event,
            data: &self.data,
        }));
        self.data.clear();
        self.event.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Out {
        Ev(String, String),
        Err(SseError),
    }

    fn run(chunks: &[&[u8]], max: usize) -> (Vec<Out>, bool, SseFramer) {
        let mut f = SseFramer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.feed(c, &mut |item| match item {
                SseItem::Event(e) => out.push(Out::Ev(e.event.into(), e.data.into())),
                SseItem::Error(e) => out.push(Out::Err(e)),
            });
        }
        let discarded = f.finish();
        (out, discarded, f)
    }

    fn events(input: &[u8]) -> Vec<Out> {
        run(&[input], DEFAULT_MAX_LINE).0
    }

    fn ev(event: &str, data: &str) -> Out {
        Out::Ev(event.into(), data.into())
    }

    /// A small deterministic generator, so random splits are repeatable.
    pub(crate) struct Rng(u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub(crate) fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    const CORPUS: &[&[u8]] = &[
        b"data: hello\n\n",
        b"data: a\r\ndata: b\r\n\r\n",
        b"data: one\r\rdata: two\r\r",
        b"\xEF\xBB\xBFdata: bom\n\n",
        b": comment\nevent: delta\ndata: {\"x\":1}\n\n",
        b"data:no space\ndata:  two spaces\n\n",
        b"data\n\ndata:\n\n",
        b"id: 7\nretry: 3000\ndata: x\n\n",
        "data: caf\u{e9} \u{1F600} \u{4E2D}\u{6587}\r\n\r\n".as_bytes(),
        b"data: [DONE]\n\n",
        b"event: ping\n\nevent: x\ndata: y\n\n",
        b"data: ends without blank line",
        b"data: b\r\r",
        b"data: multi\ndata: line\n\ndata: next\r\n\n",
    ];

    #[test]
    fn every_two_chunk_split_gives_the_same_events() {
        for input in CORPUS {
            let expected = events(input);
            for i in 0..=input.len() {
                let (got, ..) = run(&[&input[..i], &input[i..]], DEFAULT_MAX_LINE);
                assert_eq!(
                    got,
                    expected,
                    "{:?} split at {i}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    #[test]
    fn random_multi_chunk_splits_give_the_same_events() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let joined: Vec<u8> = CORPUS.iter().flat_map(|c| c.iter().copied()).collect();
        for input in CORPUS.iter().copied().chain([&joined[..]]) {
            let expected = events(input);
            for _ in 0..200 {
                let mut chunks = Vec::new();
                let mut at = 0;
                while at < input.len() {
                    let n = 1 + rng.below(7);
                    let end = (at + n).min(input.len());
                    chunks.push(&input[at..end]);
                    if rng.below(5) == 0 {
                        chunks.push(&input[end..end]); // empty chunks happen too
                    }
                    at = end;
                }
                assert_eq!(run(&chunks, DEFAULT_MAX_LINE).0, expected);
            }
        }
    }

    #[test]
    fn a_crlf_split_across_chunks_is_one_line_terminator() {
        let (got, ..) = run(&[b"data: a\r", b"\n", b"\r", b"\ndata: b\r\n\r\n"], 1024);
        assert_eq!(got, vec![ev("message", "a"), ev("message", "b")]);
        // Had the split LF counted as a second terminator, "a" would have been dispatched
        // alone and "b" as a second event.
        let (got, ..) = run(&[b"data: a\r", b"\ndata: b\r\n\r\n"], 1024);
        assert_eq!(got, vec![ev("message", "a\nb")]);
    }

    #[test]
    fn a_lone_cr_at_the_end_completes_the_event() {
        assert_eq!(events(b"data: b\r\r"), vec![ev("message", "b")]);
    }

    #[test]
    fn a_bom_is_dropped_at_the_start_only() {
        assert_eq!(events(b"\xEF\xBB\xBFdata: a\n\n"), vec![ev("message", "a")]);
        // Anywhere else the BOM line is a field named "\u{FEFF}data": ignored.
        assert_eq!(
            events(b"data: a\n\n\xEF\xBB\xBFdata: b\n\n"),
            vec![ev("message", "a")]
        );
        let (got, ..) = run(&[b"\xEF", b"\xBB", b"\xBFdata: a\n\n"], 1024);
        assert_eq!(got, vec![ev("message", "a")]);
    }

    #[test]
    fn fields_follow_the_standard() {
        assert_eq!(
            events(b"data:no space\ndata:  two\n\n"),
            vec![ev("message", "no space\n two")]
        );
        // `data` alone and `data:` both append an empty line: one event with empty data.
        assert_eq!(
            events(b"data\n\ndata:\n\n"),
            vec![ev("message", ""), ev("message", "")]
        );
        assert_eq!(events(b"event: ping\n\n"), vec![]);
        assert_eq!(events(b"event: x\ndata: y\n\n"), vec![ev("x", "y")]);
        // The event type does not leak into the next event.
        assert_eq!(
            events(b"event: x\ndata: 1\n\ndata: 2\n\n"),
            vec![ev("x", "1"), ev("message", "2")]
        );
        assert_eq!(events(b": just a comment\n\n"), vec![]);
    }

    #[test]
    fn id_with_nul_and_non_digit_retry_are_ignored() {
        let (_, _, f) = run(&[b"id: 1\nretry: 50\ndata: x\n\n"], 1024);
        assert_eq!((f.last_event_id(), f.retry()), ("1", Some(50)));
        let (_, _, f) = run(&[b"id: 1\nid: a\0b\nretry: 5x\ndata: x\n\n"], 1024);
        assert_eq!((f.last_event_id(), f.retry()), ("1", None));
    }

    #[test]
    fn an_incomplete_final_event_is_discarded() {
        let (got, discarded, _) = run(&[b"data: a\n\ndata: partial\n"], 1024);
        assert_eq!((got, discarded), (vec![ev("message", "a")], true));
        let (_, discarded, _) = run(&[b"data: a\n\n"], 1024);
        assert!(!discarded);
    }

    #[test]
    fn a_multibyte_character_split_across_chunks_is_whole() {
        let input = "data: \u{1F600}\u{e9}\n\n".as_bytes();
        for i in 0..=input.len() {
            let (got, ..) = run(&[&input[..i], &input[i..]], 1024);
            assert_eq!(got, vec![ev("message", "\u{1F600}\u{e9}")]);
        }
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        assert_eq!(
            events(b"data: a\xffb\n\n"),
            vec![ev("message", "a\u{FFFD}b")]
        );
    }

    #[test]
    fn a_line_past_the_limit_is_a_typed_error_and_framing_goes_on() {
        let mut long = b"data: ".to_vec();
        long.extend(std::iter::repeat_n(b'x', 100));
        long.extend_from_slice(b"\n\ndata: ok\n\n");
        for i in 0..=long.len() {
            let (got, ..) = run(&[&long[..i], &long[i..]], 64);
            assert_eq!(
                got,
                vec![
                    Out::Err(SseError::LineTooLong { limit: 64 }),
                    ev("message", "ok")
                ],
                "split at {i}"
            );
        }
    }

    /// Found by the fuzzer (fuzz/artifacts, sse target): invalid bytes decode to U+FFFD, three
    /// bytes each, so a field under the limit in bytes could pass it once decoded.
    #[test]
    fn invalid_bytes_that_grow_when_decoded_still_respect_the_limit() {
        let mut input = b"event: message_s".to_vec();
        input.extend(std::iter::repeat_n(0xff, 180));
        input.extend_from_slice(b"\ndata: ");
        input.extend(std::iter::repeat_n(0xfe, 200));
        input.extend_from_slice(b"\n");
        let mut f = SseFramer::new(256);
        let mut errors = Vec::new();
        f.feed(&input, &mut |item| {
            if let SseItem::Error(e) = item {
                errors.push(e);
            }
        });
        assert!(f.buffered() <= 3 * 256, "{}", f.buffered());
        assert_eq!(errors, vec![SseError::EventTooLarge { limit: 256 }]);
    }

    #[test]
    fn data_past_the_limit_drops_the_event() {
        let input = b"data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\ndata: ok\n\n";
        let (got, ..) = run(&[input], 32);
        assert_eq!(
            got,
            vec![
                Out::Err(SseError::EventTooLarge { limit: 32 }),
                ev("message", "ok")
            ]
        );
    }
}
