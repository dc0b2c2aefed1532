//! Which characters a renderer can display.
//!
//! Alignment compares arrived text with rendered text over visible characters only. Whitespace
//! is collapsed, re-flowed or trimmed by HTML and markdown renderers, and models emit control
//! characters (`\u{b}`, `\f`, `\u{8}` were seen from a real llama.cpp server) and zero-width
//! characters that render as nothing. Counting them would make text that is fully on screen
//! look unmatched.

/// Whether `c` shows up as something on screen.
#[inline]
pub fn is_visible(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_graphic();
    }
    !(c.is_whitespace()
        || c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{AD}'))
}

#[cfg(test)]
mod tests {
    use super::is_visible;

    #[test]
    fn whitespace_controls_and_zero_width_are_invisible() {
        for c in [
            ' ', '\n', '\t', '\u{b}', '\u{c}', '\u{8}', '\0', '\u{a0}', '\u{200b}', '\u{feff}',
            '\u{ad}', '\u{2028}',
        ] {
            assert!(!is_visible(c), "{c:?}");
        }
        for c in ['a', 'Z', '0', '*', '#', 'é', '中', '😀', '\u{fffd}'] {
            assert!(is_visible(c), "{c:?}");
        }
    }
}
