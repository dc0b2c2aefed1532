//! The Server-Timing parser on arbitrary text: no panic, bounded output, durations finite.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tokenpaint::read::servertiming::{parse, timings};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let metrics = parse(&text);
    assert!(metrics.len() <= 64);
    for m in &metrics {
        assert!(!m.name.is_empty());
        assert!(m.dur.is_none_or(f64::is_finite));
        assert!(m.desc.as_ref().is_none_or(|d| d.chars().count() <= 200));
    }
    let _ = timings(&text);
});
