/* table.h — the compact hash table of the compiled search: key body -> int32 value.
 *
 * Budget: at most 48 bytes per position, key included (a Python dict of bytes -> int costs ~110).
 *
 * Layout. Records live back to back in one arena of 4-byte words:
 *     word 0: the value (int32; negative values are the search's markers, see search.c)
 *     then the key body's length (one byte, or 0xFF and four bytes when >= 255), then the body,
 *     padded to a 4-byte boundary.
 * A record is named by its offset in words (uint32: the arena may grow to 16 GiB). The index is
 * an open-addressing array of 8-byte slots (linear probing, load <= 3/4): the high half of a slot
 * holds 32 bits of the key's hash, the low half the record offset + 1 (0 = empty). Keeping the
 * hash in the slot lets most probes and every resize run without touching the arena; offsets are
 * stable, so the search can hold on to a record while the table grows.
 *
 * For a 14-pot Sowing row the body is 15 bytes: a 24-byte record plus ~11-21 bytes of index.
 */
#ifndef RUMA_TABLE_H
#define RUMA_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t *slots;
    size_t mask; /* slots - 1 (a power of two minus one) */
    size_t count;
    uint32_t *arena;
    size_t arena_len, arena_cap; /* in 4-byte words */
} Table;

#define TABLE_NONE UINT32_MAX

uint32_t table_hash(const uint8_t *body, size_t len);
int table_init(Table *t);
void table_free(Table *t);
/* The record of body, or TABLE_NONE. */
uint32_t table_find(const Table *t, const uint8_t *body, size_t len, uint32_t hash);
/* Add a record (body must be absent); returns it, or TABLE_NONE when out of memory. */
uint32_t table_add(Table *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value);
/* The words a record of a body of len bytes takes (value word, length, body, padding). */
static inline size_t table_record_words(size_t len) { return 1 + (((len < 255 ? 1 : 5) + len + 3) >> 2); }
/* The key body of a record (and its length). */
static inline const uint8_t *table_body(const Table *t, uint32_t rec, size_t *len) {
    const uint8_t *p = (const uint8_t *)(t->arena + rec + 1);
    if (p[0] < 255) {
        *len = p[0];
        return p + 1;
    }
    uint32_t n;
    memcpy(&n, p + 1, 4);
    *len = n;
    return p + 5;
}
/* Bring the index slot of a hash into the cache ahead of table_find: the search hashes every
 * component of an expansion first and probes afterwards, so the cache misses overlap. */
static inline void table_prefetch(const Table *t, uint32_t hash) {
#if defined(__GNUC__)
    __builtin_prefetch(&t->slots[hash & t->mask]);
#else
    (void)t;
    (void)hash;
#endif
}
static inline int32_t table_value(const Table *t, uint32_t rec) { return (int32_t)t->arena[rec]; }
static inline void table_set(Table *t, uint32_t rec, int32_t value) { t->arena[rec] = (uint32_t)value; }
/* Bytes held: index + arena (what the benchmark reports per position). */
size_t table_bytes(const Table *t);

#endif
