// zlib. deflateInit2 and inflateInit2 are macros, which Swift cannot call: wrap them.
#pragma once
#include <zlib.h>

static inline int efferent_deflate_init_raw(z_streamp stream, int level) {
    // windowBits -15: raw deflate (RFC 1951), no zlib or gzip header. memLevel 8 is zlib's default.
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

static inline int efferent_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -15);
}

static inline int efferent_inflate_init_gzip(z_streamp stream) {
    // windowBits 16 + 15: a gzip member (RFC 1952), header and CRC-32 trailer checked by zlib.
    return inflateInit2(stream, 16 + 15);
}
