//! Alignment of arbitrary rendered text to arbitrary arrived text: no panic, and the frontier
//! never passes what arrived.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tokenpaint::timeline::align::Aligner;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let cut = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
    let (arrived, rendered) = text.split_at(cut);
    let mut a = Aligner::new();
    a.push_arrived(arrived);
    let whole = a.rendered(rendered, 0).expect("from 0 is always possible");
    assert!(whole <= a.arrived_len());
    // Appending character by character never passes what arrived, and resuming from any
    // checkpoint gives the frontier of matching anew.
    let mut pieces = Aligner::new();
    pieces.push_arrived(arrived);
    for (i, ch) in rendered.char_indices() {
        let at = pieces.rendered_units();
        let f = pieces.rendered(&rendered[i..i + ch.len_utf8()], at).expect("an append");
        assert!(f <= pieces.arrived_len());
    }
    let units: Vec<u16> = rendered.encode_utf16().collect();
    let mut k = tokenpaint::timeline::align::CHECKPOINT as usize;
    while k < units.len() {
        if let Ok(rest) = String::from_utf16(&units[k..]) {
            let mut again = a.clone();
            if let Some(f) = again.rendered(&rest, k as u32) {
                assert_eq!(f, whole, "resumed at {k}");
            }
        }
        k += tokenpaint::timeline::align::CHECKPOINT as usize;
    }
});
