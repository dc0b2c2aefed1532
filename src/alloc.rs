#![allow(unsafe_code)]
//! The wasm module's memory allocator: size classes of powers of two, each with its own free
//! list, carved from memory by a bump pointer whose last block grows in place.
//!
//! Why a crate that forbids `unsafe` has this module: the default allocator on
//! `wasm32-unknown-unknown` (dlmalloc) is about 4 KB gzip of the module, a twentieth of what a
//! page downloads (`npm run size`), and the core needs little of what it buys. The core allocates
//! in few shapes: small records, growing `Vec`s and `String`s (which double), and the shell's
//! input, which crosses in parts of at most 64 KiB (`js/core/link.js`). It runs on one thread and
//! never returns memory to the host (wasm memory cannot shrink).
//! - A request takes a block of its power-of-two class; a freed block is reused by the next
//!   request of its class. Classes fit doubling buffers exactly.
//! - The last block carved grows in place (a buffer that doubles at the top is never copied and
//!   leaves no hole), and a block freed at the top goes back to the bump pointer.
//!
//! Measured in the bench's 100,000-token answer (`npm run bench`, memory row): the module's memory
//! grows by about 29 bytes per token, where dlmalloc grew by 46.
//!
//! Audit notes (the only `unsafe` in the crate):
//! - One thread: wasm32 without the `atomics` feature has no threads, so the state lives in
//!   `Cell`s behind an `unsafe impl Sync` that is true there. Natively the module exists only for
//!   its tests (`tests/native/alloc.rs`), which give each instance a memory of its own.
//! - A block of class `k` is `2^k` bytes (8 at least), a function of the layout's size alone, so
//!   `dealloc` and `realloc` know the block from the layout `GlobalAlloc` hands back. A free block
//!   holds its link in its first word, which is aligned (blocks are 8-aligned at least).
//! - Alignment: a fresh block is aligned to `max(align, 8)`; a freed block is reused only when its
//!   address already meets the request's alignment, so no alignment is ever lost.
//! - Memory comes only from the grow function (`memory.grow` in the module) and never goes back;
//!   a failed grow returns null, which Rust turns into its allocation-failure path (an abort,
//!   caught by the shell as a trap). When memory grew by someone else in between, the bump range
//!   starts afresh at the new memory (what lay between is not ours).
//! - `realloc` keeps the block when the new size is in the same class (the bytes past the old
//!   size are the block's own), grows the top block in place, and otherwise copies
//!   `min(old, new)` bytes, as `GlobalAlloc` requires.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::Cell;

const CLASSES: usize = 32;
const MIN_CLASS: u32 = 3;
/// The unit the grow function counts in (a wasm page).
pub const PAGE: usize = 65536;

/// The allocator: free lists by class, and the bump range `next..end`.
pub struct Classes {
    free: [Cell<usize>; CLASSES],
    next: Cell<usize>,
    end: Cell<usize>,
    /// Grows memory by a number of pages; returns the old size in pages, or `usize::MAX`.
    grow: fn(usize) -> usize,
}

// SAFETY: one thread in the module (see the module's audit notes).
unsafe impl Sync for Classes {}

/// `memory.grow` on the module's memory.
#[cfg(target_arch = "wasm32")]
fn memory_grow(pages: usize) -> usize {
    core::arch::wasm32::memory_grow(0, pages)
}

#[cfg(target_arch = "wasm32")]
impl Default for Classes {
    fn default() -> Self {
        Self::new()
    }
}

impl Classes {
    /// The module's allocator, which has taken no memory yet.
    #[cfg(target_arch = "wasm32")]
    pub const fn new() -> Self {
        Self::with_grow(memory_grow)
    }

    /// An allocator over memory grown by `grow` (tests give it a buffer of their own).
    pub const fn with_grow(grow: fn(usize) -> usize) -> Self {
        Classes {
            free: [const { Cell::new(0) }; CLASSES],
            next: Cell::new(0),
            end: Cell::new(0),
            grow,
        }
    }

    /// The bytes of the block a request of `size` takes: its class.
    pub fn block(size: usize) -> usize {
        1 << Self::class(size)
    }

    /// The class of a request: the smallest `k` with `2^k ≥ size` and `2^k ≥ 8`.
    fn class(size: usize) -> usize {
        let size = size.max(1 << MIN_CLASS);
        (usize::BITS - (size - 1).leading_zeros()) as usize
    }

    /// Where the bump range ends now.
    pub fn top(&self) -> usize {
        self.next.get()
    }

    /// Makes the bump range reach `stop`, growing memory when it is short: `Some(true)` when it
    /// does, `Some(false)` when memory grew by someone else in between (the range then starts
    /// afresh at the old end, as what lay between is not ours), `None` when memory cannot grow.
    fn reach(&self, stop: usize) -> Option<bool> {
        if stop <= self.end.get() {
            return Some(true);
        }
        let pages = (stop - self.end.get()).div_ceil(PAGE);
        let old = (self.grow)(pages);
        if old == usize::MAX {
            return None;
        }
        let ours = old * PAGE == self.end.get();
        if !ours {
            self.next.set(old * PAGE);
        }
        self.end.set((old + pages) * PAGE);
        Some(ours)
    }

    /// A fresh block from the bump range.
    fn bump(&self, size: usize, align: usize) -> *mut u8 {
        loop {
            let start = (self.next.get() + align - 1) & !(align - 1);
            let Some(stop) = start.checked_add(size) else {
                return core::ptr::null_mut();
            };
            match self.reach(stop) {
                Some(true) => {
                    self.next.set(stop);
                    return start as *mut u8;
                }
                Some(false) => continue,
                None => return core::ptr::null_mut(),
            }
        }
    }
}

// SAFETY: see the module's audit notes; every block handed out is `Classes::block(size)` bytes,
// aligned as asked, and owned by the caller until `dealloc`.
unsafe impl GlobalAlloc for Classes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let align = layout.align().max(1 << MIN_CLASS);
        let k = Self::class(layout.size());
        if k >= CLASSES {
            return core::ptr::null_mut();
        }
        let head = self.free[k].get();
        if head != 0 && head % align == 0 {
            // SAFETY: `head` is a free block of class k, whose first word is the next link.
            self.free[k].set(unsafe { *(head as *const usize) });
            return head as *mut u8;
        }
        self.bump(1 << k, align)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let k = Self::class(layout.size());
        if ptr as usize + (1 << k) == self.next.get() {
            // The last block carved: the bump range takes it back whole.
            self.next.set(ptr as usize);
            return;
        }
        // SAFETY: the block is ours again, at least 8 bytes and 8-aligned.
        unsafe { *(ptr as *mut usize) = self.free[k].get() };
        self.free[k].set(ptr as usize);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (k, new_k) = (Self::class(layout.size()), Self::class(new_size));
        if k == new_k {
            return ptr;
        }
        let at = ptr as usize;
        if new_k > k
            && new_k < CLASSES
            && self.free[new_k].get() == 0
            && at + (1 << k) == self.next.get()
        {
            // The last block carved grows where it is, when no freed block of the new class
            // waits (taking fresh memory while one waits would leak a block per round): no
            // copy, and no hole left behind.
            if let Some(stop) = at.checked_add(1 << new_k) {
                if self.reach(stop) == Some(true) {
                    self.next.set(stop);
                    return ptr;
                }
            }
        }
        // SAFETY: as `GlobalAlloc::realloc` requires, `new_size` with the old alignment is a
        // valid layout; the old block is valid for `layout.size()` bytes.
        unsafe {
            let moved = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !moved.is_null() {
                core::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            moved
        }
    }
}
