#![allow(unsafe_code)]
//! The wasm module's memory allocator: size classes of powers of two, each with its own free list,
//! carved from memory by a bump pointer.
//!
//! Why a crate that forbids `unsafe` has this module: the default allocator on
//! `wasm32-unknown-unknown` (dlmalloc) is about 4 KB gzip of the module, a twentieth of what a
//! page downloads (`npm run size`), and the core needs none of what it buys. The core allocates in
//! few shapes (growing `Vec`s and `String`s, which double, and small records), runs on one thread
//! and never returns memory to the host (wasm memory cannot shrink). Classes of powers of two fit
//! doubling buffers exactly, and a freed block is reused by the next request of its class.
//!
//! Audit notes (the only `unsafe` in the crate):
//! - One thread: wasm32 without the `atomics` feature has no threads, so the state lives in
//!   `Cell`s behind an `unsafe impl Sync` that is true there and is compiled nowhere else.
//! - A block of class `k` is `2^k` bytes (8 at least), so a free block always holds the `usize`
//!   link written into its first word, and that word is aligned (blocks are 8-aligned at least).
//! - Alignment: a fresh block is aligned to `max(align, 8)`; a freed block is reused only when its
//!   address already meets the request's alignment, so no alignment is ever lost.
//! - Memory comes only from `memory.grow` and never goes back; a failed grow returns null, which
//!   Rust turns into its allocation-failure path (an abort, caught by the shell as a trap).
//! - `realloc` keeps the block when the new size is in the same class (the bytes past the old
//!   size are the block's own), and otherwise copies `min(old, new)` bytes, as `GlobalAlloc`
//!   requires.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::Cell;

const CLASSES: usize = 32;
const MIN_CLASS: u32 = 3;
const PAGE: usize = 65536;

/// The allocator: free lists by class, and the bump range `next..end`.
pub struct Classes {
    free: [Cell<usize>; CLASSES],
    next: Cell<usize>,
    end: Cell<usize>,
}

// SAFETY: compiled only for wasm32 without threads (see the module's audit notes).
unsafe impl Sync for Classes {}

impl Classes {
    /// An allocator that has taken no memory yet.
    pub const fn new() -> Self {
        Classes {
            free: [const { Cell::new(0) }; CLASSES],
            next: Cell::new(0),
            end: Cell::new(0),
        }
    }

    /// The class of a request: the smallest `k` with `2^k ≥ size` and `2^k ≥ 8`.
    fn class(size: usize) -> usize {
        let size = size.max(1 << MIN_CLASS);
        (usize::BITS - (size - 1).leading_zeros()) as usize
    }

    /// A fresh block from the bump range, growing memory when the range is short.
    fn bump(&self, size: usize, align: usize) -> *mut u8 {
        let start = (self.next.get() + align - 1) & !(align - 1);
        let Some(stop) = start.checked_add(size) else {
            return core::ptr::null_mut();
        };
        if stop > self.end.get() {
            let pages = (stop - self.end.get()).div_ceil(PAGE);
            let old = core::arch::wasm32::memory_grow(0, pages);
            if old == usize::MAX {
                return core::ptr::null_mut();
            }
            if old * PAGE != self.end.get() {
                // Memory grew by someone else, or this is the first grow: start afresh at the
                // old end (what lay between is not ours).
                self.next.set(old * PAGE);
            }
            self.end.set((old + pages) * PAGE);
            return self.bump(size, align);
        }
        self.next.set(stop);
        start as *mut u8
    }
}

impl Default for Classes {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: see the module's audit notes; every block handed out is `2^class` bytes, aligned as
// asked, and owned by the caller until `dealloc`.
unsafe impl GlobalAlloc for Classes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let k = Self::class(layout.size());
        if k >= CLASSES {
            return core::ptr::null_mut();
        }
        let head = self.free[k].get();
        if head != 0 && head % layout.align() == 0 {
            // SAFETY: `head` is a free block of class k, whose first word is the next link.
            self.free[k].set(unsafe { *(head as *const usize) });
            return head as *mut u8;
        }
        self.bump(1 << k, layout.align().max(1 << MIN_CLASS))
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let k = Self::class(layout.size());
        // SAFETY: the block is ours again, at least 8 bytes and 8-aligned.
        unsafe { *(ptr as *mut usize) = self.free[k].get() };
        self.free[k].set(ptr as usize);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if Self::class(layout.size()) == Self::class(new_size) {
            return ptr;
        }
        // SAFETY: as `GlobalAlloc::realloc` requires, `new_size` with the old alignment is a
        // valid layout; the old block is valid for `layout.size()` bytes.
        unsafe {
            let new = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !new.is_null() {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}
