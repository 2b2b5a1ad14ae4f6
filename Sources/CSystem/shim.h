// The C library's own calls EfferentSystem needs that Swift's Glibc module leaves out.
#pragma once
#if defined(__linux__)
#include <malloc.h>
/// glibc's malloc_trim(0): free heap pages back to the system; 1 if any were.
static inline int efferent_malloc_trim(void) { return malloc_trim(0); }
#else
static inline int efferent_malloc_trim(void) { return 0; }
#endif
