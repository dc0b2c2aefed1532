//! The SSE framer on arbitrary bytes in arbitrary chunks: no panic, bounded buffers, and the
//! same events however the input is chunked.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tokenpaint::read::sse::{SseFramer, SseItem};

fn events(data: &[u8], step: usize) -> Vec<String> {
    let mut f = SseFramer::new(256);
    let mut out = Vec::new();
    for chunk in data.chunks(step.max(1)) {
        f.feed(chunk, &mut |item| match item {
            SseItem::Event(e) => out.push(format!("{}|{}", e.event, e.data)),
            SseItem::Error(e) => out.push(format!("{e:?}")),
        });
        assert!(f.buffered() <= 3 * 256);
    }
    f.finish();
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&step, rest)) = data.split_first() else { return };
    assert_eq!(events(rest, usize::from(step % 17) + 1), events(rest, rest.len().max(1)));
});
