/* table.h — the compact hash table of the compiled search: key body -> int32 value.
 *
 * Two parts; which one holds a key is a function of its body alone, so every key has one place.
 *
 * The packed part (tables made with table_init_packed: the impartial searches and the nim values
 * of a CompactMemo). A body that is 0x00 and then 1..16 bytes, the first of them nonzero and each
 * of them 0..14 or 255 (Sowing's full pot) — the canonical rows of a small game — is a 64-bit key:
 * one nibble a byte (255 as 15), right-aligned, so that the first pot's nonzero nibble tells the
 * length and the key is never 0 (table_pack / table_unpack; the bodies, and so the keys a memo or
 * the store is given, are exactly the same). Such keys live in TABLE_SEGS segments, chosen by the
 * top bits of the key's 64-bit hash, each an open-addressing array (linear probing, load <= 0.85)
 * of 64-byte blocks: seven keys and their seven value bytes, so a probe reads one cache line and a
 * position costs 64/7 = 9.1 bytes a slot (about 11-17 bytes a position). A value byte is the nim
 * value (0..250), a marker of the search (252..255 = -4..-1, see search.h) or TABLE_BIG: the value
 * is in a small side table (`big`). A segment grows alone (by half), so growing never holds two
 * copies of the whole table; its records move, and the table calls `moved` for the owner of
 * handles into it to relocate them (table_relocate) before the old array goes.
 *
 * Wide packed tables (table_init_wide: the partizan searches, whose values are game ids): the same
 * packed keys and segments, in blocks of five keys and their five int32 values (TableWideBlock,
 * 64 bytes: 12.8 bytes a slot), so a lookup is one cache line, where a general record is two
 * (index slot, then record). Which kind a table's segments are is fixed when it is made.
 *
 * The general part: every other key (long rows, large counts, text keys, Game values). Records
 * live back to back in one arena of 4-byte words:
 *     word 0: the value (int32; negative values are the search's markers, see search.c)
 *     then the key body's length (one byte, or 0xFF and four bytes when >= 255), then the body,
 *     padded to a 4-byte boundary.
 * A record is named by its offset in words. The index is an open-addressing array of 8-byte slots
 * (linear probing, load <= 3/4): the high half of a slot holds 32 bits of the key's hash, the low
 * half the record offset + 1 (0 = empty). Offsets are stable while the table grows.
 *
 * A record handle (uint32) is TABLE_GENERAL | the arena offset, or segment << TABLE_SLOT_BITS |
 * slot in a packed segment (changed only when that segment grows: `moved`).
 */
#ifndef RUMA_TABLE_H
#define RUMA_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TABLE_SEGS 16
#define TABLE_SEG_BITS 4
#define TABLE_SLOT_BITS 27
#define TABLE_SLOT_MASK ((1u << TABLE_SLOT_BITS) - 1)
#define TABLE_GENERAL 0x80000000u
#define TABLE_NONE UINT32_MAX
#define TABLE_PACKED_POTS 16 /* the longest row a packed key holds */
#define TABLE_BODY_SCRATCH (TABLE_PACKED_POTS + 1) /* the bytes table_body may write for a packed key */
#define TABLE_BIG 251 /* value byte: the value is in the side table */
#define TABLE_PACKED_BYTES 1 /* Table.packed: blocks of seven keys and value bytes */
#define TABLE_PACKED_WIDE 2  /* Table.packed: blocks of five keys and int32 values */

typedef struct {
    uint64_t key[7]; /* 0: empty */
    uint8_t val[7];
    uint8_t spare;
} TableBlock;

typedef struct {
    uint64_t key[5]; /* 0: empty */
    int32_t val[5];
    uint32_t spare;
} TableWideBlock;

typedef struct {
    union {
        TableBlock *blocks;    /* TABLE_PACKED_BYTES */
        TableWideBlock *wide;  /* TABLE_PACKED_WIDE */
    };
    uint32_t nblocks, used, limit;
} TableSeg;

typedef struct Table Table;
struct Table {
    /* general part */
    uint64_t *slots;
    size_t mask; /* slots - 1 (a power of two minus one) */
    size_t general; /* records in the general part */
    uint32_t *arena;
    size_t arena_len, arena_cap; /* in 4-byte words */
    /* both parts */
    size_t count;  /* records */
    size_t valued; /* records holding a value (>= 0) */
    /* packed part */
    int packed; /* 0, or TABLE_PACKED_*: packable bodies go to the segments, in blocks of that kind */
    TableSeg seg[TABLE_SEGS];
    uint64_t *big_keys; /* values that do not fit a byte: key -> value (open addressing) */
    int32_t *big_vals;
    size_t big_mask, big_count;
    /* a segment's records moved: its old blocks (for table_relocate) until moved() returns */
    void (*moved)(void *ctx, Table *t);
    void *moved_ctx;
    void *old; /* (TableBlock or TableWideBlock) */
    uint32_t old_nblocks, old_seg;
};

uint32_t table_hash(const uint8_t *body, size_t len);
/* A table of general records only (the kernel's caches, enum), or with the packed part too. */
int table_init(Table *t);
int table_init_packed(Table *t);
/* A table whose packable keys hold int32 values in wide blocks (see above). */
int table_init_wide(Table *t);
void table_free(Table *t);
/* The record of body, or TABLE_NONE. */
uint32_t table_find(const Table *t, const uint8_t *body, size_t len, uint32_t hash);
/* Add a record (body must be absent); returns it, or TABLE_NONE when out of memory. */
uint32_t table_add(Table *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value);
/* The words a general record of a body of len bytes takes (value word, length, body, padding). */
static inline size_t table_record_words(size_t len) { return 1 + (((len < 255 ? 1 : 5) + len + 3) >> 2); }

/* ---- packed keys ---- */
/* 1 and the key when body is packable (see above), else 0. */
static inline int table_pack(const uint8_t *body, size_t len, uint64_t *key) {
    if (len < 2 || len > TABLE_PACKED_POTS + 1 || body[0] != 0 || body[1] == 0) return 0;
    uint64_t k = 0;
    for (size_t i = 1; i < len; i++) {
        uint8_t b = body[i];
        if (b >= 15 && b != 255) return 0;
        k = k << 4 | (b == 255 ? 15u : b);
    }
    *key = k;
    return 1;
}
/* The body of a packed key (at most TABLE_BODY_SCRATCH bytes) into out; its length. */
size_t table_unpack(uint64_t key, uint8_t *out);
/* The 64-bit hash of a packed key (MurmurHash3's fmix64): its top bits pick the segment. */
static inline uint64_t table_mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDULL;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ULL;
    k ^= k >> 33;
    return k;
}
uint32_t table_find_packed(const Table *t, uint64_t key, uint64_t hash);
uint32_t table_add_packed(Table *t, uint64_t key, uint64_t hash, int32_t value);
/* Bring a packed key's block into the cache ahead of table_find_packed. */
static inline void table_prefetch_packed(const Table *t, uint64_t hash) {
    const TableSeg *s = &t->seg[hash >> (64 - TABLE_SEG_BITS)];
    if (!s->nblocks) return;
    /* the home block: (hash * slots) >> 32 over the slot's block size is (hash * blocks) >> 32,
     * for blocks of either kind (both are 64 bytes) */
    uint32_t block = (uint32_t)(((uint64_t)(uint32_t)hash * s->nblocks) >> 32);
#if defined(__GNUC__)
    __builtin_prefetch(&s->blocks[block]);
#else
    (void)block;
#endif
}
/* Where a record is now: during moved() (the segment t->old_seg grew), a handle into it; any
 * other handle is returned as it is. */
uint32_t table_relocate(const Table *t, uint32_t rec);

/* ---- records ---- */
int32_t table_big_value(const Table *t, uint64_t key);
int table_set_big(Table *t, uint64_t key, int32_t value);

static inline TableBlock *table_block(const Table *t, uint32_t rec, unsigned *i) {
    uint32_t slot = rec & TABLE_SLOT_MASK;
    *i = slot % 7;
    return &t->seg[rec >> TABLE_SLOT_BITS].blocks[slot / 7];
}
static inline TableWideBlock *table_wide_block(const Table *t, uint32_t rec, unsigned *i) {
    uint32_t slot = rec & TABLE_SLOT_MASK;
    *i = slot % 5;
    return &t->seg[rec >> TABLE_SLOT_BITS].wide[slot / 5];
}
static inline int32_t table_value(const Table *t, uint32_t rec) {
    if (rec & TABLE_GENERAL) return (int32_t)t->arena[rec & ~TABLE_GENERAL];
    unsigned i;
    if (t->packed == TABLE_PACKED_WIDE) return table_wide_block(t, rec, &i)->val[i];
    const TableBlock *b = table_block(t, rec, &i);
    uint8_t v = b->val[i];
    if (v < TABLE_BIG) return v;
    return v == TABLE_BIG ? table_big_value(t, b->key[i]) : (int32_t)(int8_t)v;
}
/* Set a record's value (or marker); -1 when a large value finds no memory. */
static inline int table_set(Table *t, uint32_t rec, int32_t value) {
    int newly = table_value(t, rec) < 0 && value >= 0;
    t->valued += newly;
    if (rec & TABLE_GENERAL) {
        t->arena[rec & ~TABLE_GENERAL] = (uint32_t)value;
        return 0;
    }
    unsigned i;
    if (t->packed == TABLE_PACKED_WIDE) {
        table_wide_block(t, rec, &i)->val[i] = value;
        return 0;
    }
    TableBlock *b = table_block(t, rec, &i);
    if (value >= TABLE_BIG) {
        if (table_set_big(t, b->key[i], value) < 0) {
            t->valued -= newly; /* (counted above: the value is not there) */
            return -1;
        }
        b->val[i] = TABLE_BIG;
        return 0;
    }
    b->val[i] = (uint8_t)value; /* (markers -4..-1 as 252..255) */
    return 0;
}
/* The key body of a record (and its length): in the arena, or written to scratch (a packed key). */
static inline const uint8_t *table_body(const Table *t, uint32_t rec, size_t *len, uint8_t *scratch) {
    if (!(rec & TABLE_GENERAL)) {
        unsigned i;
        uint64_t key = t->packed == TABLE_PACKED_WIDE ? table_wide_block(t, rec, &i)->key[i] : table_block(t, rec, &i)->key[i];
        *len = table_unpack(key, scratch);
        return scratch;
    }
    const uint8_t *p = (const uint8_t *)(t->arena + (rec & ~TABLE_GENERAL) + 1);
    if (p[0] < 255) {
        *len = p[0];
        return p + 1;
    }
    uint32_t n;
    memcpy(&n, p + 1, 4);
    *len = n;
    return p + 5;
}
/* Each record in turn: *rec from *cursor on (start at 0); 0 when there are no more. */
int table_next(const Table *t, uint64_t *cursor, uint32_t *rec);
/* Bring the index slot of a general hash into the cache ahead of table_find. */
static inline void table_prefetch(const Table *t, uint32_t hash) {
#if defined(__GNUC__)
    __builtin_prefetch(&t->slots[hash & t->mask]);
#else
    (void)t;
    (void)hash;
#endif
}
/* Bytes held: segments, side table, index and arena (what the benchmark reports per position). */
size_t table_bytes(const Table *t);

#endif
