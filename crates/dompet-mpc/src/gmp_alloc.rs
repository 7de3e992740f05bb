//! Wipe GMP memory on free.
//!
//! cggmp21 keeps the Paillier secret key (`AuxInfo::p`, `AuxInfo::q`) and many intermediate
//! secrets of its zero-knowledge proofs in `rug::Integer`s, i.e. GMP limbs on the C heap. Neither
//! rug nor GMP clears that memory when an integer is dropped. GMP lets a program replace its
//! allocator (`mp_set_memory_functions`); we install one that delegates to the C allocator and
//! zeroizes every block before it is freed (and the old block on every reallocation).
//!
//! This is memory hygiene only: it does not touch any cryptographic computation. GMP is linked
//! statically into this library (gmp-mpfr-sys builds its own copy), so this changes the
//! allocator of our private GMP copy only, not that of other modules in the same process.
//!
//! The functions are safe to install at any time: blocks are always obtained from `malloc`, so a
//! block allocated before installation (by GMP's default `malloc`-based functions) is released
//! correctly by ours and vice versa.

use std::ffi::c_void;
use std::sync::Once;

use gmp_mpfr_sys::gmp;
use zeroize::Zeroize;

static INSTALL: Once = Once::new();

/// Installs the wiping allocator into GMP (idempotent, cheap after the first call).
pub fn install() {
    INSTALL.call_once(|| unsafe {
        // SAFETY: the three functions form a consistent malloc-based allocator, see module docs.
        gmp::set_memory_functions(Some(allocate), Some(reallocate), Some(free));
    });
}

/// Whether GMP currently uses our allocator (used by tests and diagnostics).
pub fn installed() -> bool {
    let mut alloc_fn: gmp::allocate_function = None;
    let mut realloc_fn: gmp::reallocate_function = None;
    let mut free_fn: gmp::free_function = None;
    // SAFETY: GMP writes three function pointers into the provided locations.
    unsafe { gmp::get_memory_functions(&mut alloc_fn, &mut realloc_fn, &mut free_fn) };
    let ours: gmp::free_function = Some(free);
    free_fn.map(|f| f as usize) == ours.map(|f| f as usize)
}

extern "C" fn allocate(size: usize) -> *mut c_void {
    // SAFETY: plain C allocation; GMP treats the result as uninitialised memory.
    let ptr = unsafe { libc::malloc(size.max(1)) };
    if ptr.is_null() {
        // GMP cannot handle allocation failure either (its default allocator aborts).
        std::process::abort();
    }
    ptr
}

unsafe extern "C" fn reallocate(ptr: *mut c_void, old_size: usize, new_size: usize) -> *mut c_void {
    if ptr.is_null() {
        return allocate(new_size);
    }
    let new_ptr = allocate(new_size);
    let copy = old_size.min(new_size).min(block_size(ptr, old_size));
    // SAFETY: both blocks are valid for `copy` bytes and distinct.
    unsafe { std::ptr::copy_nonoverlapping(ptr as *const u8, new_ptr as *mut u8, copy) };
    // SAFETY: `ptr` came from malloc (ours or GMP's default) and is not used by GMP any more.
    unsafe { wipe_and_free(ptr, old_size) };
    new_ptr
}

unsafe extern "C" fn free(ptr: *mut c_void, size: usize) {
    if !ptr.is_null() {
        // SAFETY: as above.
        unsafe { wipe_and_free(ptr, size) };
    }
}

unsafe fn wipe_and_free(ptr: *mut c_void, size_hint: usize) {
    let len = block_size(ptr, size_hint);
    // SAFETY: the block is at least `len` bytes long and exclusively ours. `zeroize` uses
    // volatile writes, so the wipe is not optimised away although the block is freed next.
    unsafe {
        std::slice::from_raw_parts_mut(ptr as *mut u8, len).zeroize();
        libc::free(ptr);
    }
}

/// Usable size of a malloc block. On Linux (glibc and musl) the allocator tells us; elsewhere we
/// trust the size GMP passes, which is exact for every allocation GMP makes itself.
#[cfg(target_os = "linux")]
fn block_size(ptr: *mut c_void, _size_hint: usize) -> usize {
    // SAFETY: `ptr` is a live block returned by malloc.
    unsafe { libc::malloc_usable_size(ptr) }
}

#[cfg(not(target_os = "linux"))]
fn block_size(_ptr: *mut c_void, size_hint: usize) -> usize {
    size_hint
}

#[cfg(test)]
mod tests {
    use cggmp21::rug::Integer;

    #[test]
    fn installed_and_integers_still_work() {
        super::install();
        assert!(super::installed());
        // Exercise alloc, realloc and free through rug.
        let mut x = Integer::from(1u8);
        for _ in 0..64 {
            x *= Integer::from(u64::MAX);
        }
        let y = x.clone() % Integer::from(1_000_003u32);
        drop(x);
        assert!(y < 1_000_003u32);
    }
}
