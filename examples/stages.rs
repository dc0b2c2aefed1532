//! Where reading a stream costs time, stage by stage (native; for relative figures):
//! `cargo run --release --example stages`.
use std::time::Instant;
use tokenpaint::read::sse::{SseFramer, SseItem};
use tokenpaint::read::wire::{Adapter, Format};
use tokenpaint::timeline::session::{EndKind, Session};

fn main() {
    let mut body = String::new();
    let words = [
        "the", " latency", " of", " a", " café", " 東京", " 😀", "\\n",
    ];
    let mut i = 0;
    while body.len() < 10 << 20 {
        body.push_str(&format!("data: {{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1718000000,\"model\":\"bench-model\",\"system_fingerprint\":\"fp_bench\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}},\"logprobs\":null,\"finish_reason\":null}}]}}\n\n", words[i % words.len()]));
        i += 1;
    }
    let bytes = body.as_bytes();
    let chunks: Vec<&[u8]> = bytes.chunks(4096).collect();
    for _ in 0..2 {
        let t = Instant::now();
        let mut n = 0;
        let mut f = SseFramer::default();
        for c in &chunks {
            f.feed(c, &mut |item| {
                if let SseItem::Event(_) = item {
                    n += 1
                }
            });
        }
        let framing = t.elapsed();
        let t = Instant::now();
        let mut f = SseFramer::default();
        let mut a = Adapter::new();
        let mut deltas = 0;
        for c in &chunks {
            f.feed(c, &mut |item| {
                if let SseItem::Event(e) = item {
                    let _ = a.event(Format::OpenAiChat, e.event, e.data, &mut |_| deltas += 1);
                }
            });
        }
        let adapting = t.elapsed();
        let t = Instant::now();
        let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 0.0, 200);
        for (k, c) in chunks.iter().enumerate() {
            s.chunk(c, k as f64);
        }
        s.end(EndKind::Complete, 1.0);
        let session = t.elapsed();
        println!("{n} events: framing {framing:?}, + adapter {adapting:?}, session {session:?} ({deltas} items)");
    }
}
