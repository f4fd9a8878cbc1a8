//! The global allocator: mimalloc, through its plain entry points where they give the alignment
//! asked for.
//!
//! A fuzzing job allocates some 20,000 times per program (the explorer copies and drops a graph
//! per branch of its search). The `mimalloc` crate sends every allocation through
//! `mi_malloc_aligned`, whose path is longer than `mi_malloc`'s even for the alignment `mi_malloc`
//! gives anyway; this one uses `mi_malloc` there, as the standard library's `System` uses
//! `malloc` (the same rule: an alignment of at most 16 bytes and at most the size).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every `mi_malloc` block of at least that size has (mimalloc's
/// `MI_MAX_ALIGN_SIZE`, `sizeof(max_align_t)` on the platforms tcfuzz builds for).
const PLAIN_ALIGN: usize = 16;

pub struct Allocator;

unsafe extern "C" {
    // mimalloc's `mi_collect` (`mimalloc.h`), in the library `libmimalloc-sys` builds; that crate
    // declares it only behind its `extended` feature, which needs one more dependency.
    fn mi_collect(force: bool);
}

/// Gives the memory mimalloc holds free back to the system, so that the resident set is again
/// what is live: `tcfuzz bench` does this between runs, whose peak RSS would otherwise include
/// the pages an earlier, larger run left cached.
pub fn release_free_memory() {
    // SAFETY: `mi_collect` takes no pointer and may be called at any time from any thread.
    unsafe { mi_collect(true) }
}

/// Turns transparent huge pages off for this process, unless `MIMALLOC_ALLOW_THP` says
/// otherwise. mimalloc asks for them on its arenas, and the kernel then backs each first touch
/// with 2 MiB: a check's resident set was twice what it uses (`tcfuzz bench --model ptx`: wcas 17
/// 20.6 → 10.1 MB, indexer 15 117 → 98 MB), at no cost in speed measured here (`bench`, `fuzz`).
/// Call it first thing: the flag covers the mappings made before it too.
pub fn without_huge_pages() {
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() {
        return;
    }
    // SAFETY: PR_SET_THP_DISABLE takes no pointer; a failure (an old kernel) only leaves them on.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Whether `mi_malloc(size)` is aligned enough for `align`.
#[inline]
fn plain(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

// SAFETY: every block comes from mimalloc and goes back to it (`mi_free` takes blocks of either
// entry point); the alignment asked for is met by `plain`'s rule or by the aligned entry points.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain C allocation calls; a null result is passed on as the failure it is.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (GlobalAlloc's contract).
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout` (GlobalAlloc's contract).
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [usize; 12] = [1, 7, 8, 12, 16, 24, 40, 72, 1000, 5000, 70_000, 3 << 20];
    const ALIGNS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 4096];

    #[test]
    fn every_block_has_the_alignment_asked_for_and_keeps_its_bytes_through_realloc() {
        let a = Allocator;
        for align in ALIGNS {
            for size in SIZES {
                let layout = Layout::from_size_align(size, align).expect("layout");
                // SAFETY: a non-zero size; the block is freed with the layout it was made with.
                unsafe {
                    let zeroed = a.alloc_zeroed(layout);
                    assert!(!zeroed.is_null());
                    assert_eq!(zeroed as usize % align, 0, "alloc_zeroed({size}, {align})");
                    assert!(std::slice::from_raw_parts(zeroed, size).iter().all(|&b| b == 0), "alloc_zeroed({size}, {align}) is not zero");
                    a.dealloc(zeroed, layout);

                    let mut p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc({size}, {align})");
                    for i in 0..size {
                        *p.add(i) = (i % 251) as u8;
                    }
                    for new_size in SIZES {
                        let q = a.realloc(p, layout, new_size);
                        assert!(!q.is_null());
                        assert_eq!(q as usize % align, 0, "realloc({size} -> {new_size}, {align})");
                        let kept = size.min(new_size);
                        assert!((0..kept).all(|i| *q.add(i) == (i % 251) as u8), "realloc({size} -> {new_size}, {align}) lost bytes");
                        // Back to the original size for the next round.
                        let back = a.realloc(q, Layout::from_size_align(new_size, align).expect("layout"), size);
                        assert!(!back.is_null());
                        for i in kept..size {
                            *back.add(i) = (i % 251) as u8;
                        }
                        assert_eq!(back as usize % align, 0);
                        p = back;
                    }
                    a.dealloc(p, layout);
                }
            }
        }
    }

    /// The resident set of this process in KiB.
    fn rss_kb() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
        line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmRSS in KiB")
    }

    #[test]
    fn huge_pages_are_off_unless_the_environment_allows_them() {
        without_huge_pages();
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        let Some(line) = status.lines().find(|l| l.starts_with("THP_enabled:")) else { return }; // (kernels before 5.0)
        let expected = if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() { "1" } else { "0" };
        assert_eq!(line.split_whitespace().nth(1), Some(expected), "{line}");
    }

    #[test]
    fn released_free_memory_leaves_the_resident_set() {
        // 64 MiB in small blocks (each written, so resident), which mimalloc keeps in its pages
        // once freed.
        let blocks: Vec<Box<[u8; 256]>> = (0..256 * 1024).map(|i| Box::new([i as u8; 256])).collect();
        let held = rss_kb();
        drop(blocks);
        release_free_memory();
        let released = rss_kb();
        // (Other tests of this process may allocate meanwhile: a margin of half.)
        assert!(held.saturating_sub(released) >= 32 * 1024, "resident: {held} KiB with the blocks, {released} KiB after");
    }
}
