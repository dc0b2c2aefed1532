//! The wasm module's allocator (`src/alloc.rs`), run natively over a buffer of its own: blocks
//! keep their contents and stay apart under random use, alignment holds, the top block grows in
//! place, freed blocks are reused, and doubling buffers between the shell's passing input parts
//! take little more than they hold.
#![cfg(not(target_arch = "wasm32"))]
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};

use tokenpaint::alloc::{Classes, PAGE};

/// A memory of `PAGES` wasm pages for one test, grown like `memory.grow`.
macro_rules! memory {
    ($name:ident, $pages:expr) => {
        fn $name(pages: usize) -> usize {
            static BASE: AtomicUsize = AtomicUsize::new(0);
            static USED: AtomicUsize = AtomicUsize::new(0);
            if BASE.load(Ordering::Relaxed) == 0 {
                let layout = Layout::from_size_align($pages * PAGE, PAGE).unwrap();
                let base = unsafe { std::alloc::alloc(layout) } as usize;
                BASE.store(base / PAGE, Ordering::Relaxed);
            }
            let used = USED.load(Ordering::Relaxed);
            if used + pages > $pages {
                return usize::MAX;
            }
            USED.store(used + pages, Ordering::Relaxed);
            BASE.load(Ordering::Relaxed) + used
        }
    };
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Live {
    ptr: *mut u8,
    layout: Layout,
    mark: u8,
}

fn fill(b: &Live) {
    unsafe { std::ptr::write_bytes(b.ptr, b.mark, b.layout.size()) };
}

fn check(b: &Live, len: usize) {
    let bytes = unsafe { std::slice::from_raw_parts(b.ptr, len) };
    assert!(
        bytes.iter().all(|&x| x == b.mark),
        "a block of {} bytes was overwritten",
        b.layout.size()
    );
}

fn size(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0..=5 => 1 + rng.below(200),
        6 | 7 => 1 + rng.below(20_000),
        _ => 16_000 + rng.below(300_000),
    }
}

memory!(random_memory, 2048);

#[test]
fn blocks_keep_their_contents_and_alignment_under_random_use() {
    let a = Classes::with_grow(random_memory);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut live: Vec<Live> = Vec::new();
    for step in 0..60_000u32 {
        let mark = (step % 251) as u8 + 1;
        match rng.below(4) {
            0 | 1 if live.len() < 400 => {
                let align = [1, 8, 16, 64, 4096][rng.below(5)];
                let layout = Layout::from_size_align(size(&mut rng), align).unwrap();
                let ptr = unsafe { a.alloc(layout) };
                assert!(!ptr.is_null());
                assert_eq!(ptr as usize % align, 0, "alignment {align}");
                let b = Live { ptr, layout, mark };
                fill(&b);
                live.push(b);
            }
            2 if !live.is_empty() => {
                let i = rng.below(live.len());
                let b = &mut live[i];
                check(b, b.layout.size());
                let new_size = size(&mut rng);
                let ptr = unsafe { a.realloc(b.ptr, b.layout, new_size) };
                assert!(!ptr.is_null());
                let kept = b.layout.size().min(new_size);
                b.ptr = ptr;
                check(b, kept);
                b.layout = Layout::from_size_align(new_size, b.layout.align()).unwrap();
                assert_eq!(ptr as usize % b.layout.align(), 0);
                b.mark = mark;
                fill(b);
            }
            _ if !live.is_empty() => {
                let b = live.swap_remove(rng.below(live.len()));
                check(&b, b.layout.size());
                unsafe { a.dealloc(b.ptr, b.layout) };
            }
            _ => {}
        }
    }
    for b in &live {
        check(b, b.layout.size());
    }
}

memory!(top_memory, 512);

#[test]
fn the_top_block_grows_in_place_and_freed_blocks_come_back() {
    let a = Classes::with_grow(top_memory);
    let l = |n: usize| Layout::from_size_align(n, 8).unwrap();
    let start = unsafe { a.alloc(l(8)) } as usize;
    // The last block carved grows where it is, and goes back to the bump range when freed.
    let p = unsafe { a.alloc(l(100)) };
    let mut size = 100;
    for _ in 0..12 {
        let grown = unsafe { a.realloc(p, l(size), size * 2) };
        assert_eq!(grown, p, "the top block grows in place");
        size *= 2;
        assert_eq!(a.top(), p as usize + Classes::block(size));
    }
    unsafe { a.dealloc(p, l(size)) };
    assert_eq!(a.top(), p as usize);
    // Blocks freed last-first all go back to the bump range.
    let blocks: Vec<_> = (1..60)
        .map(|i| (unsafe { a.alloc(l(i * 37)) }, l(i * 37)))
        .collect();
    for &(b, layout) in blocks.iter().rev() {
        unsafe { a.dealloc(b, layout) };
    }
    assert_eq!(a.top(), p as usize);
    // A block freed below the top serves the next request of its class, in place.
    let below = unsafe { a.alloc(l(3000)) };
    let above = unsafe { a.alloc(l(10)) };
    unsafe { a.dealloc(below, l(3000)) };
    assert_eq!(unsafe { a.alloc(l(2100)) }, below);
    let _ = (above, start);
}

memory!(rounds_memory, 256);

#[test]
fn rounds_of_the_same_work_stop_taking_memory() {
    // What each stream does: a buffer (the report) doubles from nothing while small records come
    // and go, then everything is freed, the buffer first. Memory settles after a few rounds.
    let a = Classes::with_grow(rounds_memory);
    let l = |n: usize| Layout::from_size_align(n, 8).unwrap();
    let mut tops = Vec::new();
    for _ in 0..300 {
        let mut size = 8;
        let mut buf = unsafe { a.alloc(l(size)) };
        let mut small = Vec::new();
        while size < 16384 {
            buf = unsafe { a.realloc(buf, l(size), size * 2) };
            size *= 2;
            small.push(unsafe { a.alloc(l(24)) });
        }
        unsafe { a.dealloc(buf, l(size)) };
        for p in small.into_iter().rev() {
            unsafe { a.dealloc(p, l(24)) };
        }
        tops.push(a.top());
    }
    assert_eq!(
        tops[20],
        tops[299],
        "memory kept growing: {:?}",
        &tops[..30]
    );
}

memory!(doubling_memory, 1024);

#[test]
fn doubling_buffers_between_passing_batches_take_little_more_than_they_hold() {
    // What the core does over a long answer: two buffers double while the shell's input parts
    // (at most 64 KiB: js/batch.js) and strings come and go between their growths.
    let a = Classes::with_grow(doubling_memory);
    let mut rng = Rng(7);
    let start = {
        let p = unsafe { a.alloc(Layout::from_size_align(8, 8).unwrap()) };
        p as usize
    };
    let (mut text, mut text_cap) = (std::ptr::null_mut::<u8>(), 0usize);
    let (mut recs, mut recs_cap) = (std::ptr::null_mut::<u8>(), 0usize);
    let grow = |p: *mut u8, cap: usize| -> (*mut u8, usize) {
        let new = (cap * 2).max(4096);
        let p = if p.is_null() {
            unsafe { a.alloc(Layout::from_size_align(new, 8).unwrap()) }
        } else {
            unsafe { a.realloc(p, Layout::from_size_align(cap, 8).unwrap(), new) }
        };
        (p, new)
    };
    let mut peak = 0;
    while text_cap < 4 << 20 {
        for _ in 0..8 {
            let batch = Layout::from_size_align(1 + rng.below(64 * 1024), 1).unwrap();
            let p = unsafe { a.alloc(batch) };
            unsafe { a.dealloc(p, batch) };
        }
        (text, text_cap) = grow(text, text_cap);
        if recs_cap < 1 << 20 {
            (recs, recs_cap) = grow(recs, recs_cap);
        }
        peak = peak.max(a.top() - start);
    }
    let held = text_cap + recs_cap;
    println!("peak {peak} bytes for {held} bytes held");
    assert!(
        peak as f64 <= held as f64 * 1.6 + 300_000.0,
        "peak {peak} bytes for {held} bytes held"
    );
}
