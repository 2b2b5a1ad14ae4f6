// libgfshare (Debian's libgfshare-dev): Shamir's secret sharing over GF(256), for split recovery kits.
#pragma once
#include <stddef.h>
#include <errno.h>
#include <sys/random.h>
#include <libgfshare.h>

// libgfshare draws the random coefficients of each split through a global function pointer that
// starts out NULL; this fills it from the kernel's CSPRNG (getrandom(2)), retrying short reads.
static void efferent_gfshare_fill(unsigned char *buffer, unsigned int count) {
    size_t done = 0;
    while (done < count) {
        ssize_t got = getrandom(buffer + done, count - done, 0);
        if (got > 0) { done += (size_t)got; }
        else if (got < 0 && errno != EINTR) { __builtin_trap(); }
    }
}

static inline void efferent_gfshare_use_kernel_random(void) { gfshare_fill_rand = efferent_gfshare_fill; }

// The same calls over void pointers (unsigned char * reads awkwardly in Swift).
static inline gfshare_ctx *efferent_gfshare_init_enc(const void *numbers, unsigned int count, unsigned char threshold, unsigned int size) {
    return gfshare_ctx_init_enc((unsigned char *)numbers, count, threshold, size);
}
static inline gfshare_ctx *efferent_gfshare_init_dec(const void *numbers, unsigned int count, unsigned int size) {
    return gfshare_ctx_init_dec((unsigned char *)numbers, count, size);
}
static inline void efferent_gfshare_set_secret(gfshare_ctx *ctx, const void *secret) {
    gfshare_ctx_enc_setsecret(ctx, (unsigned char *)secret);
}
static inline void efferent_gfshare_get_share(gfshare_ctx *ctx, unsigned char index, void *share) {
    gfshare_ctx_enc_getshare(ctx, index, (unsigned char *)share);
}
static inline void efferent_gfshare_give_share(gfshare_ctx *ctx, unsigned char index, const void *share) {
    gfshare_ctx_dec_giveshare(ctx, index, (unsigned char *)share);
}
static inline void efferent_gfshare_extract(gfshare_ctx *ctx, void *secret) {
    gfshare_ctx_dec_extract(ctx, (unsigned char *)secret);
}
