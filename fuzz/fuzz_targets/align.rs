//! Alignment of arbitrary rendered text to arbitrary arrived text: no panic, and the frontier
//! never passes what arrived.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tokenpaint::align::Aligner;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let cut = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
    let (arrived, rendered) = text.split_at(cut);
    let mut a = Aligner::new();
    a.push_arrived(arrived);
    let whole = a.rendered(rendered, false);
    assert!(whole <= a.arrived_len());
    let mut pieces = Aligner::new();
    pieces.push_arrived(arrived);
    for (i, ch) in rendered.char_indices() {
        let f = pieces.rendered(&rendered[i..i + ch.len_utf8()], i > 0);
        assert!(f <= pieces.arrived_len());
    }
});
