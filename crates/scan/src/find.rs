//! Finding a byte, eight at a time.
//!
//! The framers look for line ends and the JSON scanner for the end of strings; those searches
//! are most of the cost of reading a stream. wasm32 has 64-bit integers, so testing a word of
//! eight bytes at once ("SWAR") is several times faster than a byte loop, without SIMD.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The marker bits of the bytes of `w` that are zero. Bits above the first zero byte may be
/// false positives (a borrow), but the lowest marker is always the first zero byte.
#[inline(always)]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(LO) & !w & HI
}

/// Whether `needle` occurs in `hay`: a plain byte search for short needles in short text
/// (headers). `str::contains` would link the two-way searcher, 1.5 KB of wasm.
pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// The first index of `a` or `b` in `hay`.
#[inline]
pub fn find2(hay: &[u8], a: u8, b: u8) -> Option<usize> {
    let (wa, wb) = (u64::from(a) * LO, u64::from(b) * LO);
    let mut words = hay.chunks_exact(8);
    let mut base = 0;
    for c in &mut words {
        // Indexing a chunk of exactly 8 compiles to one load; copy_from_slice was a call per
        // word in wasm.
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let hit = zero_bytes(w ^ wa) | zero_bytes(w ^ wb);
        if hit != 0 {
            return Some(base + (hit.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&c| c == a || c == b)
        .map(|i| base + i)
}

#[cfg(test)]
mod tests {
    use super::find2;

    #[test]
    fn finds_the_first_of_two_bytes_like_a_byte_loop() {
        let mut seed = 99u32;
        for len in 0..70 {
            for _ in 0..200 {
                let hay: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        [b'a', b'\n', b'\r', 0, 0xff, b'"', 0x0b, 0x8d][(seed >> 16) as usize % 8]
                    })
                    .collect();
                for (a, b) in [(b'\n', b'\r'), (b'"', b'\\'), (0, 0xff), (b'\n', b'\n')] {
                    let want = hay.iter().position(|&c| c == a || c == b);
                    assert_eq!(find2(&hay, a, b), want, "{hay:?} {a} {b}");
                }
            }
        }
    }
}
