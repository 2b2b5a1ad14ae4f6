// The C library's own calls EfferentSystem needs that Swift's Glibc module leaves out.
#pragma once
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
