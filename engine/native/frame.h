/* frame.h — the bytes of a batch of nim values as ruma.server.store.writer.pack lays them out:
 * count (u32), key lengths (u16 each), value codes 2n (u64 each), little-endian, then the whole
 * keys (ruleset code, version, body). The store hands such a batch to its writer process as it is
 * (LmdbStore.insert_packed); two producers make them: the search's hand-over (search_memo.c,
 * pack_pending) and a sweep's drain of its shared table (shared.c, drain_packed). */
#ifndef RUMA_FRAME_H
#define RUMA_FRAME_H

#include "core.h"

/* A frame being filled: the three regions after the count, and where the next key goes. */
typedef struct {
    uint8_t *lengths, *codes, *key;
    uint8_t code, version;
} Packed;

/* The bytes of a frame of n values whose bodies add up to `bodies` bytes. */
static inline size_t frame_size(size_t n, size_t bodies) { return 4 + 10 * n + bodies + 2 * n; }

/* Start filling `out` (frame_size bytes) with n values of the ruleset (code, version). */
static inline Packed frame_start(uint8_t *out, size_t n, int code, int version) {
    for (int b = 0; b < 4; b++) out[b] = (uint8_t)(n >> (8 * b));
    return (Packed){out + 4, out + 4 + 2 * n, out + 4 + 10 * n, (uint8_t)code, (uint8_t)version};
}

/* Put value k (nim value `value` of the key with this body; len + 2 < 65536); returns where the
 * whole key was written. */
static inline const uint8_t *frame_put(Packed *f, size_t k, const uint8_t *body, size_t len, int32_t value) {
    uint64_t code = (uint64_t)value << 1; /* (store.codec.encode_value(False, value) as a number) */
    f->lengths[2 * k] = (uint8_t)(len + 2);
    f->lengths[2 * k + 1] = (uint8_t)((len + 2) >> 8);
    for (int b = 0; b < 8; b++) f->codes[8 * k + b] = (uint8_t)(code >> (8 * b));
    uint8_t *key = f->key;
    key[0] = f->code;
    key[1] = f->version;
    memcpy(key + 2, body, len);
    f->key += len + 2;
    return key;
}

#endif
