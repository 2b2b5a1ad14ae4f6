// The C library's own calls EfferentSystem needs that Swift's Glibc module leaves out.
#pragma once
#include <pthread.h>
#include <stdint.h>
/// The calling thread, as `pthread_self()` tells it (as a number to compare), but through a pointer the compiler cannot see
/// through. glibc declares `pthread_self` `__attribute__((const))`, which lets the optimizer take
/// one call's value for another; inside an async function that value can be kept across an `await`
/// that resumed on a different thread, and a lock that records its holder then records the thread
/// the task left. The volatile load makes every call a real call.
static inline uintptr_t efferent_current_thread(void) {
    pthread_t (*volatile self)(void) = pthread_self;
    return (uintptr_t)self();
}
#if defined(__linux__)
#include <malloc.h>
/// glibc's malloc_trim(0): free heap pages back to the system; 1 if any were.
static inline int efferent_malloc_trim(void) { return malloc_trim(0); }
/// glibc's mallopt: blocks of `threshold` bytes or more are mapped on their own and unmapped when
/// freed (a fixed threshold, so glibc no longer raises it after each large free), and a heap's
/// free top past twice that is given back.
static inline void efferent_malloc_map_large(size_t threshold) {
    mallopt(M_MMAP_THRESHOLD, (int)threshold);
    mallopt(M_TRIM_THRESHOLD, (int)(2 * threshold));
}
#else
static inline int efferent_malloc_trim(void) { return 0; }
static inline void efferent_malloc_map_large(size_t threshold) { (void)threshold; }
#endif
