/* table.c — see table.h for the layout. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_SLOTS 1024

/* A 64-bit multiply-xorshift hash over 8-byte chunks, folded to 32 bits. Keys are short (one byte
 * a pot), so a few multiplications per key; the final avalanche (MurmurHash3's fmix64) spreads
 * the low bits that index the table. */
uint32_t table_hash(const uint8_t *body, size_t len) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (len * 0xC2B2AE3D27D4EB4FULL);
    size_t k = 0;
    for (; k + 8 <= len; k += 8) {
        uint64_t chunk;
        memcpy(&chunk, body + k, 8); /* unaligned load, compiled to one instruction */
        h = (h ^ chunk) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    for (size_t j = 0; k + j < len; j++) tail |= (uint64_t)body[k + j] << (8 * j);
    h = (h ^ tail) * 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return (uint32_t)(h ^ (h >> 32));
}

int table_init(Table *t) {
    memset(t, 0, sizeof *t);
    t->slots = calloc(INITIAL_SLOTS, sizeof *t->slots);
    if (!t->slots) return -1;
    t->mask = INITIAL_SLOTS - 1;
    return 0;
}

void table_free(Table *t) {
    free(t->slots);
    free(t->arena);
    memset(t, 0, sizeof *t);
}

uint32_t table_find(const Table *t, const uint8_t *body, size_t len, uint32_t hash) {
    size_t i = hash & t->mask;
    for (;;) {
        uint64_t slot = t->slots[i];
        if (slot == 0) return TABLE_NONE;
        if ((uint32_t)(slot >> 32) == hash) {
            uint32_t rec = (uint32_t)slot - 1;
            size_t n;
            const uint8_t *b = table_body(t, rec, &n);
            if (n == len && memcmp(b, body, len) == 0) return rec;
        }
        i = (i + 1) & t->mask;
    }
}

static int grow_index(Table *t) {
    size_t size = (t->mask + 1) * 2;
    uint64_t *slots = calloc(size, sizeof *slots);
    if (!slots) return -1;
    size_t mask = size - 1;
    for (size_t i = 0; i <= t->mask; i++) {
        uint64_t slot = t->slots[i];
        if (!slot) continue;
        size_t j = (size_t)(slot >> 32) & mask; /* the stored hash: no key is re-read */
        while (slots[j]) j = (j + 1) & mask;
        slots[j] = slot;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = mask;
    return 0;
}

uint32_t table_add(Table *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value) {
    if ((t->count + 1) * 4 > (t->mask + 1) * 3 && grow_index(t) < 0) return TABLE_NONE;
    size_t words = table_record_words(len);
    if (t->arena_len + words > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap : 4096;
        while (cap < t->arena_len + words) cap *= 2;
        if (cap >= (size_t)UINT32_MAX) { /* offsets are 32-bit words */
            cap = (size_t)UINT32_MAX - 1;
            if (t->arena_len + words > cap) return TABLE_NONE;
        }
        /* realloc of a large block is an mremap on glibc: no copy, no double peak */
        uint32_t *arena = realloc(t->arena, cap * sizeof *arena);
        if (!arena) return TABLE_NONE;
        t->arena = arena;
        t->arena_cap = cap;
    }
    uint32_t rec = (uint32_t)t->arena_len;
    uint32_t *w = t->arena + rec;
    w[0] = (uint32_t)value;
    w[words - 1] = 0; /* zero the padding */
    uint8_t *p = (uint8_t *)(w + 1);
    if (len < 255) {
        p[0] = (uint8_t)len;
        memcpy(p + 1, body, len);
    } else {
        uint32_t n = (uint32_t)len;
        p[0] = 255;
        memcpy(p + 1, &n, 4);
        memcpy(p + 5, body, len);
    }
    t->arena_len += words;
    size_t i = hash & t->mask;
    while (t->slots[i]) i = (i + 1) & t->mask;
    t->slots[i] = ((uint64_t)hash << 32) | ((uint64_t)rec + 1);
    t->count++;
    return rec;
}

size_t table_bytes(const Table *t) { return (t->mask + 1) * sizeof *t->slots + t->arena_len * 4; }
