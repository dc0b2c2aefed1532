//! Alignment of arrived answer text with the text the page renders.
//!
//! The rendered text is read from the DOM (`textContent`) each time it changes. The question is
//! how far into the arrived text the screen has got: the *frontier*, in visible characters
//! (see [`crate::visible`]). Rendered text is matched as a subsequence of the arrived text:
//! - a rendered character equal to the next arrived one advances the frontier;
//! - otherwise arrived characters may be skipped (markup a renderer does not display, such as
//!   `**` or `#`) if the rendered character appears within [`WINDOW`] arrived characters and
//!   the following [`CONFIRM`] rendered characters agree there;
//! - otherwise the rendered character is not part of the answer (a label, a cursor glyph) and is
//!   passed over.
//!
//! When the page appends text, matching resumes from the frontier (cost proportional to the new
//! text); when it re-renders the whole message, matching starts over (cost proportional to the
//! message, as the page's own re-render is).

use crate::visible::is_visible;

/// How many arrived characters may be skipped to find a rendered one.
pub const WINDOW: usize = 64;
/// How many following rendered characters must agree before a skip is taken.
pub const CONFIRM: usize = 3;

/// Tracks arrived text and how much of it is on screen.
#[derive(Debug, Default, Clone)]
pub struct Aligner {
    arrived: Vec<char>,
    frontier: usize,
    rendered: Vec<char>,
}

impl Aligner {
    /// An empty aligner.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds arrived answer text; returns how many visible characters it holds.
    pub fn push_arrived(&mut self, text: &str) -> usize {
        let before = self.arrived.len();
        self.arrived.extend(text.chars().filter(|&c| is_visible(c)));
        self.arrived.len() - before
    }

    /// Visible characters arrived so far.
    pub fn arrived_len(&self) -> usize {
        self.arrived.len()
    }

    /// Visible arrived characters found on screen by the last match.
    pub fn frontier(&self) -> usize {
        self.frontier
    }

    /// Takes in rendered text: the text appended to what was rendered before (`append`), or the
    /// whole rendered text anew. Returns the frontier.
    pub fn rendered(&mut self, text: &str, append: bool) -> usize {
        if !append {
            self.frontier = 0;
        }
        let mut r = core::mem::take(&mut self.rendered);
        r.clear();
        r.extend(text.chars().filter(|&c| is_visible(c)));
        let a = &self.arrived;
        let mut f = self.frontier;
        for (i, &c) in r.iter().enumerate() {
            if f < a.len() && a[f] == c {
                f += 1;
                continue;
            }
            let end = a.len().min(f + WINDOW);
            if let Some(j) = (f + 1..end).find(|&j| a[j] == c && agrees(a, j, &r, i)) {
                f = j + 1;
            }
        }
        self.frontier = f;
        self.rendered = r;
        f
    }

    /// Whether `text` looks like the start of this answer on screen: its first visible
    /// characters (up to 8, allowing a short label before them) match the arrived text's.
    pub fn claims(&self, text: &str) -> bool {
        let want = self.arrived.len().min(8);
        if want == 0 {
            return false;
        }
        let head = &self.arrived[..want];
        let r: Vec<char> = text
            .chars()
            .filter(|&c| is_visible(c))
            .take(48 + want)
            .collect();
        // The page may show fewer characters than have arrived, but at least three (or all).
        (0..r.len().min(48)).any(|s| {
            let n = (r.len() - s).min(want);
            n >= want.min(3) && r[s..s + n] == head[..n]
        })
    }
}

/// Whether the rendered characters after `i` agree with the arrived ones after `j`.
fn agrees(a: &[char], j: usize, r: &[char], i: usize) -> bool {
    (1..=CONFIRM)
        .take_while(|k| i + k < r.len())
        .all(|k| a.get(j + k) == Some(&r[i + k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aligner(arrived: &str) -> Aligner {
        let mut a = Aligner::new();
        a.push_arrived(arrived);
        a
    }

    #[test]
    fn appended_text_advances_the_frontier() {
        let mut a = aligner("Hello, world! How are you?");
        assert_eq!(a.rendered("Hello,", true), 6);
        assert_eq!(a.rendered(" wor", true), 9);
        assert_eq!(a.rendered("ld! How are you?", true), a.arrived_len());
    }

    #[test]
    fn a_whole_rerender_matches_from_the_start() {
        let mut a = aligner("Hello world");
        assert_eq!(a.rendered("Hello", false), 5);
        assert_eq!(a.rendered("Hello wo", false), 7);
        assert_eq!(a.rendered("Hel", false), 3);
    }

    #[test]
    fn whitespace_differences_do_not_matter() {
        let mut a = aligner("line one\n\nline   two\t");
        assert_eq!(a.rendered(" line one line two ", false), a.arrived_len());
    }

    #[test]
    fn markup_that_is_not_displayed_is_skipped() {
        let mut a = aligner("# Title\n\nSome **bold** and `code`.");
        assert_eq!(
            a.rendered("Title Some bold and code.", false),
            a.arrived_len()
        );
    }

    #[test]
    fn text_that_is_not_in_the_answer_is_passed_over() {
        let mut a = aligner("The answer is here.");
        // "Assistant:" is not in the answer; "Theanswer" (9 visible characters) is.
        assert_eq!(a.rendered("Assistant: The answer", false), 9);
        let mut a = aligner("abc");
        assert_eq!(a.rendered("abc▍", false), 3);
    }

    #[test]
    fn rendered_text_never_passes_what_arrived() {
        let mut a = aligner("short");
        assert_eq!(a.rendered("short and then some more text", false), 5);
    }

    #[test]
    fn claims_recognises_the_start_of_the_answer() {
        let a = aligner("Paris is the capital of France.");
        assert!(a.claims("Paris is"));
        assert!(a.claims("Assistant: Paris is the"));
        assert!(!a.claims("What is the capital of France?"));
        assert!(!aligner("").claims("anything"));
    }
}
