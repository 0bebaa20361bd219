/* table.c — see table.h for the layout. */
#include "table.h"

#include <stdlib.h>
#include <string.h>
#include "hugemem.h"

#define INITIAL_SLOTS 1024
#define FIRST_BLOCKS 4                      /* a segment's first array: 28 slots */
#define HUGE_BLOCKS (HUGE_PAGE_BYTES / sizeof(TableBlock)) /* a huge page of blocks (of either kind) */
_Static_assert(sizeof(TableBlock) == 64 && sizeof(TableWideBlock) == 64, "a block is a cache line");
#define ARENA_MAX ((size_t)TABLE_GENERAL - 2) /* general offsets below TABLE_GENERAL - 1 (TABLE_NONE) */

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

int table_init_packed(Table *t) {
    if (table_init(t) < 0) return -1;
    t->packed = TABLE_PACKED_BYTES;
    return 0;
}

int table_init_wide(Table *t) {
    if (table_init(t) < 0) return -1;
    t->packed = TABLE_PACKED_WIDE;
    return 0;
}

void table_free(Table *t) {
    free(t->slots);
    free(t->arena);
    for (int k = 0; k < TABLE_SEGS; k++) free(t->seg[k].blocks);
    free(t->big_keys);
    free(t->big_vals);
    memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------------------------- */
/* packed part                                                                               */

size_t table_unpack(uint64_t key, uint8_t *out) {
    size_t n = 0;
    for (uint64_t k = key; k; k >>= 4) n++; /* the first nibble is nonzero: it tells the length */
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t nib = (uint8_t)(key >> (4 * (n - 1 - i)) & 15);
        out[i + 1] = nib == 15 ? 255 : nib;
    }
    return n + 1;
}

/* For blocks of PER keys (Block: TableBlock, seven, or TableWideBlock, five):
 *   probe: the slot of key in blocks, or of the empty slot where it would go (*found 0), from its
 *          home slot (hash * slots) >> 32 on, block by block;
 *   rehash: a zeroed array of n blocks (past 2 MiB on huge pages, which the kernel is asked to back
 *          a random access with: in 4 KiB pages nearly every probe also missed the TLB) holding
 *          the keys and values of `from` (nfrom blocks) in their new places; NULL without memory.
 * The block size is a constant of each function, so its divisions are multiplications. */
#define BLOCK_FUNCTIONS(probe, rehash, Block, PER)                                                          \
    static uint32_t probe(const Block *blocks, uint32_t nblocks, uint64_t key, uint64_t hash, int *found) { \
        uint32_t slot = (uint32_t)(((uint64_t)(uint32_t)hash * (nblocks * (uint64_t)(PER))) >> 32);         \
        uint32_t b = slot / (PER);                                                                          \
        unsigned i = slot % (PER);                                                                          \
        for (;;) {                                                                                          \
            const Block *B = &blocks[b];                                                                    \
            for (; i < (PER); i++) {                                                                        \
                uint64_t k = B->key[i];                                                                     \
                if (k == key || !k) {                                                                       \
                    *found = k != 0;                                                                        \
                    return b * (PER) + i;                                                                   \
                }                                                                                           \
            }                                                                                               \
            i = 0;                                                                                          \
            if (++b == nblocks) b = 0;                                                                      \
        }                                                                                                   \
    }                                                                                                       \
    static Block *rehash(const Block *from, uint32_t nfrom, uint32_t n) {                                   \
        Block *blocks = huge_zalloc((size_t)n * sizeof(Block));                                             \
        if (!blocks) return NULL;                                                                           \
        for (uint32_t b = 0; b < nfrom; b++) /* in slot order: the new places are in order too */           \
            for (unsigned i = 0; i < (PER); i++) {                                                          \
                uint64_t k = from[b].key[i];                                                                \
                if (!k) continue;                                                                           \
                int found;                                                                                  \
                uint32_t slot = probe(blocks, n, k, table_mix(k), &found);                                  \
                blocks[slot / (PER)].key[slot % (PER)] = k;                                                 \
                blocks[slot / (PER)].val[slot % (PER)] = from[b].val[i];                                    \
            }                                                                                               \
        return blocks;                                                                                      \
    }

BLOCK_FUNCTIONS(probe, rehash, TableBlock, 7)
BLOCK_FUNCTIONS(probe_wide, rehash_wide, TableWideBlock, 5)

uint32_t table_find_packed(const Table *t, uint64_t key, uint64_t hash) {
    unsigned s = (unsigned)(hash >> (64 - TABLE_SEG_BITS));
    const TableSeg *seg = &t->seg[s];
    if (!seg->nblocks) return TABLE_NONE;
    int found;
    uint32_t slot = t->packed == TABLE_PACKED_WIDE ? probe_wide(seg->wide, seg->nblocks, key, hash, &found)
                                                   : probe(seg->blocks, seg->nblocks, key, hash, &found);
    return found ? (uint32_t)s << TABLE_SLOT_BITS | slot : TABLE_NONE;
}

/* Grow segment s by half (its first array: FIRST_BLOCKS; from half a huge page on, whole huge
 * pages: sixteen segments of a table of a million positions are a megabyte or two each, and in
 * 4 KiB pages their probes missed the TLB); the owner's handles are relocated. */
static int grow_segment(Table *t, unsigned s) {
    TableSeg *seg = &t->seg[s];
    uint32_t n = seg->nblocks ? seg->nblocks + seg->nblocks / 2 : FIRST_BLOCKS;
    if (n >= HUGE_BLOCKS / 2) n = (n + HUGE_BLOCKS - 1) / HUGE_BLOCKS * HUGE_BLOCKS;
    unsigned per = t->packed == TABLE_PACKED_WIDE ? 5 : 7;
    if ((uint64_t)n * per > TABLE_SLOT_MASK + 1ull) n = (TABLE_SLOT_MASK + 1) / per;
    if (n <= seg->nblocks) return -1;
    void *fresh = t->packed == TABLE_PACKED_WIDE ? (void *)rehash_wide(seg->wide, seg->nblocks, n)
                                                 : (void *)rehash(seg->blocks, seg->nblocks, n);
    if (!fresh) return -1;
    t->old = seg->blocks;
    t->old_nblocks = seg->nblocks;
    t->old_seg = s;
    seg->blocks = fresh;
    seg->nblocks = n;
    seg->limit = (uint32_t)((uint64_t)n * per * 17 / 20); /* (a probe reads whole blocks: 0.85 costs little) */
    if (t->old && t->moved) t->moved(t->moved_ctx, t);
    free(t->old);
    t->old = NULL;
    return 0;
}

uint32_t table_relocate(const Table *t, uint32_t rec) {
    if (!t->old || (rec & TABLE_GENERAL) || rec >> TABLE_SLOT_BITS != t->old_seg) return rec;
    uint32_t slot = rec & TABLE_SLOT_MASK;
    uint64_t key = t->packed == TABLE_PACKED_WIDE ? ((const TableWideBlock *)t->old)[slot / 5].key[slot % 5]
                                                  : ((const TableBlock *)t->old)[slot / 7].key[slot % 7];
    return table_find_packed(t, key, table_mix(key));
}

uint32_t table_add_packed(Table *t, uint64_t key, uint64_t hash, int32_t value) {
    unsigned s = (unsigned)(hash >> (64 - TABLE_SEG_BITS));
    TableSeg *seg = &t->seg[s];
    if (seg->used + 1 > seg->limit && grow_segment(t, s) < 0) return TABLE_NONE;
    int found;
    uint32_t slot;
    if (t->packed == TABLE_PACKED_WIDE) {
        slot = probe_wide(seg->wide, seg->nblocks, key, hash, &found);
        seg->wide[slot / 5].key[slot % 5] = key;
        seg->wide[slot / 5].val[slot % 5] = -1; /* (UNKNOWN until set) */
    } else {
        slot = probe(seg->blocks, seg->nblocks, key, hash, &found);
        seg->blocks[slot / 7].key[slot % 7] = key;
        seg->blocks[slot / 7].val[slot % 7] = 255; /* (UNKNOWN until set) */
    }
    seg->used++;
    t->count++;
    uint32_t rec = (uint32_t)s << TABLE_SLOT_BITS | slot;
    if (table_set(t, rec, value) < 0) return TABLE_NONE;
    return rec;
}

/* ---- the side table of large values (rare: nim values above 250) ---- */

static size_t big_slot(const Table *t, uint64_t key) {
    size_t i = (size_t)table_mix(key) & t->big_mask;
    while (t->big_keys[i] && t->big_keys[i] != key) i = (i + 1) & t->big_mask;
    return i;
}

int32_t table_big_value(const Table *t, uint64_t key) { return t->big_vals[big_slot(t, key)]; }

int table_set_big(Table *t, uint64_t key, int32_t value) {
    if ((t->big_count + 1) * 2 > (t->big_keys ? t->big_mask + 1 : 0)) {
        size_t size = t->big_keys ? (t->big_mask + 1) * 2 : 64;
        uint64_t *keys = calloc(size, sizeof *keys);
        int32_t *vals = calloc(size, sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return -1;
        }
        Table grown = *t;
        grown.big_keys = keys;
        grown.big_vals = vals;
        grown.big_mask = size - 1;
        for (size_t i = 0; t->big_keys && i <= t->big_mask; i++)
            if (t->big_keys[i]) {
                size_t j = big_slot(&grown, t->big_keys[i]);
                keys[j] = t->big_keys[i];
                vals[j] = t->big_vals[i];
            }
        free(t->big_keys);
        free(t->big_vals);
        t->big_keys = keys;
        t->big_vals = vals;
        t->big_mask = size - 1;
    }
    size_t i = big_slot(t, key);
    if (!t->big_keys[i]) t->big_count++;
    t->big_keys[i] = key;
    t->big_vals[i] = value;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* general part                                                                              */

static uint32_t find_general(const Table *t, const uint8_t *body, size_t len, uint32_t hash) {
    size_t i = hash & t->mask;
    for (;;) {
        uint64_t slot = t->slots[i];
        if (slot == 0) return TABLE_NONE;
        if ((uint32_t)(slot >> 32) == hash) {
            uint32_t rec = TABLE_GENERAL | ((uint32_t)slot - 1);
            size_t n;
            const uint8_t *b = table_body(t, rec, &n, NULL);
            if (n == len && memcmp(b, body, len) == 0) return rec;
        }
        i = (i + 1) & t->mask;
    }
}

static int grow_index(Table *t) {
    size_t size = (t->mask + 1) * 2;
    uint64_t *slots = huge_zalloc(size * sizeof *slots);
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

static uint32_t add_general(Table *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value) {
    if ((t->general + 1) * 4 > (t->mask + 1) * 3 && grow_index(t) < 0) return TABLE_NONE;
    size_t words = table_record_words(len);
    if (t->arena_len + words > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap : 4096;
        while (cap < t->arena_len + words) cap *= 2;
        if (cap > ARENA_MAX) {
            cap = ARENA_MAX;
            if (t->arena_len + words > cap) return TABLE_NONE;
        }
        /* realloc of a large block is an mremap on glibc: no copy, no double peak */
        uint32_t *arena = realloc(t->arena, cap * sizeof *arena);
        if (!arena) return TABLE_NONE;
        huge_advise(arena, cap * sizeof *arena);
        t->arena = arena;
        t->arena_cap = cap;
    }
    uint32_t off = (uint32_t)t->arena_len;
    uint32_t *w = t->arena + off;
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
    t->slots[i] = ((uint64_t)hash << 32) | ((uint64_t)off + 1);
    t->general++;
    t->count++;
    t->valued += value >= 0;
    return TABLE_GENERAL | off;
}

/* ---------------------------------------------------------------------------------------- */
/* either part                                                                               */

uint32_t table_find(const Table *t, const uint8_t *body, size_t len, uint32_t hash) {
    uint64_t key;
    if (t->packed && table_pack(body, len, &key)) return table_find_packed(t, key, table_mix(key));
    return find_general(t, body, len, hash);
}

uint32_t table_add(Table *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value) {
    uint64_t key;
    if (t->packed && table_pack(body, len, &key)) return table_add_packed(t, key, table_mix(key), value);
    return add_general(t, body, len, hash, value);
}

int table_next(const Table *t, uint64_t *cursor, uint32_t *rec) {
    uint64_t c = *cursor;
    /* cursor: segment << 32 | slot through the segments, then TABLE_SEGS << 32 | arena offset */
    int wide = t->packed == TABLE_PACKED_WIDE;
    unsigned per = wide ? 5 : 7;
    for (unsigned s = (unsigned)(c >> 32); s < TABLE_SEGS; s++) {
        const TableSeg *seg = &t->seg[s];
        for (uint32_t slot = s == c >> 32 ? (uint32_t)c : 0; slot < seg->nblocks * per; slot++)
            if (wide ? seg->wide[slot / 5].key[slot % 5] : seg->blocks[slot / 7].key[slot % 7]) {
                *rec = (uint32_t)s << TABLE_SLOT_BITS | slot;
                *cursor = (uint64_t)s << 32 | (slot + 1);
                return 1;
            }
    }
    size_t off = (c >> 32) == TABLE_SEGS ? (uint32_t)c : 0;
    if (off >= t->arena_len) return 0;
    *rec = TABLE_GENERAL | (uint32_t)off;
    size_t len;
    table_body(t, *rec, &len, NULL);
    *cursor = (uint64_t)TABLE_SEGS << 32 | (off + table_record_words(len));
    return 1;
}

size_t table_bytes(const Table *t) {
    size_t bytes = (t->mask + 1) * sizeof *t->slots + t->arena_len * 4;
    for (int k = 0; k < TABLE_SEGS; k++) bytes += (size_t)t->seg[k].nblocks * sizeof(TableBlock);
    if (t->big_keys) bytes += (t->big_mask + 1) * 12;
    return bytes;
}
