//! Streaming UTF-8 decoding, as the WHATWG Encoding Standard's "UTF-8 decode" with replacement.
//!
//! A multibyte character split across two chunks is the most common corruption in streamed chat
//! (decoding each chunk on its own turns it into two U+FFFD). The decoder keeps the unfinished
//! tail of a chunk (at most 3 bytes) and completes it with the next one. Invalid bytes become
//! U+FFFD, one per maximal invalid subpart, exactly as `TextDecoder` does. It never panics.

use alloc::string::String;

/// Appends `bytes` to `out`, invalid sequences replaced by U+FFFD (one per maximal invalid
/// subpart, as `String::from_utf8_lossy`, which the module does without: its chunk iterator
/// costs 1.1 KB of wasm). Valid input (nearly all of it) takes `from_utf8`'s fast path.
pub fn push_lossy(out: &mut String, bytes: &[u8]) {
    // An unfinished sequence at the end (never empty) is one more invalid subpart.
    if push_valid(out, bytes).is_some() {
        out.push(REPLACEMENT);
    }
}

/// Appends the valid UTF-8 of `input` to `out`, each invalid subpart as U+FFFD, up to an
/// unfinished sequence at its end, which is returned (`None` when there is none).
fn push_valid<'a>(out: &mut String, mut input: &'a [u8]) -> Option<&'a [u8]> {
    loop {
        match core::str::from_utf8(input) {
            Ok(s) => {
                out.push_str(s);
                return None;
            }
            Err(e) => {
                let (valid, rest) = input.split_at(e.valid_up_to());
                out.push_str(core::str::from_utf8(valid).unwrap_or_default());
                match e.error_len() {
                    Some(bad) => {
                        out.push(REPLACEMENT);
                        input = &rest[bad..];
                    }
                    None => return Some(rest),
                }
            }
        }
    }
}

/// The characters (Unicode scalar values) in `s`: its bytes that do not continue a sequence.
/// `str::chars().count()`'s word-at-a-time count is 1 KB of wasm; deltas are a few bytes long.
pub fn char_count(s: &str) -> usize {
    s.bytes().filter(|b| (b & 0xC0) != 0x80).count()
}

/// The first `n` characters of `s` (all of it when it has fewer), without the char iterator
/// and collect that `s.chars().take(n).collect()` brings into the wasm module.
pub fn prefix(s: &str, n: usize) -> &str {
    let mut seen = 0;
    for (i, b) in s.bytes().enumerate() {
        if (b & 0xC0) != 0x80 {
            if seen == n {
                return s.get(..i).unwrap_or(s);
            }
            seen += 1;
        }
    }
    s
}

/// An incremental UTF-8 decoder. Feed chunks with [`Utf8Decoder::decode`], end with
/// [`Utf8Decoder::finish`].
#[derive(Debug, Default, Clone)]
pub struct Utf8Decoder {
    pending: [u8; 4],
    len: u8,
}

const REPLACEMENT: char = '\u{FFFD}';

impl Utf8Decoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes `input`, appending complete characters to `out`. An incomplete trailing sequence
    /// is kept for the next call.
    pub fn decode(&mut self, input: &[u8], out: &mut String) {
        let mut input = input;
        if self.len > 0 {
            match self.complete_pending(input, out) {
                Some(used) => input = &input[used..],
                None => return, // everything went into `pending`
            }
        }
        if let Some(rest) = push_valid(out, input) {
            // An unfinished sequence at the end: keep it (it is at most 3 bytes).
            self.pending[..rest.len()].copy_from_slice(rest);
            self.len = rest.len() as u8;
        }
    }

    /// Ends the stream: an unfinished sequence becomes one U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if self.len > 0 {
            out.push(REPLACEMENT);
            self.len = 0;
        }
    }

    /// Completes the pending sequence with the start of `input`. Returns how many bytes of
    /// `input` were used, or `None` if all of `input` was absorbed and the sequence is still
    /// unfinished.
    fn complete_pending(&mut self, input: &[u8], out: &mut String) -> Option<usize> {
        let held = self.len as usize;
        let want = sequence_len(self.pending[0]);
        let take = input.len().min(want.saturating_sub(held));
        let mut buf = [0u8; 4];
        buf[..held].copy_from_slice(&self.pending[..held]);
        buf[held..held + take].copy_from_slice(&input[..take]);
        match core::str::from_utf8(&buf[..held + take]) {
            Ok(s) => {
                out.push_str(s);
                self.len = 0;
                Some(take)
            }
            Err(e) if e.error_len().is_none() => {
                // Still a valid prefix: the input was shorter than the sequence.
                self.pending[held..held + take].copy_from_slice(&input[..take]);
                self.len = (held + take) as u8;
                None
            }
            Err(e) => {
                // The maximal invalid subpart ends inside what we hold plus `used` input bytes.
                let bad = e.error_len().unwrap_or(held);
                out.push(REPLACEMENT);
                self.len = 0;
                Some(bad.saturating_sub(held))
            }
        }
    }
}

/// The length a lead byte announces (1 for bytes that cannot start a sequence: they fail fast).
fn sequence_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_split(parts: &[&[u8]]) -> String {
        let mut d = Utf8Decoder::new();
        let mut out = String::new();
        for p in parts {
            d.decode(p, &mut out);
        }
        d.finish(&mut out);
        out
    }

    fn whole(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// Invalid and truncated input: a bad byte, unfinished sequences, a surrogate, an overlong
    /// form and a code point past U+10FFFF.
    const INVALID: [&[u8]; 6] = [
        b"a\xffb",
        b"\xe2\x82",
        b"\xe2\x82z",
        b"\xf0\x9f\x98",
        b"\xed\xa0\x80x",
        b"\xc0\xafok\xf4\x90\x80\x80",
    ];

    #[test]
    fn counts_and_prefixes_are_by_character() {
        for text in ["", "plain", "añ€😀z", "😀😀", "e\u{301}x"] {
            assert_eq!(char_count(text), text.chars().count(), "{text:?}");
            for n in 0..=text.chars().count() + 1 {
                let expected: String = text.chars().take(n).collect();
                assert_eq!(prefix(text, n), expected, "{text:?} {n}");
            }
        }
    }

    #[test]
    fn push_lossy_is_the_lossy_decoding() {
        let more: [&[u8]; 2] = [b"plain", b"\xe2\x82\xac\xff\xf0\x9f"];
        for b in INVALID.into_iter().chain(more) {
            let mut out = String::from("<");
            push_lossy(&mut out, b);
            assert_eq!(out, format!("<{}", whole(b)), "{b:?}");
        }
    }

    #[test]
    fn a_character_split_at_every_point_decodes_as_one() {
        let text = "añ€😀z";
        let b = text.as_bytes();
        for i in 0..=b.len() {
            for j in i..=b.len() {
                assert_eq!(
                    decode_split(&[&b[..i], &b[i..j], &b[j..]]),
                    text,
                    "split {i} {j}"
                );
            }
        }
    }

    #[test]
    fn invalid_bytes_match_the_lossy_decoding_at_every_split() {
        for b in INVALID {
            let expected = whole(b);
            for i in 0..=b.len() {
                assert_eq!(decode_split(&[&b[..i], &b[i..]]), expected, "{b:?} at {i}");
            }
            let bytes: Vec<&[u8]> = b.chunks(1).collect();
            assert_eq!(decode_split(&bytes), expected, "{b:?} byte by byte");
        }
    }

    #[test]
    fn an_unfinished_sequence_at_the_end_is_one_replacement() {
        assert_eq!(decode_split(&[b"ok\xf0\x9f"]), "ok\u{FFFD}");
    }
}
