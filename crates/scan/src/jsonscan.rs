//! A small pull scanner for JSON (RFC 8259), for the adapters that read provider events.
//!
//! An adapter walks only the fields it needs and skips the rest without building a tree or
//! unescaping strings it will not use: that is what makes reading a stream cheaper than the
//! application's own `JSON.parse`. Skipping is iterative, so deeply nested input costs time
//! linear in its length and no stack. Nothing here panics on any input.

use alloc::borrow::Cow;
use alloc::string::String;

/// Why a JSON text could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonError {
    /// The text ended inside a value.
    UnexpectedEnd,
    /// A byte that cannot appear here, at this offset.
    Unexpected(usize),
    /// A malformed escape sequence in a string, at this offset.
    BadEscape(usize),
    /// A malformed number, at this offset.
    BadNumber(usize),
}

impl JsonError {
    /// A short machine-readable name.
    pub fn code(self) -> &'static str {
        match self {
            JsonError::UnexpectedEnd => "json-unexpected-end",
            JsonError::Unexpected(_) => "json-unexpected-byte",
            JsonError::BadEscape(_) => "json-bad-escape",
            JsonError::BadNumber(_) => "json-bad-number",
        }
    }
}

/// The result of a scanner step.
pub type Result<T> = core::result::Result<T, JsonError>;

/// A cursor over one JSON text.
pub struct Scanner<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `s`.
    pub fn new(s: &'a str) -> Self {
        Scanner { s, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.s.as_bytes()
    }

    fn ws(&mut self) {
        let b = self.bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The first byte of the next value, after whitespace.
    #[inline(always)]
    pub fn peek(&mut self) -> Option<u8> {
        // Servers send compact JSON: the next byte is rarely whitespace.
        match self.bytes().get(self.pos) {
            Some(&c) if c > b' ' => Some(c),
            _ => {
                self.ws();
                self.bytes().get(self.pos).copied()
            }
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(JsonError::Unexpected(self.pos)),
            None => Err(JsonError::UnexpectedEnd),
        }
    }

    /// Walks an object: `f` is called with each key and must consume its value (read it or
    /// [`Scanner::skip`] it). A `dyn` callback: one copy of the walker in the wasm module, not
    /// one per adapter closure.
    pub fn object(&mut self, f: &mut dyn FnMut(&mut Self, &[u8]) -> Result<()>) -> Result<()> {
        self.expect(b'{')?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let key = self.key()?;
            self.expect(b':')?;
            f(self, &key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => return Err(JsonError::Unexpected(self.pos)),
                None => return Err(JsonError::UnexpectedEnd),
            }
        }
    }

    /// Walks an array: `f` is called with each index and must consume the element.
    pub fn array(&mut self, f: &mut dyn FnMut(&mut Self, usize) -> Result<()>) -> Result<()> {
        self.expect(b'[')?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        let mut i = 0;
        loop {
            f(self, i)?;
            i += 1;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => return Err(JsonError::Unexpected(self.pos)),
                None => return Err(JsonError::UnexpectedEnd),
            }
        }
    }

    /// An object key. Keys without escapes (all the ones adapters look for) are borrowed.
    fn key(&mut self) -> Result<Cow<'a, [u8]>> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected());
        }
        let start = self.pos + 1;
        let b = self.bytes();
        match b
            .get(start..)
            .and_then(|rest| crate::find::find2(rest, b'"', b'\\'))
        {
            Some(i) if b[start + i] == b'"' => {
                self.pos = start + i + 1;
                Ok(Cow::Borrowed(&b[start..start + i]))
            }
            Some(_) => {
                let mut owned = String::new();
                self.string_into(&mut owned)?;
                Ok(Cow::Owned(owned.into_bytes()))
            }
            None => Err(JsonError::UnexpectedEnd),
        }
    }

    fn unexpected(&self) -> JsonError {
        if self.pos >= self.s.len() {
            JsonError::UnexpectedEnd
        } else {
            JsonError::Unexpected(self.pos)
        }
    }

    /// Reads a string value, unescaped, appending it to `out`.
    pub fn string_into(&mut self, out: &mut String) -> Result<()> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected());
        }
        self.pos += 1;
        let b = self.bytes();
        let mut run = self.pos;
        loop {
            match b
                .get(self.pos..)
                .and_then(|rest| crate::find::find2(rest, b'"', b'\\'))
            {
                Some(i) => self.pos += i,
                None => {
                    self.pos = b.len();
                    return Err(JsonError::UnexpectedEnd);
                }
            }
            let c = b[self.pos];
            match c {
                b'"' => {
                    out.push_str(self.s.get(run..self.pos).unwrap_or_default());
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => {
                    out.push_str(self.s.get(run..self.pos).unwrap_or_default());
                    self.escape(out)?;
                    run = self.pos;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// One escape sequence, `self.pos` at its backslash.
    fn escape(&mut self, out: &mut String) -> Result<()> {
        let at = self.pos;
        let b = self.bytes();
        let Some(&c) = b.get(at + 1) else {
            return Err(JsonError::UnexpectedEnd);
        };
        self.pos = at + 2;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4(at)?;
                if (0xD800..0xDC00).contains(&hi) {
                    // A high surrogate must be followed by an escaped low one; alone it is
                    // replaced, as JavaScript's TextEncoder would.
                    if b.get(self.pos) == Some(&b'\\') && b.get(self.pos + 1) == Some(&b'u') {
                        let save = self.pos;
                        self.pos += 2;
                        let lo = self.hex4(save)?;
                        if (0xDC00..0xE000).contains(&lo) {
                            let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            char::from_u32(cp).unwrap_or('\u{FFFD}')
                        } else {
                            self.pos = save;
                            '\u{FFFD}'
                        }
                    } else {
                        '\u{FFFD}'
                    }
                } else {
                    char::from_u32(hi).unwrap_or('\u{FFFD}')
                }
            }
            _ => return Err(JsonError::BadEscape(at)),
        };
        out.push(ch);
        Ok(())
    }

    fn hex4(&mut self, at: usize) -> Result<u32> {
        let b = self.bytes();
        let mut v = 0u32;
        for k in 0..4 {
            let d = match b.get(self.pos + k) {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                Some(_) => return Err(JsonError::BadEscape(at)),
                None => return Err(JsonError::UnexpectedEnd),
            };
            v = v * 16 + u32::from(d);
        }
        self.pos += 4;
        Ok(v)
    }

    /// Reads a number. Precise to about 15 significant digits, which is ample for counts and
    /// milliseconds, and without the size of a correctly rounded float parser.
    pub fn number(&mut self) -> Result<f64> {
        self.ws();
        let start = self.pos;
        let b = self.bytes();
        let mut i = self.pos;
        let neg = b.get(i) == Some(&b'-');
        if neg {
            i += 1;
        }
        let mut mantissa: u64 = 0;
        let mut exp: i32 = 0;
        let mut digits = 0;
        while let Some(&c @ b'0'..=b'9') = b.get(i) {
            if mantissa < 1_000_000_000_000_000_000 {
                mantissa = mantissa * 10 + u64::from(c - b'0');
            } else {
                exp += 1;
            }
            digits += 1;
            i += 1;
        }
        if digits == 0 {
            return Err(JsonError::BadNumber(start));
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let before = i;
            while let Some(&c @ b'0'..=b'9') = b.get(i) {
                if mantissa < 1_000_000_000_000_000_000 {
                    mantissa = mantissa * 10 + u64::from(c - b'0');
                    exp -= 1;
                }
                i += 1;
            }
            if i == before {
                return Err(JsonError::BadNumber(start));
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            let eneg = match b.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let before = i;
            let mut e: i32 = 0;
            while let Some(&c @ b'0'..=b'9') = b.get(i) {
                e = e.saturating_mul(10).saturating_add(i32::from(c - b'0'));
                i += 1;
            }
            if i == before {
                return Err(JsonError::BadNumber(start));
            }
            exp = exp.saturating_add(if eneg { -e } else { e });
        }
        self.pos = i;
        let m = mantissa as f64;
        let v = if exp >= 0 {
            m * pow10(exp.min(400))
        } else {
            m / pow10((-exp).min(400))
        };
        Ok(if neg { -v } else { v })
    }

    /// Reads a number and gives its text, for a reader that must convert it its own way (a
    /// correctly rounded parser, where a double must read back bit for bit).
    pub fn number_text(&mut self) -> Result<&'a str> {
        self.ws();
        let start = self.pos;
        self.number()?;
        Ok(&self.s[start..self.pos])
    }

    /// Reads a number if the next value is one; skips any other value and gives `None`.
    pub fn number_or_skip(&mut self) -> Result<Option<f64>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.number().map(Some),
            _ => self.skip().map(|_| None),
        }
    }

    /// Reads a string if the next value is one (into `out`); skips any other value.
    pub fn string_or_skip(&mut self, out: &mut String) -> Result<bool> {
        if self.peek() == Some(b'"') {
            self.string_into(out).map(|_| true)
        } else {
            self.skip().map(|_| false)
        }
    }

    /// Reads a boolean if the next value is one; skips any other value and gives `None`.
    pub fn bool_or_skip(&mut self) -> Result<Option<bool>> {
        let b = self.bytes();
        if self.peek() == Some(b't') && b.get(self.pos..self.pos + 4) == Some(b"true") {
            self.pos += 4;
            return Ok(Some(true));
        }
        if self.peek() == Some(b'f') && b.get(self.pos..self.pos + 5) == Some(b"false") {
            self.pos += 5;
            return Ok(Some(false));
        }
        self.skip().map(|_| None)
    }

    /// Whether the next value is `null`.
    pub fn is_null(&mut self) -> bool {
        self.peek() == Some(b'n')
    }

    fn skip_string(&mut self) -> Result<()> {
        self.pos += 1; // the opening quote
        let b = self.bytes();
        loop {
            let Some(i) = b
                .get(self.pos..)
                .and_then(|rest| crate::find::find2(rest, b'"', b'\\'))
            else {
                self.pos = b.len();
                return Err(JsonError::UnexpectedEnd);
            };
            self.pos += i;
            if b[self.pos] == b'"' {
                self.pos += 1;
                return Ok(());
            }
            self.pos += 2; // a backslash and the byte it escapes
        }
    }

    /// Skips one value of any kind. Iterative: nesting depth costs no stack. It checks bracket
    /// balance and string ends, not the full grammar of what it skips.
    pub fn skip(&mut self) -> Result<()> {
        let mut depth: usize = 0;
        loop {
            let Some(c) = self.peek() else {
                return Err(JsonError::UnexpectedEnd);
            };
            match c {
                b'"' => self.skip_string()?,
                b'{' | b'[' => {
                    depth += 1;
                    self.pos += 1;
                    continue;
                }
                b'}' | b']' => {
                    if depth == 0 {
                        return Err(JsonError::Unexpected(self.pos));
                    }
                    depth -= 1;
                    self.pos += 1;
                }
                b',' | b':' if depth > 0 => {
                    self.pos += 1;
                    continue;
                }
                b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                    let b = self.bytes();
                    let start = self.pos;
                    while let Some(b'a'..=b'z' | b'0'..=b'9' | b'-' | b'+' | b'.' | b'E') =
                        b.get(self.pos)
                    {
                        self.pos += 1;
                    }
                    let lit = &b[start..self.pos];
                    let ok = match lit[0] {
                        b't' => lit == b"true",
                        b'f' => lit == b"false",
                        b'n' => lit == b"null",
                        _ => true,
                    };
                    if !ok {
                        return Err(JsonError::Unexpected(start));
                    }
                }
                _ => return Err(JsonError::Unexpected(self.pos)),
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }

    /// Checks that only whitespace is left.
    pub fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(JsonError::Unexpected(self.pos)),
        }
    }
}

/// 10 to the power `n` (0 ≤ n), by repeated squaring, as `f64::powi` does on every target (it
/// lowers to compiler-rt's `__powidf2`); `powi` itself is not in `core`.
fn pow10(n: i32) -> f64 {
    let (mut base, mut n, mut r) = (10.0f64, n, 1.0f64);
    loop {
        if n & 1 != 0 {
            r *= base;
        }
        n /= 2;
        if n == 0 {
            return r;
        }
        base *= base;
    }
}

/// A JSON number alone in `s` (the scanner's parser: `str::parse::<f64>` would link the
/// standard float parser, about 20 KB of wasm).
pub fn number_in(s: &str) -> Option<f64> {
    let mut sc = Scanner::new(s);
    let v = sc.number().ok()?;
    sc.end().ok()?;
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(s: &str) -> Result<String> {
        let mut out = String::new();
        Scanner::new(s).string_into(&mut out).map(|_| out)
    }

    #[test]
    fn strings_are_unescaped() {
        assert_eq!(string(r#""a\"b\\c\/d\n\t""#).unwrap(), "a\"b\\c/d\n\t");
        assert_eq!(string(r#""\u00e9\u4e2d""#).unwrap(), "é中");
        assert_eq!(string(r#""\ud83d\ude00""#).unwrap(), "😀");
        assert_eq!(string(r#""x\ud83dy""#).unwrap(), "x\u{FFFD}y");
        assert_eq!(string(r#""\ud83d\u0041""#).unwrap(), "\u{FFFD}A");
        assert_eq!(string("\"raw é 中\"").unwrap(), "raw é 中");
        assert_eq!(string(r#""\q""#), Err(JsonError::BadEscape(1)));
        assert_eq!(string(r#""\u12"#), Err(JsonError::UnexpectedEnd));
        assert_eq!(string(r#""open"#), Err(JsonError::UnexpectedEnd));
    }

    #[test]
    fn pow10_is_powi() {
        for n in 0..=400 {
            assert_eq!(pow10(n).to_bits(), 10f64.powi(n).to_bits(), "10^{n}");
        }
    }

    #[test]
    fn numbers_are_read() {
        for (s, v) in [
            ("0", 0.0),
            ("-12", -12.0),
            ("3.25", 3.25),
            ("1e3", 1000.0),
            ("2.5E-2", 0.025),
            ("123456789012", 123456789012.0),
        ] {
            assert_eq!(Scanner::new(s).number().unwrap(), v, "{s}");
        }
        assert!(Scanner::new("-").number().is_err());
        assert!(Scanner::new("1.").number().is_err());
        assert!(Scanner::new("1e").number().is_err());
    }

    #[test]
    fn objects_are_walked_and_unknown_values_skipped() {
        let json =
            r#"{"skip":{"a":[1,{"b":"}"}],"c":null},"k\u0065y":"v","n":[true,false,-1.5e2]}"#;
        let mut seen = Vec::new();
        let mut sc = Scanner::new(json);
        sc.object(&mut |sc, k| {
            match k {
                b"key" => {
                    let mut v = String::new();
                    sc.string_into(&mut v)?;
                    seen.push(v);
                }
                b"n" => sc.array(&mut |sc, i| {
                    if i == 2 {
                        seen.push(format!("{}", sc.number()?));
                        Ok(())
                    } else {
                        sc.skip()
                    }
                })?,
                _ => sc.skip()?,
            }
            Ok(())
        })
        .unwrap();
        sc.end().unwrap();
        assert_eq!(seen, vec!["v".to_string(), "-150".to_string()]);
    }

    #[test]
    fn deep_nesting_is_skipped_without_recursion() {
        let deep = "[".repeat(200_000) + &"]".repeat(200_000);
        assert_eq!(Scanner::new(&deep).skip(), Ok(()));
        let open = "[".repeat(200_000);
        assert_eq!(Scanner::new(&open).skip(), Err(JsonError::UnexpectedEnd));
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        for s in [
            "",
            "{",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":1,",
            "{\"a\" 1}",
            "[1 2]",
            "tru",
            "nul",
            "}",
            "{1:2}",
            "\"\\",
            "\"\\u",
            "-",
            "[-]",
            "{\"a\":[}",
        ] {
            let mut sc = Scanner::new(s);
            let r = sc.object(&mut |sc, _| sc.skip());
            assert!(r.is_err(), "{s:?}");
        }
        // Skipping is lenient inside brackets but still rejects what cannot be a value.
        for s in ["", "}", "tru", "nul", "[1", "\"\\", "[\"a]"] {
            assert!(Scanner::new(s).skip().is_err(), "{s:?}");
        }
    }
}
