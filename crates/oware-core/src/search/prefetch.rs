//! Asking the processor for memory before it is read. Searches that walk many large
//! tables or trees at once (the batched MCTS, the alpha-beta transposition table) hide
//! the wait for memory by asking for what they will read a few steps ahead.

/// Hints the processor to load every 64-byte cache line of `value` into the caches.
/// Only a hint: it never faults and changes nothing a program computes.
#[inline]
pub fn prefetch<T>(value: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        let start = value as *const i8;
        let size = std::mem::size_of::<T>().max(1);
        // Each line the value starts in or crosses into, and its last byte's.
        for at in (0..size).step_by(64).chain([size - 1]) {
            // SAFETY: a prefetch is only a hint; it never faults, whatever the address
            // (`wrapping_add` makes no claim about the allocation either).
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    start.wrapping_add(at),
                )
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
