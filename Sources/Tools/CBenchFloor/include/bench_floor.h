// Reference floors for scripts/bench, in plain C on the same libraries Efferent uses, so each
// Swift figure is printed next to what the libraries alone cost in the same run. Never used by
// the product.
#pragma once
#include <stddef.h>
#include <stdint.h>

// Raw deflate (level 6, one reused stream) then an RFC 9180 base-mode HPKE seal written directly
// on libsodium, for `count` bodies laid end to end in `bodies` with lengths `lengths`.
// Returns the total sealed bytes, or -1 on failure.
long long efferent_floor_seal(const uint8_t *bodies, const size_t *lengths, size_t count,
                              const uint8_t recipient_public[32], uint8_t *scratch, size_t scratch_size);

// HPKE open then raw inflate for `count` sealed blobs; returns the total inflated bytes or -1.
long long efferent_floor_open(const uint8_t *sealed, const size_t *lengths, size_t count,
                              const uint8_t recipient_private[32], const uint8_t recipient_public[32],
                              uint8_t *scratch, size_t scratch_size);

// HPKE open alone (no inflate) for `count` sealed blobs; returns the total plaintext bytes or -1.
long long efferent_floor_open_hpke(const uint8_t *sealed, const size_t *lengths, size_t count,
                                   const uint8_t recipient_private[32], const uint8_t recipient_public[32],
                                   uint8_t *scratch, size_t scratch_size);

// A bare libmicrohttpd daemon (thread pool of `threads`) answering every request with `body`.
// Returns an opaque handle, or NULL; the bound port is written to *port.
void *efferent_floor_http_start(const uint8_t *body, size_t length, unsigned threads, unsigned *port);
void efferent_floor_http_stop(void *daemon);

// Inserts `rows` rows of (bucket, day, bytes, uploaded, blob) into a fresh SQLite file in WAL
// mode with synchronous=NORMAL, `per_transaction` rows a transaction. Returns 0 or an error code.
int efferent_floor_sqlite_insert(const char *path, const uint8_t *blob, size_t blob_length,
                                 int rows, int per_transaction);

// libmicrohttpd answering every request as the service answers a signed range read: the Ed25519
// `signature` of `message` by `public_key` checked, then the service's own range select over the
// SQLite archive at `db_path` (read-only) — days of `bucket` after `after` through `through`, at
// most `max_days` — sent as a frame. The service's threading model: one thread per connection,
// read connections from a pool of 16. NULL on failure (a signature that does not verify or a
// select that returns nothing included); the bound port is written to *port.
void *efferent_floor_range_start(const char *db_path, const char *bucket, const char *after, const char *through, int max_days,
                                 const uint8_t public_key[32], const uint8_t signature[64], const uint8_t *message,
                                 size_t message_length, unsigned *port);
void efferent_floor_range_stop(void *handle);
