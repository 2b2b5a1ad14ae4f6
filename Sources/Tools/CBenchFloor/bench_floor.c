#include "bench_floor.h"
#include <sodium.h>
#include <zlib.h>
#include <sqlite3.h>
#include <microhttpd.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>

static const uint8_t KEM_SUITE[5] = {'K', 'E', 'M', 0x00, 0x20};
static const uint8_t HPKE_SUITE[10] = {'H', 'P', 'K', 'E', 0x00, 0x20, 0x00, 0x01, 0x00, 0x03};

// Every C call's return code is checked: a floor that failed quietly would print a fast reference.
// Functions here answer 0 on success and -1 on any failure, which the exported entry points pass up.
#define CHECK(call) do { if ((call) != 0) return -1; } while (0)

static int hmac(const uint8_t *key, size_t key_len, const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                const uint8_t *c, size_t c_len, uint8_t out[32]) {
    crypto_auth_hmacsha256_state st;
    CHECK(crypto_auth_hmacsha256_init(&st, key, key_len));
    CHECK(crypto_auth_hmacsha256_update(&st, a, a_len));
    if (b_len) CHECK(crypto_auth_hmacsha256_update(&st, b, b_len));
    if (c_len) CHECK(crypto_auth_hmacsha256_update(&st, c, c_len));
    CHECK(crypto_auth_hmacsha256_final(&st, out));
    return 0;
}

// LabeledExtract(salt, label, ikm) = HMAC(salt or 32 zeros, "HPKE-v1" || suite || label || ikm).
static int labeled_extract(const uint8_t *suite, size_t suite_len, const uint8_t *salt, size_t salt_len,
                           const char *label, const uint8_t *ikm, size_t ikm_len, uint8_t out[32]) {
    uint8_t zeros[32] = {0};
    uint8_t prefix[64];
    size_t n = 0;
    memcpy(prefix, "HPKE-v1", 7); n = 7;
    memcpy(prefix + n, suite, suite_len); n += suite_len;
    size_t l = strlen(label);
    memcpy(prefix + n, label, l); n += l;
    return hmac(salt_len ? salt : zeros, salt_len ? salt_len : 32, prefix, n, ikm, ikm_len, NULL, 0, out);
}

// LabeledExpand for L <= 32: one HMAC block, T(1) = HMAC(prk, info' || 0x01).
static int labeled_expand(const uint8_t *suite, size_t suite_len, const uint8_t prk[32], const char *label,
                          const uint8_t *info, size_t info_len, size_t length, uint8_t *out) {
    uint8_t prefix[64];
    size_t n = 0;
    prefix[n++] = (uint8_t)(length >> 8);
    prefix[n++] = (uint8_t)length;
    memcpy(prefix + n, "HPKE-v1", 7); n += 7;
    memcpy(prefix + n, suite, suite_len); n += suite_len;
    size_t l = strlen(label);
    memcpy(prefix + n, label, l); n += l;
    uint8_t one = 1, block[32];
    CHECK(hmac(prk, 32, prefix, n, info, info_len, &one, 1, block));
    memcpy(out, block, length);
    return 0;
}

static uint8_t CONTEXT[65];
static int context_ready = 0;

static int schedule(const uint8_t dh[32], const uint8_t kem_context[64], uint8_t key[32], uint8_t nonce[12]) {
    if (!context_ready) {
        const char *info = "efferent/v2 hpke";
        CONTEXT[0] = 0;
        CHECK(labeled_extract(HPKE_SUITE, 10, NULL, 0, "psk_id_hash", NULL, 0, CONTEXT + 1));
        CHECK(labeled_extract(HPKE_SUITE, 10, NULL, 0, "info_hash", (const uint8_t *)info, strlen(info), CONTEXT + 33));
        context_ready = 1;
    }
    uint8_t eae[32], shared[32], secret[32];
    CHECK(labeled_extract(KEM_SUITE, 5, NULL, 0, "eae_prk", dh, 32, eae));
    CHECK(labeled_expand(KEM_SUITE, 5, eae, "shared_secret", kem_context, 64, 32, shared));
    CHECK(labeled_extract(HPKE_SUITE, 10, shared, 32, "secret", NULL, 0, secret));
    CHECK(labeled_expand(HPKE_SUITE, 10, secret, "key", CONTEXT, 65, 32, key));
    CHECK(labeled_expand(HPKE_SUITE, 10, secret, "base_nonce", CONTEXT, 65, 12, nonce));
    return 0;
}

long long efferent_floor_seal(const uint8_t *bodies, const size_t *lengths, size_t count,
                              const uint8_t recipient_public[32], uint8_t *scratch, size_t scratch_size) {
    if (sodium_init() < 0) return -1;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    uint8_t *deflated = scratch, *sealed = scratch + scratch_size / 2;
    long long total = 0;
    size_t offset = 0;
    for (size_t i = 0; i < count; i++) {
        if (deflateReset(&z) != Z_OK) { deflateEnd(&z); return -1; }
        z.next_in = (Bytef *)(bodies + offset);
        z.avail_in = (uInt)lengths[i];
        z.next_out = deflated;
        z.avail_out = (uInt)(scratch_size / 2);
        if (deflate(&z, Z_FINISH) != Z_STREAM_END) { deflateEnd(&z); return -1; }
        size_t packed = scratch_size / 2 - z.avail_out;
        offset += lengths[i];

        uint8_t sk[32], dh[32], kem_context[64], key[32], nonce[12];
        randombytes_buf(sk, 32);
        if (crypto_scalarmult_base(kem_context, sk) != 0) { deflateEnd(&z); return -1; }
        memcpy(kem_context + 32, recipient_public, 32);
        if (crypto_scalarmult(dh, sk, recipient_public) != 0) { deflateEnd(&z); return -1; }
        if (schedule(dh, kem_context, key, nonce) != 0) { deflateEnd(&z); return -1; }
        static const char prefix[] = "efferent/v1\nabcdefghijklmnopqrstuvwxyz\n2026-08-07";
        sealed[0] = 2;
        memcpy(sealed + 1, kem_context, 32);
        unsigned long long clen = 0;
        if (crypto_aead_chacha20poly1305_ietf_encrypt(sealed + 33, &clen, deflated, packed, (const uint8_t *)prefix,
                                                      sizeof prefix - 1, NULL, nonce, key) != 0) {
            deflateEnd(&z);
            return -1;
        }
        total += 33 + (long long)clen;
    }
    deflateEnd(&z);
    return total;
}

long long efferent_floor_open(const uint8_t *sealed, const size_t *lengths, size_t count,
                              const uint8_t recipient_private[32], const uint8_t recipient_public[32],
                              uint8_t *scratch, size_t scratch_size) {
    if (sodium_init() < 0) return -1;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) return -1;
    uint8_t *plain = scratch, *inflated = scratch + scratch_size / 2;
    long long total = 0;
    size_t offset = 0;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *blob = sealed + offset;
        offset += lengths[i];
        uint8_t dh[32], kem_context[64], key[32], nonce[12];
        memcpy(kem_context, blob + 1, 32);
        memcpy(kem_context + 32, recipient_public, 32);
        if (crypto_scalarmult(dh, recipient_private, blob + 1) != 0) { inflateEnd(&z); return -1; }
        if (schedule(dh, kem_context, key, nonce) != 0) { inflateEnd(&z); return -1; }
        static const char prefix[] = "efferent/v1\nabcdefghijklmnopqrstuvwxyz\n2026-08-07";
        unsigned long long mlen = 0;
        if (crypto_aead_chacha20poly1305_ietf_decrypt(plain, &mlen, NULL, blob + 33, lengths[i] - 33,
                                                      (const uint8_t *)prefix, sizeof prefix - 1, nonce, key) != 0) {
            inflateEnd(&z);
            return -1;
        }
        if (inflateReset(&z) != Z_OK) { inflateEnd(&z); return -1; }
        z.next_in = plain;
        z.avail_in = (uInt)mlen;
        z.next_out = inflated;
        z.avail_out = (uInt)(scratch_size / 2);
        if (inflate(&z, Z_FINISH) != Z_STREAM_END) { inflateEnd(&z); return -1; }
        total += (long long)(scratch_size / 2 - z.avail_out);
    }
    inflateEnd(&z);
    return total;
}

long long efferent_floor_open_hpke(const uint8_t *sealed, const size_t *lengths, size_t count,
                                   const uint8_t recipient_private[32], const uint8_t recipient_public[32],
                                   uint8_t *scratch, size_t scratch_size) {
    if (sodium_init() < 0) return -1;
    long long total = 0;
    size_t offset = 0;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *blob = sealed + offset;
        offset += lengths[i];
        if (lengths[i] - 33 > scratch_size) return -1;
        uint8_t dh[32], kem_context[64], key[32], nonce[12];
        memcpy(kem_context, blob + 1, 32);
        memcpy(kem_context + 32, recipient_public, 32);
        if (crypto_scalarmult(dh, recipient_private, blob + 1) != 0) return -1;
        if (schedule(dh, kem_context, key, nonce) != 0) return -1;
        static const char prefix[] = "efferent/v1\nabcdefghijklmnopqrstuvwxyz\n2026-08-07";
        unsigned long long mlen = 0;
        if (crypto_aead_chacha20poly1305_ietf_decrypt(scratch, &mlen, NULL, blob + 33, lengths[i] - 33,
                                                      (const uint8_t *)prefix, sizeof prefix - 1, nonce, key) != 0) return -1;
        total += (long long)mlen;
    }
    return total;
}

struct floor_http {
    struct MHD_Daemon *daemon;
    struct MHD_Response *response;
};

static enum MHD_Result floor_answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                    const char *version, const char *upload_data, size_t *upload_data_size, void **state) {
    (void)url; (void)method; (void)version; (void)upload_data;
    // Answer on the second call: queuing on the first drops keep-alive in libmicrohttpd 0.9.75.
    if (*state == NULL) { *state = (void *)1; return MHD_YES; }
    if (*upload_data_size) { *upload_data_size = 0; return MHD_YES; }
    return MHD_queue_response(connection, MHD_HTTP_OK, ((struct floor_http *)cls)->response);
}

void *efferent_floor_http_start(const uint8_t *body, size_t length, unsigned threads, unsigned *port) {
    static struct floor_http server;
    server.response = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (server.response == NULL) return NULL;
    if (MHD_add_response_header(server.response, "Content-Type", "application/octet-stream") != MHD_YES) {
        MHD_destroy_response(server.response);
        return NULL;
    }
    server.daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, floor_answer, &server,
                                     MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT, 1024,
                                     MHD_OPTION_END);
    if (server.daemon == NULL) { MHD_destroy_response(server.response); return NULL; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server.daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info == NULL || info->port == 0) {
        MHD_stop_daemon(server.daemon);
        MHD_destroy_response(server.response);
        return NULL;
    }
    *port = info->port;
    return &server;
}

void efferent_floor_http_stop(void *handle) {
    struct floor_http *server = handle;
    MHD_stop_daemon(server->daemon);
    MHD_destroy_response(server->response);
}

int efferent_floor_sqlite_insert(const char *path, const uint8_t *blob, size_t blob_length, int rows, int per_transaction) {
    sqlite3 *db = NULL;
    sqlite3_stmt *insert = NULL;
    char day[16];
    int rc = sqlite3_open(path, &db);
    if (rc != SQLITE_OK) goto done;
    rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                          "CREATE TABLE day (bucket TEXT NOT NULL, day TEXT NOT NULL, bytes INTEGER NOT NULL,"
                          " uploaded INTEGER NOT NULL, sealed BLOB NOT NULL, PRIMARY KEY (bucket, day));"
                          "CREATE INDEX day_listing ON day (bucket, day, bytes, uploaded);", NULL, NULL, NULL);
    if (rc != SQLITE_OK) goto done;
    rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO day VALUES (?, ?, ?, ?, ?)", -1, &insert, NULL);
    for (int i = 0; i < rows && rc == SQLITE_OK; i++) {
        if (i % per_transaction == 0 && (rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK) break;
        snprintf(day, sizeof day, "%04d-%02d-%02d", 1990 + i / 372, 1 + (i / 31) % 12, 1 + i % 31);
        if ((rc = sqlite3_bind_text(insert, 1, "abcdefghijklmnopqrstuvwxyz", -1, SQLITE_STATIC)) != SQLITE_OK) break;
        if ((rc = sqlite3_bind_text(insert, 2, day, -1, SQLITE_TRANSIENT)) != SQLITE_OK) break;
        if ((rc = sqlite3_bind_int64(insert, 3, (sqlite3_int64)blob_length)) != SQLITE_OK) break;
        if ((rc = sqlite3_bind_int64(insert, 4, i)) != SQLITE_OK) break;
        if ((rc = sqlite3_bind_blob(insert, 5, blob, (int)blob_length, SQLITE_STATIC)) != SQLITE_OK) break;
        if (sqlite3_step(insert) != SQLITE_DONE) { rc = sqlite3_errcode(db); break; }
        if ((rc = sqlite3_reset(insert)) != SQLITE_OK) break;
        if (i % per_transaction == per_transaction - 1 || i == rows - 1) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
done:
    sqlite3_finalize(insert);
    if (sqlite3_close(db) != SQLITE_OK && rc == SQLITE_OK) rc = SQLITE_ERROR;
    // SQLITE_OK is 0, so success answers 0 and a failure its non-zero SQLite code.
    return rc;
}

// The range floor: libmicrohttpd answering every request the way the service answers a signed
// range read, in plain C: the Ed25519 signature of the read checked (libsodium, as the service's
// §7 check), then the service's own range select over its SQLite file, the rows packed into a
// frame (day, 4-byte big-endian length, blob) straight from SQLite's row memory. The daemon runs
// the service's threading model — one thread per connection, poll, 256 KiB per connection — and
// its read-only connections come from a pool of 16 behind one pthread lock, as the service's do.
#define RANGE_POOL 16

struct range_slot {
    sqlite3 *db;
    sqlite3_stmt *select;
};

struct floor_range {
    struct MHD_Daemon *daemon;
    char path[4096];
    char bucket[64];
    char after[16];
    char through[16];
    int max_days;
    uint8_t public_key[32];
    uint8_t signature[64];
    uint8_t *message;
    size_t message_length;
    pthread_mutex_t lock;
    pthread_cond_t returned;
    struct range_slot idle[RANGE_POOL];
    int idle_count;
    int opened;
};

static void range_close(struct range_slot *slot) {
    sqlite3_finalize(slot->select);
    sqlite3_close(slot->db);
    slot->select = NULL;
    slot->db = NULL;
}

// A connection from the pool, opened on demand up to RANGE_POOL; 0 or -1.
static int range_take(struct floor_range *range, struct range_slot *slot) {
    pthread_mutex_lock(&range->lock);
    while (range->idle_count == 0 && range->opened >= RANGE_POOL) pthread_cond_wait(&range->returned, &range->lock);
    if (range->idle_count > 0) {
        *slot = range->idle[--range->idle_count];
        pthread_mutex_unlock(&range->lock);
        return 0;
    }
    range->opened++;
    pthread_mutex_unlock(&range->lock);
    memset(slot, 0, sizeof *slot);
    if (sqlite3_open_v2(range->path, &slot->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK
        && sqlite3_prepare_v3(slot->db, "SELECT day, bytes, uploaded, sealed FROM day WHERE bucket = ? AND day > ? AND day <= ? "
                                        "ORDER BY day LIMIT ?", -1, SQLITE_PREPARE_PERSISTENT, &slot->select, NULL) == SQLITE_OK) {
        return 0;
    }
    range_close(slot);
    pthread_mutex_lock(&range->lock);
    range->opened--;
    pthread_cond_signal(&range->returned);
    pthread_mutex_unlock(&range->lock);
    return -1;
}

static void range_give(struct floor_range *range, struct range_slot *slot) {
    pthread_mutex_lock(&range->lock);
    range->idle[range->idle_count++] = *slot;
    pthread_cond_signal(&range->returned);
    pthread_mutex_unlock(&range->lock);
}

// The frame of the range, in a malloc'd buffer the response takes over; NULL on any failure.
static uint8_t *range_select(struct floor_range *range, sqlite3_stmt *select, size_t *length) {
    if (sqlite3_reset(select) != SQLITE_OK) return NULL;
    if (sqlite3_bind_text(select, 1, range->bucket, -1, SQLITE_STATIC) != SQLITE_OK) return NULL;
    if (sqlite3_bind_text(select, 2, range->after, -1, SQLITE_STATIC) != SQLITE_OK) return NULL;
    if (sqlite3_bind_text(select, 3, range->through, -1, SQLITE_STATIC) != SQLITE_OK) return NULL;
    if (sqlite3_bind_int(select, 4, range->max_days + 1) != SQLITE_OK) return NULL;
    size_t capacity = 1 << 20, used = 0;
    uint8_t *frame = malloc(capacity);
    if (frame == NULL) return NULL;
    int rows = 0, rc;
    while ((rc = sqlite3_step(select)) == SQLITE_ROW && rows < range->max_days) {
        int bytes = sqlite3_column_bytes(select, 3);
        const void *blob = sqlite3_column_blob(select, 3);
        const unsigned char *day = sqlite3_column_text(select, 0);
        if (day == NULL || sqlite3_column_bytes(select, 0) != 10 || (blob == NULL && bytes > 0)) { free(frame); return NULL; }
        if (used + 14 + (size_t)bytes > capacity) {
            capacity = (used + 14 + (size_t)bytes) * 2;
            uint8_t *grown = realloc(frame, capacity);
            if (grown == NULL) { free(frame); return NULL; }
            frame = grown;
        }
        memcpy(frame + used, day, 10);
        frame[used + 10] = (uint8_t)(bytes >> 24);
        frame[used + 11] = (uint8_t)(bytes >> 16);
        frame[used + 12] = (uint8_t)(bytes >> 8);
        frame[used + 13] = (uint8_t)bytes;
        memcpy(frame + used + 14, blob, (size_t)bytes);
        used += 14 + (size_t)bytes;
        rows++;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) { free(frame); return NULL; }
    sqlite3_reset(select);
    *length = used;
    return frame;
}

static uint8_t *range_frame(struct floor_range *range, size_t *length) {
    if (crypto_sign_verify_detached(range->signature, range->message, range->message_length, range->public_key) != 0) return NULL;
    struct range_slot slot;
    if (range_take(range, &slot) != 0) return NULL;
    uint8_t *frame = range_select(range, slot.select, length);
    range_give(range, &slot);
    return frame;
}

static enum MHD_Result range_answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                    const char *version, const char *upload_data, size_t *upload_data_size, void **state) {
    (void)url; (void)method; (void)version; (void)upload_data;
    // Answer on the second call: queuing on the first drops keep-alive in libmicrohttpd 0.9.75.
    if (*state == NULL) { *state = (void *)1; return MHD_YES; }
    if (*upload_data_size) { *upload_data_size = 0; return MHD_YES; }
    size_t length = 0;
    uint8_t *frame = range_frame(cls, &length);
    if (frame == NULL) return MHD_NO;
    struct MHD_Response *response = MHD_create_response_from_buffer(length, frame, MHD_RESPMEM_MUST_FREE);
    if (response == NULL) { free(frame); return MHD_NO; }
    if (MHD_add_response_header(response, "Content-Type", "application/octet-stream") != MHD_YES) {
        MHD_destroy_response(response);
        return MHD_NO;
    }
    enum MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return queued;
}

void *efferent_floor_range_start(const char *db_path, const char *bucket, const char *after, const char *through, int max_days,
                                 const uint8_t public_key[32], const uint8_t signature[64], const uint8_t *message,
                                 size_t message_length, unsigned *port) {
    static struct floor_range range;
    if (sodium_init() < 0) return NULL;
    if (strlen(db_path) >= sizeof range.path || strlen(bucket) >= sizeof range.bucket || strlen(after) >= sizeof range.after
        || strlen(through) >= sizeof range.through) return NULL;
    strcpy(range.path, db_path);
    strcpy(range.bucket, bucket);
    strcpy(range.after, after);
    strcpy(range.through, through);
    range.max_days = max_days;
    memcpy(range.public_key, public_key, 32);
    memcpy(range.signature, signature, 64);
    range.message = malloc(message_length);
    if (range.message == NULL) return NULL;
    memcpy(range.message, message, message_length);
    range.message_length = message_length;
    pthread_mutex_init(&range.lock, NULL);
    pthread_cond_init(&range.returned, NULL);
    range.idle_count = 0;
    range.opened = 0;
    // The signature and the select must work before anything is measured: a floor that fails
    // would look fast.
    size_t length = 0;
    uint8_t *probe = range_frame(&range, &length);
    if (probe == NULL || length == 0) { free(probe); efferent_floor_range_stop(&range); return NULL; }
    free(probe);
    range.daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL | MHD_USE_ITC,
                                    0, NULL, NULL, range_answer, &range, MHD_OPTION_CONNECTION_LIMIT, 512,
                                    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)256 * 1024, MHD_OPTION_END);
    if (range.daemon == NULL) { efferent_floor_range_stop(&range); return NULL; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(range.daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info == NULL || info->port == 0) { efferent_floor_range_stop(&range); return NULL; }
    *port = info->port;
    return &range;
}

void efferent_floor_range_stop(void *handle) {
    struct floor_range *range = handle;
    if (range->daemon != NULL) MHD_stop_daemon(range->daemon);
    range->daemon = NULL;
    while (range->idle_count > 0) range_close(&range->idle[--range->idle_count]);
    range->opened = 0;
    free(range->message);
    range->message = NULL;
    pthread_cond_destroy(&range->returned);
    pthread_mutex_destroy(&range->lock);
}
