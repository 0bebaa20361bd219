/* frame.h — the batch frame: a batch of (key, value code) pairs as one byte string, the form in
 * which the engine hands values to a store. The engine owns the format; a store reads and writes
 * it through this header (the LMDB store's C module includes it, and ruma.engine.frame is the
 * same in Python).
 *
 * Layout, little-endian, for n entries:
 *
 *     offset 0         count n                          u32 (never 0xFFFFFFFF: a store may mark
 *                                                        payloads of its own with that word)
 *     offset 4         the key lengths                  n × u16
 *     offset 4 + 2n    the value codes                  n × u64: 2v for the nim value v (odd codes
 *                                                        are a store's own: the LMDB store's 2s + 1
 *                                                        names its game with store id s)
 *     offset 4 + 10n   the keys, whole, one after another (ruleset code, version, body)
 *
 * and nothing after the last key. The engine's producers (search_memo.c's pack_pending, a sweep's
 * drain in shared_type.c) write keys sorted, bodies of one ruleset; a store takes any order.
 * Self-contained: only the C standard library. */
#ifndef RUMA_FRAME_H
#define RUMA_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The bytes before the keys of a frame of n entries. */
static inline size_t frame_head(size_t n) { return 4 + 10 * n; }
/* The bytes of a frame of n entries whose keys add up to `keys` bytes. */
static inline size_t frame_bytes(size_t n, size_t keys) { return frame_head(n) + keys; }

/* -- reading -------------------------------------------------------------------------------- */

/* The count of a frame of `size` bytes, or SIZE_MAX when it is too short to hold that many. */
static inline size_t frame_count(const uint8_t *frame, size_t size) {
    if (size < 4) return SIZE_MAX;
    size_t n = (size_t)frame[0] | (size_t)frame[1] << 8 | (size_t)frame[2] << 16 | (size_t)frame[3] << 24;
    return (size - 4) / 10 < n ? SIZE_MAX : n;
}
/* Where the key lengths, the codes and the keys of a frame of n entries begin. */
static inline const uint8_t *frame_lengths(const uint8_t *frame) { return frame + 4; }
static inline const uint8_t *frame_codes(const uint8_t *frame, size_t n) { return frame + 4 + 2 * n; }
/* The i-th key length, from frame_lengths. */
static inline size_t frame_length(const uint8_t *lengths, size_t i) {
    return (size_t)lengths[2 * i] | (size_t)lengths[2 * i + 1] << 8;
}
/* The i-th value code, from frame_codes. */
static inline uint64_t frame_code(const uint8_t *codes, size_t i) {
    uint64_t v = 0;
    for (int b = 0; b < 8; b++) v |= (uint64_t)codes[8 * i + b] << (8 * b);
    return v;
}

/* -- writing -------------------------------------------------------------------------------- */

/* A frame being filled (frame_bytes of room): its key lengths, codes, where the next key goes, and
 * the ruleset prefix of keys given by their bodies (frame_put). */
typedef struct {
    uint8_t *lengths, *codes, *key;
    uint8_t code, version;
} Packed;

/* Start filling `out` with n entries; keys given by their bodies are of the ruleset (code, version). */
static inline Packed frame_start(uint8_t *out, size_t n, int code, int version) {
    for (int b = 0; b < 4; b++) out[b] = (uint8_t)(n >> (8 * b));
    return (Packed){out + 4, out + 4 + 2 * n, out + frame_head(n), (uint8_t)code, (uint8_t)version};
}

/* Entry k's key length (len < 65536) and value code. */
static inline void frame_entry(Packed *f, size_t k, size_t len, uint64_t code) {
    f->lengths[2 * k] = (uint8_t)len;
    f->lengths[2 * k + 1] = (uint8_t)(len >> 8);
    for (int b = 0; b < 8; b++) f->codes[8 * k + b] = (uint8_t)(code >> (8 * b));
}

/* Put entry k: a whole key of len bytes (len < 65536) and its value code. */
static inline void frame_put_key(Packed *f, size_t k, const uint8_t *key, size_t len, uint64_t code) {
    frame_entry(f, k, len, code);
    memcpy(f->key, key, len);
    f->key += len;
}

/* Put entry k: the nim value `value` of the key with this body (len + 2 < 65536); returns where
 * the whole key was written. */
static inline const uint8_t *frame_put(Packed *f, size_t k, const uint8_t *body, size_t len, int32_t value) {
    frame_entry(f, k, len + 2, (uint64_t)value << 1); /* (store.codec.encode_value(False, value) as a number) */
    uint8_t *key = f->key;
    key[0] = f->code;
    key[1] = f->version;
    memcpy(key + 2, body, len);
    f->key += len + 2;
    return key;
}

#endif
