//! The line framer on arbitrary bytes: no panic, bounded buffer, chunking does not matter.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tokenpaint::read::lines::{LineFramer, LineItem};

fn lines(data: &[u8], step: usize) -> Vec<String> {
    let mut f = LineFramer::new(128);
    let mut out = Vec::new();
    let mut on = |item: LineItem<'_>| out.push(format!("{item:?}"));
    for chunk in data.chunks(step.max(1)) {
        f.feed(chunk, &mut on);
        assert!(f.buffered() <= 128);
    }
    f.finish(&mut on);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&step, rest)) = data.split_first() else { return };
    assert_eq!(lines(rest, usize::from(step % 13) + 1), lines(rest, rest.len().max(1)));
});
