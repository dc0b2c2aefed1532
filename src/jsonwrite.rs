//! A minimal JSON writer for reports and summaries.
//!
//! Reports cross into JavaScript as one JSON string that `JSON.parse` turns into a plain object:
//! one crossing, no per-field glue, and no `format!` machinery in the wasm module. Times are
//! written with at most two decimals (performance.now() is coarser than that in browsers);
//! a value that is not finite is written as `null`, which is how a report says "unknown".

use crate::float;
use crate::prelude::*;

/// Builds one JSON text. Commas are inserted automatically.
#[derive(Debug, Default)]
pub struct JsonWriter {
    out: String,
    need_comma: bool,
}

impl JsonWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        self.out
    }

    fn sep(&mut self) {
        if self.need_comma {
            self.out.push(',');
        }
    }

    /// Opens an object (as a value).
    #[inline(never)]
    pub fn open_object(&mut self) {
        self.sep();
        self.out.push('{');
        self.need_comma = false;
    }

    /// Closes an object.
    #[inline(never)]
    pub fn close_object(&mut self) {
        self.out.push('}');
        self.need_comma = true;
    }

    /// Opens an array (as a value).
    #[inline(never)]
    pub fn open_array(&mut self) {
        self.sep();
        self.out.push('[');
        self.need_comma = false;
    }

    /// Closes an array.
    #[inline(never)]
    pub fn close_array(&mut self) {
        self.out.push(']');
        self.need_comma = true;
    }

    /// Writes a key; the next call writes its value. Keys are plain ASCII names.
    #[inline(never)]
    pub fn key(&mut self, k: &str) {
        self.sep();
        self.out.push('"');
        self.out.push_str(k);
        self.out.push_str("\":");
        self.need_comma = false;
    }

    /// Writes a key that may need escaping (a user's label, a URL).
    #[inline(never)]
    pub fn key_str(&mut self, k: &str) {
        self.str(k);
        self.out.push(':');
        self.need_comma = false;
    }

    /// Writes a number, or `null` when it is not finite (unknown).
    #[inline(never)]
    pub fn num(&mut self, v: f64) {
        self.sep();
        write_f64(&mut self.out, v);
        self.need_comma = true;
    }

    /// Writes a number that reads back as the same double (see [`write_exact`]).
    pub fn raw_f64(&mut self, v: f64) {
        self.sep();
        write_exact(&mut self.out, v);
        self.need_comma = true;
    }

    /// Writes an optional number; `None` is `null`.
    #[inline(never)]
    pub fn opt_num(&mut self, v: Option<f64>) {
        self.num(v.unwrap_or(f64::NAN));
    }

    /// Writes `key: number` for each pair (a number that is not finite is `null`).
    pub fn nums(&mut self, fields: &[(&str, f64)]) {
        for &(k, v) in fields {
            self.key(k);
            self.num(v);
        }
    }

    /// Writes `key: number or null` for each pair.
    pub fn opt_nums(&mut self, fields: &[(&str, Option<f64>)]) {
        for &(k, v) in fields {
            self.key(k);
            self.opt_num(v);
        }
    }

    /// Writes an unsigned integer.
    #[inline(never)]
    pub fn uint(&mut self, v: u64) {
        self.sep();
        write_u64(&mut self.out, v);
        self.need_comma = true;
    }

    /// Writes a boolean.
    #[inline(never)]
    pub fn bool(&mut self, v: bool) {
        self.sep();
        self.out.push_str(if v { "true" } else { "false" });
        self.need_comma = true;
    }

    /// Writes `null`.
    #[inline(never)]
    pub fn null(&mut self) {
        self.sep();
        self.out.push_str("null");
        self.need_comma = true;
    }

    /// Writes a string, escaped.
    #[inline(never)]
    pub fn str(&mut self, s: &str) {
        self.sep();
        self.out.push('"');
        let mut run = 0;
        for (i, b) in s.bytes().enumerate() {
            let esc = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0..=0x1f => "",
                _ => continue,
            };
            self.out.push_str(s.get(run..i).unwrap_or_default());
            if esc.is_empty() {
                self.out.push_str("\\u00");
                self.out.push(hex(b >> 4));
                self.out.push(hex(b & 15));
            } else {
                self.out.push_str(esc);
            }
            run = i + 1;
        }
        self.out.push_str(s.get(run..).unwrap_or_default());
        self.out.push('"');
        self.need_comma = true;
    }

    /// Writes an optional string; `None` is `null`.
    #[inline(never)]
    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }
}

fn hex(n: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(n & 15)])
}

/// Writes `v` in decimal digits.
pub(crate) fn write_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &buf[i..] {
        out.push(char::from(d));
    }
}

/// Writes `v` so that a correctly rounded reader (JavaScript's `Number`, Rust's `str::parse`)
/// gives the same double back: in decimals, correctly rounded to at least 17 significant digits,
/// which identify every double, without trailing zeros. Exact for zero and for every magnitude
/// from 1e-4 to 2^64; one below that keeps 22 decimals (below 2^-74 it is `0`), one above is
/// written as 2^64. A number that is not finite is `null`.
///
/// With `v = m·2^-s`, the decimals are `frac·10^d / 2^s` rounded half to even, exact in 128 bits:
/// no float arithmetic, and none of `core::fmt`'s float printing.
pub fn write_exact(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push_str("null");
        return;
    }
    if v.is_sign_negative() {
        out.push('-');
    }
    let bits = v.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    let m = (bits & ((1u64 << 52) - 1)) | if biased == 0 { 0 } else { 1u64 << 52 };
    // |v| = m · 2^-s
    let s = if biased == 0 { 1074 } else { 1075 - biased };
    if s <= 0 {
        // An integer: 2^52 and more.
        write_u64(out, if s > -12 { m << -s } else { u64::MAX });
        return;
    }
    if s > 127 {
        out.push('0');
        return;
    }
    let (mut int, frac) = if s < 64 {
        (m >> s, u128::from(m & ((1u64 << s) - 1)))
    } else {
        (0, u128::from(m))
    };
    // Decimals for 17 significant digits: after the integer's, or after the fraction's zeros.
    let mut d = 17 - digits(int).min(17);
    let mut p = (0..d).fold(1u128, |p, _| p * 10);
    let mut scaled = frac * p;
    while int == 0 && d < 22 && scaled >> s < 10_000_000_000_000_000 {
        scaled *= 10;
        p *= 10;
        d += 1;
    }
    let mut r = scaled >> s;
    let rem = scaled & ((1u128 << s) - 1);
    let half = 1u128 << (s - 1);
    if rem > half || (rem == half && r & 1 == 1) {
        r += 1;
    }
    if r == p {
        int += 1;
        r = 0;
    }
    write_u64(out, int);
    // Below 10^17 (17 significant digits at most, and one of a carry): in 64 bits.
    let mut r = r as u64;
    if r != 0 {
        out.push('.');
        while r % 10 == 0 {
            r /= 10;
            d -= 1;
        }
        for _ in digits(r)..d {
            out.push('0');
        }
        write_u64(out, r);
    }
}

/// How many decimal digits `v` has (0 for 0).
fn digits(mut v: u64) -> u32 {
    let mut n = 0;
    while v != 0 {
        n += 1;
        v /= 10;
    }
    n
}

/// Writes `v` rounded to two decimals, without trailing zeros; `null` if not finite.
pub fn write_f64(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push_str("null");
        return;
    }
    let hundredths = float::round(v.abs() * 100.0);
    if hundredths >= 1e18 {
        // Far beyond any time or count a report holds: keep it finite and valid.
        out.push_str(if v < 0.0 { "-1e18" } else { "1e18" });
        return;
    }
    let h = hundredths as u64;
    if v < 0.0 && h != 0 {
        out.push('-');
    }
    write_u64(out, h / 100);
    let frac = h % 100;
    if frac != 0 {
        out.push('.');
        out.push(char::from(b'0' + (frac / 10) as u8));
        if frac % 10 != 0 {
            out.push(char::from(b'0' + (frac % 10) as u8));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f64) -> String {
        let mut s = String::new();
        write_f64(&mut s, v);
        s
    }

    #[test]
    fn numbers_have_at_most_two_decimals() {
        assert_eq!(f(0.0), "0");
        assert_eq!(f(12.0), "12");
        assert_eq!(f(12.5), "12.5");
        assert_eq!(f(12.345), "12.35");
        assert_eq!(f(0.05), "0.05");
        assert_eq!(f(-3.1), "-3.1");
        assert_eq!(f(-0.001), "0");
        assert_eq!(f(f64::NAN), "null");
        assert_eq!(f(f64::INFINITY), "null");
        assert_eq!(f(1e300), "1e18");
    }

    #[test]
    fn structures_and_escapes() {
        let mut w = JsonWriter::new();
        w.open_object();
        w.key("a");
        w.str("q\"\\\n\u{1}é");
        w.key("b");
        w.open_array();
        w.uint(1);
        w.num(2.5);
        w.null();
        w.bool(true);
        w.close_array();
        w.key("c");
        w.open_object();
        w.close_object();
        w.close_object();
        assert_eq!(
            w.finish(),
            r#"{"a":"q\"\\\n\u0001é","b":[1,2.5,null,true],"c":{}}"#
        );
    }

    fn exact(v: f64) -> String {
        let mut s = String::new();
        write_exact(&mut s, v);
        s
    }

    #[test]
    fn exact_numbers_read_back_bit_for_bit() {
        for v in [
            0.0,
            -0.0,
            1.0,
            0.5,
            0.1,
            0.30000000000000004,
            92.57469177300004,
            1e-4,
        ] {
            assert_eq!(
                exact(v).parse::<f64>().unwrap().to_bits(),
                v.to_bits(),
                "{v}"
            );
        }
        assert_eq!(exact(12.5), "12.5");
        assert_eq!(exact(-3.0), "-3");
        assert_eq!(exact(0.1), "0.10000000000000001");
        assert_eq!(exact(1065.25), "1065.25");
        assert_eq!(exact(f64::NAN), "null");
        assert_eq!(exact(2f64.powi(60)), "1152921504606846976");
        // Random doubles of every magnitude the form holds, from a fixed-seed generator.
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // exponents from 2^-13 to 2^63
            let e = 1023 - 13 + (x >> 52) % 77;
            let v = f64::from_bits((x & ((1 << 52) - 1)) | (e << 52));
            let v = if x & (1 << 63) != 0 { -v } else { v };
            let s = exact(v);
            assert_eq!(
                s.parse::<f64>().unwrap().to_bits(),
                v.to_bits(),
                "{v:?} as {s}"
            );
            // 17 significant digits at most, and no trailing zero.
            let digits = s.trim_start_matches(['-', '0', '.']).replace('.', "");
            assert!(digits.len() <= 17 || !s.contains('.'), "{s}");
            assert!(!s.contains('.') || !s.ends_with('0'), "{s}");
        }
    }
}
