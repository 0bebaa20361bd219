/* gkernel.h — the compiled game kernel's operations on ids (canon.c: order and canonical forms;
 * algebra.c: interning, x + n.up + *k, sums, negatives; kernel.c: the Python functions).
 *
 * The pure-Python reference is ruma.engine.cgt.kernel; each function here names its counterpart.
 * Every function returns 0 (or a truth value >= 0) and -1 with a Python error set. No Python code
 * runs inside them (dyadic.h), so an operation is atomic for other threads under the GIL.
 */
#ifndef RUMA_GKERNEL_H
#define RUMA_GKERNEL_H

#include "arena.h"

typedef struct {
    Num x;
    int64_t n, k;
} Tag; /* x + n.up + *k */

typedef struct {
    int32_t *v;
    size_t n, cap;
} Ids; /* a small set of ids (no duplicates) */

int ids_add(Ids *s, int32_t x);
/* Room for `need` ids in a growable array (*cap its capacity): 0, or -1 with MemoryError. */
int ids_grow(int32_t **v, size_t *cap, size_t need);
void ids_remove(Ids *s, int32_t x);
size_t sort_unique(int32_t *v, size_t n);

/* canon.c */
int g_le(int32_t a, int32_t b);                                               /* kernel._le */
int g_canon(int32_t *l, size_t nl, int32_t *r, size_t nr, int32_t *out);      /* kernel._canon (sorts l, r) */
int g_finish(const int32_t *l, size_t nl, const int32_t *r, size_t nr, const Tag *tag, int32_t *out); /* _finish */
/* The id of {l | r} known to be a canonical form with canonical options (a node another process
 * or machine made): no option is compared, so nothing is re-canonicalised (sorts l, r). */
int g_adopt(int32_t *l, size_t nl, int32_t *r, size_t nr, int32_t *out);
size_t g_le_cache_size(void);
size_t g_raw_cache_size(void);
void raw_cache_clear(void);
void le_cache_clear(void);

/* algebra.c */
int g_intern(const int32_t *l, size_t nl, const int32_t *r, size_t nr, const Tag *tag, int32_t *out); /* _intern */
int g_nus_id(Num x, int64_t n, int64_t k, int32_t *out);                      /* kernel._nus_id */
int g_add(int32_t a, int32_t b, int32_t *out);                                /* kernel._add */
int g_neg(int32_t a, int32_t *out);                                           /* kernel._neg */
int g_all_small(int32_t a);                                                   /* kernel._all_small */
size_t g_sum_cache_size(void);
void g_clear_caches(void);
/* ZERO (id 0) and the arena's first games; 0, or -1 with an error set. */
int g_init(void);

/* A cache keyed by a pair of ids (algebra.c): exact, dropped when it reaches PAIR_LIMIT entries
 * (as the reference's CACHE_LIMIT). 2^19 entries are 8 MiB of slots: Sowing 1^13 peaks at
 * 124 bytes a position with it against 141 at 2^20, no slower (a smaller table is read from
 * caches nearer the core), and a single deep comparison needing ~400,000 entries (a chain of
 * birthday 400) still fits. */
#define PAIR_LIMIT ((size_t)1 << 19)
typedef struct {
    uint64_t *slots; /* algebra.c */
    size_t mask, count;
    int truths;      /* the values are 0 and 1 (8 bytes a slot, else 16) */
} PairCache;
int pair_cache_get(const PairCache *c, int32_t a, int32_t b, int32_t *value);
void pair_cache_put(PairCache *c, int32_t a, int32_t b, int32_t value);
void pair_cache_clear(PairCache *c);

/* Comparison of two numbers with the small case inline: 0, or -1 with an error set. */
static inline int num_compare(Num a, Num b, int *c) {
    if (!a.w && !b.w) {
        *c = (a.q > b.q) - (a.q < b.q);
        return 0;
    }
    return num_cmp(a, b, c);
}

#endif
