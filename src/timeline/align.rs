//! Alignment of arrived answer text with the text the page renders.
//!
//! The rendered text is read from the DOM (`textContent`) each time it changes. The question is
//! how far into the arrived text the screen has got: the *frontier*, in visible characters
//! (see [`crate::timeline::visible`]). Rendered text is matched as a subsequence of the arrived text,
//! because renderers drop markup (`**`, `#`, fences and their info strings, link URLs, table
//! pipes), decode entities and re-flow whitespace, but show the words in order:
//! - a rendered character equal to the next arrived one advances the frontier;
//! - otherwise up to [`WINDOW`] arrived characters may be skipped (markup) if the rendered
//!   character is found there and the next [`CONFIRM`] rendered characters agree;
//! - otherwise a longer skip (a link URL, an image) is taken if the next [`ANCHOR`] rendered
//!   characters appear together within [`MAX_SKIP`] arrived characters;
//! - otherwise the rendered character is not part of the answer (a label, a cursor glyph, a
//!   "Copy" button) and is passed over;
//! - but where the frontier stands in a formula (`$…$`, `$$…$$`) that has arrived whole, a
//!   rendered character that does not match it is the renderer's drawing of it (KaTeX and
//!   MathJax draw symbols in the formula's place, beside a copy of its source): the formula is
//!   matched by the text around it and the frontier passes its end. So a token that closes a
//!   formula at the end of an answer gets the paint that showed it.
//!
//! Incremental: the frontier is checkpointed every [`CHECKPOINT`] UTF-16 units of rendered
//! text. When the page appends text, matching goes on from where it stopped; when it
//! re-renders, the shell finds how much of the old text is unchanged and matching resumes from
//! the checkpoint before the change. Each update costs what changed, not the message's length.

use crate::prelude::*;

use crate::timeline::visible::is_visible;

/// Markdown syntax: characters that renderers turn into structure (emphasis, headings, lists,
/// tables, code, links, quotes, escapes) rather than show. They are left out on both sides, so
/// text renders the same whether the page renders markdown or not; closing markup at the end of
/// an answer then needs nothing after it to count as delivered.
#[inline]
pub fn is_markup(c: char) -> bool {
    matches!(
        c,
        '*' | '_' | '`' | '#' | '|' | '~' | '>' | '<' | '-' | '=' | '+' | '[' | ']' | '\\' | '$'
    )
}

/// The formulas of the arrived text (`$…$` and `$$…$$`, as remark-math and KaTeX's auto-render
/// read them), as ranges of visible characters: what a renderer draws rather than shows.
#[derive(Debug, Default, Clone)]
struct Formulas {
    /// The open formula: where it starts, and whether it opened with `$$`.
    open: Option<(u32, bool)>,
    /// The last character was a `$` that opened a formula (a second one makes it `$$`).
    opened: bool,
    /// In a `$$` formula, the last character was a first closing `$`.
    closing: bool,
    /// Whole formulas, in order: [start, end). A re-render matches from the start again, so
    /// they are kept while their text is ([`Formulas::forget`]), up to [`FORMULAS`].
    done: Vec<(u32, u32)>,
}

/// Whole formulas kept at most (the oldest half dropped when there are more).
const FORMULAS: usize = 4096;

impl Formulas {
    /// Follows `c`; `at` is the index the next visible character will have.
    fn push(&mut self, c: char, at: u32) {
        let opened = core::mem::replace(&mut self.opened, false);
        let closing = core::mem::replace(&mut self.closing, false);
        if c == '\n' && matches!(self.open, Some((_, false))) {
            // An inline formula does not cross a line: that was a `$` of text.
            self.open = None;
        }
        if c != '$' {
            return;
        }
        match self.open {
            None => {
                self.open = Some((at, false));
                self.opened = true;
            }
            Some((start, false)) if opened && start == at => self.open = Some((start, true)),
            Some((start, false)) => self.close(start, at),
            Some((start, true)) if closing => self.close(start, at),
            Some((_, true)) => self.closing = true,
        }
    }

    fn close(&mut self, start: u32, end: u32) {
        self.open = None;
        if end > start {
            if self.done.len() == FORMULAS {
                self.done.drain(..FORMULAS / 2);
            }
            self.done.push((start, end));
        }
    }

    /// Forgets the formulas that end before visible character `base` (dropped arrived text).
    fn forget(&mut self, base: u32) {
        let gone = self.done.partition_point(|&(_, end)| end <= base);
        self.done.drain(..gone);
    }

    /// The whole formula that visible character `f` is in, if any: [start, end).
    fn around(&self, f: u32) -> Option<(u32, u32)> {
        let i = self.done.partition_point(|&(_, end)| end <= f);
        self.done.get(i).filter(|&&(start, _)| start <= f).copied()
    }
}

/// How many rendered characters a formula's drawing may take, for a formula of `len` visible
/// characters: KaTeX shows its symbols twice (MathML and HTML) and its TeX source once more (an
/// annotation); past this the text after it is searched for as usual.
fn drawing_cap(len: u32) -> u32 {
    4 * len + 16
}

/// Whether a character takes part in alignment: visible, and not markdown syntax.
#[inline]
fn shown(c: char) -> bool {
    is_visible(c) && !is_markup(c)
}

/// Arrived text that no renderer shows: link destinations (`](…)`) and code fence info
/// strings (```` ```python ````), followed across chunks.
#[derive(Debug, Clone, Copy)]
struct Hidden {
    /// Inside a link destination, at this parenthesis depth.
    url: Option<u8>,
    /// The last character was `]`.
    after_bracket: bool,
    /// The last character was `!` (an image may start).
    bang: bool,
    /// Inside an image's alt text (`![…]`), which is not text content.
    alt: bool,
    /// Inside a fence's info string (rest of the line).
    fence_info: bool,
    /// Fence characters seen at the start of the current line (`None`: not at a line start).
    fence: Option<u8>,
}

impl Default for Hidden {
    /// The start of an answer is the start of a line.
    fn default() -> Self {
        Hidden {
            url: None,
            after_bracket: false,
            bang: false,
            alt: false,
            fence_info: false,
            fence: Some(0),
        }
    }
}

impl Hidden {
    /// Whether `c` is shown, updating the state.
    fn shown(&mut self, c: char) -> bool {
        if c == '\n' {
            *self = Hidden::default();
            return false;
        }
        if let Some(depth) = self.url {
            self.url = match c {
                '(' => Some(depth.saturating_add(1)),
                ')' if depth == 0 => None,
                ')' => Some(depth - 1),
                _ => Some(depth),
            };
            return false;
        }
        if self.fence_info {
            return false;
        }
        if self.alt {
            if c == ']' {
                self.alt = false;
                self.after_bracket = true;
            }
            return false;
        }
        if core::mem::replace(&mut self.after_bracket, c == ']') && c == '(' {
            self.url = Some(0);
            return false;
        }
        if core::mem::replace(&mut self.bang, c == '!') && c == '[' {
            self.alt = true;
            return false;
        }
        self.fence = match (self.fence, c) {
            (Some(n), '`' | '~') => Some(n + 1),
            (Some(0), ' ') => Some(0),
            (Some(n), _) if n >= 3 => {
                self.fence_info = true;
                return false;
            }
            _ => None,
        };
        shown(c)
    }
}

/// How many arrived characters may be skipped to find a rendered one.
pub const WINDOW: usize = 64;
/// How many following rendered characters must agree before a short skip is taken.
pub const CONFIRM: usize = 3;
/// How many rendered characters must appear together to take a long skip.
pub const ANCHOR: usize = 8;
/// The longest skip, in arrived characters.
pub const MAX_SKIP: usize = 1024;
/// Arrived characters kept: past three quarters of this the older part is dropped (a page that
/// far behind the stream, or not rendering it, cannot match them any more), so memory stays
/// bounded for any answer length: 1 MiB, and the buffer never needs to grow past it.
pub const MAX_ARRIVED: usize = 1 << 18;
/// Checkpoint spacing, in UTF-16 units of rendered text (what JavaScript string offsets count).
pub const CHECKPOINT: u32 = 64;
/// Long-skip searches: at most this many in reserve, one more earned per
/// [`BUDGET_EVERY`] rendered characters. This bounds the cost of text that is not the answer,
/// and depends only on the rendered text, so a resumed match decides exactly as a full one.
const ANCHOR_BUDGET: u32 = 64;
const BUDGET_EVERY: u32 = 16;
/// A checkpoint inside a surrogate pair: never a place to resume.
const INVALID: Checkpoint = Checkpoint {
    frontier: u32::MAX,
    budget: 0,
    earned: 0,
    drawing: 0,
};

/// The matching state before a rendered UTF-16 offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Checkpoint {
    frontier: u32,
    budget: u32,
    earned: u32,
    drawing: u32,
}

/// Tracks arrived text and how much of it is on screen.
#[derive(Debug, Default, Clone)]
pub struct Aligner {
    arrived: Vec<char>,
    /// Arrived characters dropped from the front (see [`MAX_ARRIVED`]): `arrived[0]` is
    /// visible character `base` of the answer. Frontiers and checkpoints count from the start.
    base: u32,
    hidden: Hidden,
    formulas: Formulas,
    frontier: u32,
    /// Rendered characters that may still be the drawing of the formula the frontier just
    /// passed (0: none): only the text right after it ends the drawing.
    drawing: u32,
    /// UTF-16 units of rendered text consumed.
    units: u32,
    /// `checkpoints[k]`: the state before the rendered unit at offset `k * CHECKPOINT`.
    checkpoints: Vec<Checkpoint>,
    /// Long-skip searches in reserve, and rendered characters towards the next one.
    budget: u32,
    earned: u32,
    /// Rendered characters (with their UTF-16 offsets) whose match waits for more text.
    pending: Vec<(char, u32)>,
    vis: Vec<char>,
    vis_at: Vec<u32>,
}

/// One matching step: rendered character `r[i]` against the arrived text from frontier `f`.
/// Returns the new frontier and whether the character was found in the answer, or `None` when a
/// skip would be needed but too few rendered characters follow to confirm it (a page appending
/// two characters at a time): the decision waits for more text.
fn step(a: &[char], f: usize, r: &[char], i: usize, budget: &mut u32) -> Option<(usize, bool)> {
    let c = r[i];
    if f < a.len() && a[f] == c {
        return Some((f + 1, true));
    }
    // Past everything that arrived, a rendered character waits for more: a page that renders
    // inside the transport's own event (an XHR `progress` or `message` handler that appends
    // the delta) shows text before tokenpaint's listener has read it.
    if f >= a.len() || r.len() - i <= CONFIRM {
        return None;
    }
    let end = a.len().min(f + WINDOW);
    if let Some(j) = (f + 1..end).find(|&j| a[j] == c && agrees(a, j, r, i)) {
        return Some((j + 1, true));
    }
    if end < a.len() && *budget > 0 {
        if r.len() - i < ANCHOR {
            return None;
        }
        *budget -= 1;
        let anchor = &r[i..i + ANCHOR];
        let last = a.len().min(f + MAX_SKIP);
        if let Some(j) =
            (end..last.saturating_sub(ANCHOR - 1)).find(|&j| a[j..j + ANCHOR] == *anchor)
        {
            return Some((j + 1, true));
        }
    }
    Some((f, false))
}

/// Whether the rendered characters after `i` agree with the arrived ones after `j`.
fn agrees(a: &[char], j: usize, r: &[char], i: usize) -> bool {
    (1..=CONFIRM)
        .take_while(|k| i + k < r.len())
        .all(|k| a.get(j + k) == Some(&r[i + k]))
}

impl Aligner {
    /// An empty aligner.
    pub fn new() -> Self {
        Aligner {
            budget: ANCHOR_BUDGET,
            ..Self::default()
        }
    }

    /// An aligner that stands for a finished stream's: `arrived` visible characters, of which
    /// the last match found `frontier` on screen (a saved timeline read back, which has no text
    /// left to match).
    pub fn restored(arrived: usize, frontier: usize) -> Self {
        Aligner {
            base: arrived.min(u32::MAX as usize) as u32,
            frontier: frontier.min(u32::MAX as usize) as u32,
            ..Self::new()
        }
    }

    /// Adds arrived answer text; returns how many visible characters it holds.
    pub fn push_arrived(&mut self, text: &str) -> usize {
        let before = self.arrived.len();
        for c in text.chars() {
            let was_bang = self.hidden.bang;
            let at = self.base + self.arrived.len() as u32;
            self.formulas.push(c, at);
            if self.hidden.shown(c) {
                self.arrived.push(c);
            } else if was_bang && self.hidden.alt && self.arrived.last() == Some(&'!') {
                self.arrived.pop(); // `![`: the `!` was an image's, not shown either
            }
        }
        let added = self.arrived.len().saturating_sub(before);
        if self.arrived.len() > MAX_ARRIVED / 4 * 3 {
            let drop = self.arrived.len() - MAX_ARRIVED / 4;
            self.arrived.drain(..drop);
            self.base += drop as u32;
            self.formulas.forget(self.base);
        }
        added
    }

    /// Whether rendered characters wait for more arrived text (see [`Aligner::rendered`]).
    pub fn waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Visible characters arrived so far.
    pub fn arrived_len(&self) -> usize {
        self.base as usize + self.arrived.len()
    }

    /// Visible arrived characters found on screen by the last match.
    pub fn frontier(&self) -> usize {
        self.frontier as usize
    }

    /// UTF-16 units of rendered text taken in so far.
    pub fn rendered_units(&self) -> u32 {
        self.units
    }

    /// The furthest offset a re-render can resume from (the last checkpoint recorded): past
    /// rendered characters still waiting for more text there is none.
    pub fn resume_limit(&self) -> u32 {
        self.checkpoints.len().saturating_sub(1) as u32 * CHECKPOINT
    }

    /// Takes in rendered text: `text` replaces the rendered text from UTF-16 offset `from` on.
    /// `from` must be 0, the current length (an append), or a multiple of [`CHECKPOINT`] not
    /// past it; otherwise nothing is done and `None` asks for the whole text (`from` 0).
    /// Returns the frontier.
    pub fn rendered(&mut self, text: &str, from: u32) -> Option<usize> {
        let append = from == self.units && from != 0;
        if from == 0 {
            self.frontier = 0;
            self.drawing = 0;
            self.units = 0;
            self.budget = ANCHOR_BUDGET;
            self.earned = 0;
            self.checkpoints.clear();
        } else if from != self.units {
            let k = (from / CHECKPOINT) as usize;
            let cp = *self.checkpoints.get(k)?;
            if from % CHECKPOINT != 0 || from > self.units || cp == INVALID {
                return None;
            }
            self.frontier = cp.frontier;
            self.drawing = cp.drawing;
            self.budget = cp.budget;
            self.earned = cp.earned;
            self.units = from;
            self.checkpoints.truncate(k);
        }
        // The visible characters of the new text, each with its UTF-16 offset; checkpoints
        // that fall inside a surrogate pair are marked invalid as they are passed.
        let mut vis = core::mem::take(&mut self.vis);
        let mut at = core::mem::take(&mut self.vis_at);
        vis.clear();
        at.clear();
        if append {
            for &(c, u) in &self.pending {
                vis.push(c);
                at.push(u);
            }
        }
        self.pending.clear();
        let mut units = self.units;
        for c in text.chars() {
            if shown(c) {
                vis.push(c);
                at.push(units);
            }
            units += c.len_utf16() as u32;
        }
        let a = &self.arrived;
        let base = self.base as usize;
        let mut f = (self.frontier as usize).max(base) - base;
        let (mut budget, mut earned, mut drawing) = (self.budget, self.earned, self.drawing);
        let mut next_cp = self.checkpoints.len() as u32 * CHECKPOINT;
        let mut waiting = None;
        for (i, &unit) in at.iter().enumerate() {
            while next_cp <= unit {
                self.checkpoints.push(Checkpoint {
                    frontier: (base + f) as u32,
                    budget,
                    earned,
                    drawing,
                });
                next_cp += CHECKPOINT;
            }
            match self.advance(a, base, f, &vis, i, &mut budget, &mut drawing) {
                Some(nf) => f = nf,
                None => {
                    waiting = Some(i);
                    break;
                }
            }
            earned += 1;
            if earned == BUDGET_EVERY {
                earned = 0;
                budget = (budget + 1).min(ANCHOR_BUDGET);
            }
        }
        match waiting {
            // Checkpoints past the waiting characters would be wrong: resuming there asks for
            // the whole text instead.
            Some(i) => self
                .pending
                .extend(vis[i..].iter().copied().zip(at[i..].iter().copied())),
            None => {
                while next_cp <= units {
                    self.checkpoints.push(Checkpoint {
                        frontier: (base + f) as u32,
                        budget,
                        earned,
                        drawing,
                    });
                    next_cp += CHECKPOINT;
                }
            }
        }
        self.budget = budget;
        self.earned = earned;
        self.drawing = drawing;
        // Offsets inside a surrogate pair cannot be resumed from.
        let mut u = self.units;
        for c in text.chars() {
            let n = c.len_utf16() as u32;
            if n == 2 && (u + 1) % CHECKPOINT == 0 {
                if let Some(cp) = self.checkpoints.get_mut(((u + 1) / CHECKPOINT) as usize) {
                    *cp = INVALID;
                }
            }
            u += n;
        }
        self.frontier = (base + f) as u32;
        self.units = units;
        self.vis = vis;
        self.vis_at = at;
        Some(base + f)
    }

    /// One rendered character, `vis[i]`, against the arrived text `a` (its first character is
    /// visible character `base`) from frontier `f`: the new frontier, or `None` when the decision
    /// waits for more text. `drawing` follows the drawing of a formula just passed.
    #[allow(clippy::too_many_arguments)]
    fn advance(
        &self,
        a: &[char],
        base: usize,
        f: usize,
        vis: &[char],
        i: usize,
        budget: &mut u32,
        drawing: &mut u32,
    ) -> Option<usize> {
        if *drawing > 0 {
            // In the drawing of the formula just passed (its symbols, its TeX source again):
            // only the text right after it, confirmed by what follows, ends it; nothing is
            // searched for ahead, where a later copy of the same formula may be.
            if f < a.len() && a[f] == vis[i] && agrees(a, f, vis, i) {
                *drawing = 0;
                return Some(f + 1);
            }
            *drawing -= 1;
            return Some(f);
        }
        let inside = self.formulas.around((base + f) as u32);
        let before = *budget;
        match step(a, f, vis, i, budget) {
            // The formula's last character matched: its drawing may go on.
            Some((nf, true)) => {
                if let Some((start, end)) = inside.filter(|&(_, end)| end as usize == base + nf) {
                    *drawing = drawing_cap(end - start);
                }
                Some(nf)
            }
            // Not the formula's own text where the frontier stands in a whole formula: the
            // renderer's drawing of it.
            Some((_, false)) | None if inside.is_some() => {
                let (start, end) = inside.unwrap_or_default();
                *budget = before;
                *drawing = drawing_cap(end - start);
                Some(end as usize - base)
            }
            Some((nf, false)) => Some(nf),
            None => {
                *budget = before;
                None
            }
        }
    }

    /// Whether `text` (an element's text) shows the start of this answer: its first visible
    /// characters match the start of the arrived text. The first match must be the start of
    /// the answer (only markup may come before it in the arrived text), so a user's question
    /// that shares words with the answer does not claim it; then enough of what follows must
    /// match.
    pub fn claims(&self, text: &str) -> bool {
        let a = &self.arrived;
        // Without its start (dropped), the answer cannot be recognised.
        if a.is_empty() || self.base > 0 {
            return false;
        }
        let r: Vec<char> = text.chars().filter(|&c| shown(c)).take(64).collect();
        // An answer that opens a numbered list: its first number is the list's marker, which a
        // renderer draws with a CSS counter, not text.
        let digits = a.iter().take_while(|c| c.is_ascii_digit()).count();
        let marker = if (1..=9).contains(&digits) && matches!(a.get(digits), Some('.' | ')')) {
            digits + 1
        } else {
            0
        };
        let start = a[marker..]
            .iter()
            .position(|c| c.is_alphanumeric())
            .map_or(0, |p| p + marker);
        let Some(first) = (0..r.len().min(48))
            .find(|&i| (0..=start).any(|j| a[j] == r[i] && agrees(a, j, &r, i)))
        else {
            return false;
        };
        let j = (0..=start).find(|&j| a[j] == r[first]).unwrap_or(0);
        let (mut f, mut matched) = (j + 1, 1);
        let mut budget = 4;
        for i in first + 1..r.len() {
            let Some((nf, hit)) = step(a, f, &r, i, &mut budget) else {
                break;
            };
            matched += usize::from(hit);
            f = nf;
        }
        matched >= a.len().min(3) && 2 * matched >= (f - j).min(64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aligner(arrived: &str) -> Aligner {
        let mut a = Aligner::new();
        a.push_arrived(arrived);
        a
    }

    fn full(a: &mut Aligner, text: &str) -> usize {
        a.rendered(text, 0).unwrap()
    }

    fn append(a: &mut Aligner, text: &str) -> usize {
        let at = a.rendered_units();
        a.rendered(text, at).unwrap()
    }

    #[test]
    fn appended_text_advances_the_frontier() {
        let mut a = aligner("Hello, world! How are you?");
        assert_eq!(append(&mut a, "Hello,"), 6);
        assert_eq!(append(&mut a, " wor"), 9);
        assert_eq!(append(&mut a, "ld! How are you?"), a.arrived_len());
    }

    #[test]
    fn a_whole_rerender_matches_from_the_start() {
        let mut a = aligner("Hello world");
        assert_eq!(full(&mut a, "Hello"), 5);
        assert_eq!(full(&mut a, "Hello wo"), 7);
        assert_eq!(full(&mut a, "Hel"), 3);
    }

    #[test]
    fn whitespace_differences_do_not_matter() {
        let mut a = aligner("line one\n\nline   two\t");
        assert_eq!(full(&mut a, " line one line two "), a.arrived_len());
    }

    #[test]
    fn markup_that_is_not_displayed_is_skipped() {
        let mut a =
            aligner("# Title\n\nSome **bold** and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert_eq!(
            full(&mut a, "Title Some bold and code. a b 1 2"),
            a.arrived_len()
        );
        let mut a = aligner("```python\nprint('&lt;x&gt;')\n```\nDone &amp; dusted");
        assert_eq!(full(&mut a, "print('<x>')\nDone & dusted"), a.arrived_len());
    }

    /// KaTeX's text content for a formula: its MathML (the symbols), the TeX source in an
    /// annotation, and its HTML (the symbols again).
    fn katex(symbols: &str, tex: &str) -> String {
        format!("{symbols}{tex}{symbols}")
    }

    #[test]
    fn a_formula_drawn_by_the_renderer_is_matched_by_the_text_around_it() {
        // An answer that ends in a formula: the last token, which closes it, is on screen once
        // the drawing is.
        let arrived = "The area of a circle is $\\pi r^2$";
        let mut a = aligner(arrived);
        let shown = format!("The area of a circle is {}", katex("πr2", "\\pi r^2"));
        assert_eq!(full(&mut a, &shown), a.arrived_len());
        // Before the formula has arrived whole, its drawing is not there, nor matched.
        let mut a = aligner("The area of a circle is $\\pi r");
        assert_eq!(full(&mut a, "The area of a circle is "), 18);
        // Display math, then text after it; a re-render matches as appending did.
        let arrived = "Energy: $$E = mc^2$$ and so on.";
        let mut a = aligner(arrived);
        let shown = format!("Energy: {} and so on.", katex("E=mc2", "E = mc^2"));
        assert_eq!(full(&mut a, &shown), a.arrived_len());
        let mut b = aligner(arrived);
        let half = shown
            .char_indices()
            .nth(shown.chars().count() / 2)
            .unwrap()
            .0;
        append(&mut b, &shown[..half]);
        append(&mut b, &shown[half..]);
        assert_eq!(b.frontier(), a.frontier());
        // Dollars of text shown as text match as text.
        let mut a = aligner("It costs $5 and $10 a month.");
        assert_eq!(
            full(&mut a, "It costs $5 and $10 a month."),
            a.arrived_len()
        );
    }

    #[test]
    fn a_formulas_drawing_never_matches_a_later_copy_of_it() {
        // The TeX annotation of a drawn formula is its source again: never a reason to skip
        // ahead to the same formula later in the answer (Streamdown with KaTeX, issue 49).
        let arrived = "First $\\frac{n(n+1)}{2}$ counts them, and later $\\frac{n(n+1)}{2}$ again.";
        let mut a = aligner(arrived);
        let shown = format!("First {} counts", katex("n(n+1)2", "\\frac{n(n+1)}{2}"));
        let want = aligner("First $\\frac{n(n+1)}{2}$ counts").arrived_len();
        assert_eq!(full(&mut a, &shown), want);
        assert!(!a.waiting());
        // Appended in pieces, the same.
        let mut b = aligner(arrived);
        for piece in shown.split_inclusive(['}', ' ']) {
            append(&mut b, piece);
        }
        assert_eq!(b.frontier(), want);
    }

    #[test]
    fn the_drawing_of_a_formula_that_ends_the_text_waits_for_nothing() {
        // The drawing's characters after the formula's end are not text shown ahead of its
        // arrival: what arrives next is on screen only when the page shows it.
        let mut a = aligner("The area is $\\pi r^2$");
        let shown = format!("The area is {}", katex("πr2", "\\pi r^2"));
        assert_eq!(full(&mut a, &shown), a.arrived_len());
        assert!(!a.waiting(), "{a:?}");
        let before = a.frontier();
        a.push_arrived(" for every pi r");
        let at = a.rendered_units();
        assert_eq!(a.rendered("", at), Some(before));
    }

    #[test]
    fn closing_markup_at_the_end_needs_nothing_after_it() {
        for (arrived, shown) in [
            ("Some **bold**", "Some bold"),
            ("| a | b |\n|---|---|\n| 1 | 2 |", "a b 1 2"),
            ("```js\nx()\n```", "x()"),
            ("Sources: [1](https://example.com/a_b-(c))", "Sources: 1"),
            ("![diagram](https://example.com/d.png)", ""),
        ] {
            let mut a = aligner(arrived);
            assert_eq!(full(&mut a, shown), a.arrived_len(), "{arrived}");
        }
    }

    #[test]
    fn plain_text_rendering_of_markdown_still_aligns() {
        let arrived = "Use [the docs](https://example.com/docs) and **care**.";
        let mut a = aligner(arrived);
        assert_eq!(full(&mut a, arrived), a.arrived_len());
    }

    #[test]
    fn long_link_urls_are_skipped() {
        let arrived = "See [the docs](https://example.com/a/very/long/path/that/goes/on/and/on/and/on/for/more/than/sixty-four/characters?with=query&and=more) for details.";
        let mut a = aligner(arrived);
        assert_eq!(full(&mut a, "See the docs for details."), a.arrived_len());
    }

    #[test]
    fn text_that_is_not_in_the_answer_is_passed_over() {
        let mut a = aligner("The answer is here.");
        // "Assistant:" is not in the answer; "Theanswer" (9 visible characters) is.
        assert_eq!(full(&mut a, "Assistant: The answer"), 9);
        let mut a = aligner("abc");
        assert_eq!(full(&mut a, "abc▍"), 3);
        let mut a = aligner("x = 1\ny = 2");
        assert_eq!(full(&mut a, "Copy code x = 1 y = 2"), a.arrived_len());
    }

    #[test]
    fn a_page_appending_a_few_characters_at_a_time_does_not_jump_ahead() {
        // Plain text rendering shows a link URL that the arrived text does not count; revealed
        // two characters at a time, its `h` must not match the `h` of "the" further on.
        let arrived = "see [x](https://example.com/x.png) and the report.";
        let mut a = aligner(arrived);
        let chars: Vec<char> = arrived.chars().collect();
        let mut shown = 0;
        for piece in chars.chunks(2) {
            let s: String = piece.iter().collect();
            let f = append(&mut a, &s);
            shown += piece.len();
            let visible_shown: usize = arrived.chars().take(shown).filter(|&c| shown_in(c)).count();
            assert!(
                f <= visible_shown,
                "frontier {f} ahead of the {visible_shown} shown at {shown}"
            );
        }
        assert_eq!(a.frontier(), a.arrived_len());
    }

    fn shown_in(c: char) -> bool {
        super::shown(c)
    }

    #[test]
    fn rendered_text_never_passes_what_arrived() {
        let mut a = aligner("short");
        assert_eq!(full(&mut a, "short and then some more text"), 5);
    }

    #[test]
    fn a_rerender_resumes_from_a_checkpoint() {
        let text: String = (0..40).map(|i| format!("word{i} ")).collect();
        let mut a = aligner(&text);
        let first = &text[..150];
        assert_eq!(
            full(&mut a, first),
            first.chars().filter(|c| !c.is_whitespace()).count()
        );
        // The page re-renders: the first 128 units are unchanged, the rest is new.
        let whole = a.rendered(&text[128..], 128).unwrap();
        assert_eq!(whole, a.arrived_len());
        // Not a checkpoint, not the end: the whole text is needed.
        assert_eq!(a.rendered("x", 100), None);
        assert_eq!(a.rendered("x", 10_000), None);
    }

    #[test]
    fn resuming_gives_the_same_frontier_as_matching_anew() {
        let arrived = "## Steps\n\n1. Open **the file** 😀 at [link](https://example.org/some/long/url/that/is/not/shown/on/screen/at/all)\n2. Edit `main.rs` and *save*.\n\nDone — naïve café 東京.";
        let shown = [
            "Steps",
            "Steps Open the file 😀 at link",
            "Steps Open the file 😀 at link Edit main.rs",
            "Steps Open the file 😀 at link Edit main.rs and save. Done — naïve café 東京.",
        ];
        let mut fresh = aligner(arrived);
        let mut inc = aligner(arrived);
        let mut prev = String::new();
        for s in shown {
            let want = full(&mut fresh, s);
            let common = prev
                .encode_utf16()
                .zip(s.encode_utf16())
                .take_while(|(x, y)| x == y)
                .count() as u32;
            let from = common - common % CHECKPOINT;
            let units: Vec<u16> = s.encode_utf16().collect();
            let rest = String::from_utf16(&units[from as usize..]).unwrap();
            assert_eq!(inc.rendered(&rest, from), Some(want), "{s}");
            prev = s.to_string();
        }
        assert_eq!(fresh.frontier(), fresh.arrived_len());
    }

    #[test]
    fn past_the_arrived_cap_the_front_is_dropped_and_matching_goes_on() {
        let mut a = Aligner::new();
        let piece = "lorem ipsum dolor sit amet consectetur ";
        let visible = piece.chars().filter(|&c| shown(c)).count();
        let n = 2 * MAX_ARRIVED / visible + 10;
        for _ in 0..n {
            a.push_arrived(piece);
            append(&mut a, piece);
        }
        assert!(a.arrived.len() <= MAX_ARRIVED);
        assert!(a.base > 0);
        assert_eq!(a.arrived_len(), n * visible);
        assert_eq!(a.frontier(), n * visible);
        // The start is gone: the answer is no longer recognised from it.
        assert!(!a.claims(piece));
    }

    #[test]
    fn claims_recognises_the_start_of_the_answer() {
        let a = aligner("Paris is the capital of France.");
        assert!(a.claims("Paris is"));
        assert!(a.claims("Assistant: Paris is the"));
        assert!(!a.claims("What is the capital of France?"));
        // "Is Paris the capital…" does show the answer's start: the shell tries the most
        // recently changed element first, which is the answer's, not the question's.
        assert!(!aligner("").claims("anything"));
        let md = aligner("## Paris\n\nThe **capital**");
        assert!(md.claims("Paris The capital"));
        let code = aligner("```python\nprint(1)\n```");
        assert!(
            code.claims("print(1)"),
            "a fence's info string is not shown"
        );
        assert!(!aligner("Paris is the capital").claims("Pa"));
        // A numbered list's first marker is drawn by CSS (Streamdown, react-markdown: `<ol>`).
        let list = aligner("1. The variance is $\\sigma^2$\n2. The mean");
        assert!(list.claims("The variance is σ2\\sigma^2σ2"));
        assert!(list.claims("1. The variance is"), "shown as text");
        assert!(!aligner("1. The variance").claims("What is the variance?"));
    }
}
