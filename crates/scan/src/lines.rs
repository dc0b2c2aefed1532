//! Line framing for newline-delimited streams: NDJSON (Ollama) and the Vercel AI SDK's data
//! stream protocol (`0:"text"` lines).
//!
//! Lines end in LF (a CR before it is dropped); a line split across chunks is buffered until its
//! LF arrives, never re-scanned; a final line without LF is taken at the end of the stream; blank
//! lines are skipped. A line longer than the limit is a typed error and is dropped up to its end:
//! the stream goes on.

use alloc::string::String;
use alloc::vec::Vec;

/// What the framer hands to its callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineItem<'a> {
    /// A complete, non-blank line, without its terminator.
    Line(&'a str),
    /// A line longer than the limit was dropped.
    TooLong {
        /// The limit in bytes.
        limit: usize,
    },
}

/// An incremental line splitter.
#[derive(Debug, Clone)]
pub struct LineFramer {
    line: Vec<u8>,
    max_line: usize,
    discarding: bool,
}

impl Default for LineFramer {
    fn default() -> Self {
        Self::new(crate::sse::DEFAULT_MAX_LINE)
    }
}

impl LineFramer {
    /// A framer whose lines may hold at most `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        LineFramer {
            line: Vec::new(),
            max_line,
            discarding: false,
        }
    }

    /// Bytes held between calls: at most the limit.
    pub fn buffered(&self) -> usize {
        self.line.len()
    }

    /// Feeds one chunk.
    pub fn feed(&mut self, chunk: &[u8], on: &mut dyn FnMut(LineItem<'_>)) {
        let mut rest = chunk;
        while let Some(i) = crate::find::find2(rest, b'\n', b'\n') {
            if self.line.is_empty() && !self.discarding && i <= self.max_line {
                emit(&rest[..i], on);
            } else {
                self.buffer(&rest[..i], on);
                if !core::mem::replace(&mut self.discarding, false) {
                    emit(&self.line, on);
                }
                self.line.clear();
            }
            rest = &rest[i + 1..];
        }
        if !rest.is_empty() {
            self.buffer(rest, on);
        }
    }

    /// Ends the stream: a last line without LF is still a line.
    pub fn finish(&mut self, on: &mut dyn FnMut(LineItem<'_>)) {
        if !self.discarding {
            emit(&self.line, on);
        }
        self.line.clear();
        self.discarding = false;
    }

    fn buffer(&mut self, bytes: &[u8], on: &mut dyn FnMut(LineItem<'_>)) {
        if self.discarding {
            return;
        }
        if self.line.len() + bytes.len() > self.max_line {
            self.line.clear();
            self.discarding = true;
            on(LineItem::TooLong {
                limit: self.max_line,
            });
            return;
        }
        self.line.extend_from_slice(bytes);
    }
}

fn emit(line: &[u8], on: &mut dyn FnMut(LineItem<'_>)) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(|b| b.is_ascii_whitespace()) {
        return;
    }
    match core::str::from_utf8(line) {
        Ok(s) => on(LineItem::Line(s)),
        Err(_) => {
            let mut s = String::new();
            crate::utf8::push_lossy(&mut s, line);
            on(LineItem::Line(&s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&[u8]], max: usize) -> Vec<String> {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        let mut on = |item: LineItem<'_>| match item {
            LineItem::Line(l) => out.push(l.to_string()),
            LineItem::TooLong { limit } => out.push(format!("<too long {limit}>")),
        };
        for c in chunks {
            f.feed(c, &mut on);
        }
        f.finish(&mut on);
        out
    }

    #[test]
    fn lines_split_anywhere_are_whole() {
        let input = "{\"a\":1}\r\n\n{\"b\":\"é😀\"}\n  \n{\"c\":3}".as_bytes();
        let want = vec!["{\"a\":1}", "{\"b\":\"é😀\"}", "{\"c\":3}"];
        for i in 0..=input.len() {
            for j in i..=input.len() {
                assert_eq!(
                    run(&[&input[..i], &input[i..j], &input[j..]], 1024),
                    want,
                    "{i} {j}"
                );
            }
        }
    }

    #[test]
    fn a_long_line_is_an_error_and_the_next_lines_survive() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        for i in 0..=input.len() {
            assert_eq!(
                run(&[&input[..i], &input[i..]], 16),
                vec!["<too long 16>", "ok"],
                "{i}"
            );
        }
    }
}
