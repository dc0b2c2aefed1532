//! Every adapter on arbitrary event data (JSON-ish or not): no panic, bounded error texts.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tokenpaint::read::wire::{Adapter, Format, Wire, MAX_MESSAGE};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let format = Format::ALL[usize::from(sel) % Format::ALL.len()];
    let text = String::from_utf8_lossy(rest);
    let mut a = Adapter::new();
    let _ = a.event(format, "message", &text, &mut |w| {
        if let Wire::Error(e) = w {
            assert!(e.message.chars().count() <= MAX_MESSAGE && e.code.chars().count() <= MAX_MESSAGE);
        }
    });
});
