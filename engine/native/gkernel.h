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
size_t sort_unique(int32_t *v, size_t n);

/* canon.c */
int g_le(int32_t a, int32_t b);                                               /* kernel._le */
int g_canon(int32_t *l, size_t nl, int32_t *r, size_t nr, int32_t *out);      /* kernel._canon (sorts l, r) */
int g_finish(const int32_t *l, size_t nl, const int32_t *r, size_t nr, const Tag *tag, int32_t *out); /* _finish */
/* The id of {l | r} known to be a canonical form with canonical options (a node another process
 * or machine made): no option is compared, so nothing is re-canonicalised (sorts l, r). */
int g_adopt(int32_t *l, size_t nl, int32_t *r, size_t nr, int32_t *out);
size_t g_le_cache_size(void);
size_t g_le_cache_limit(void); /* the comparison cache's present limit (PairCache) */
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

/* A cache keyed by a pair of ids (algebra.c): exact, and emptied (in place) when it reaches its
 * limit between operations (outside its owner's recursion: `depth` 0, g_le, g_add), or
 * PAIR_LIMIT_MAX entries inside one (memory stays bounded; emptied mid-way, that operation's
 * recursion repeats work). The limit adapts to the work: a search's operations are many and
 * shallow (2-4 entries each at Sowing 1^13), and for them PAIR_LIMIT entries, 1 MiB of comparison
 * slots that stay in the core's L2 cache, are faster than more (docs/benchmarks.md); deep games
 * reuse each other's entries (a chain of birthday 400 makes 18 to 5,000 entries an operation), so
 * when the cache fills at more than PAIR_DEEP entries an operation its limit doubles instead, up
 * to PAIR_LIMIT_MAX (8 MiB of comparison slots, 16 MiB of sums), and it halves back when shallow
 * work fills it again. */
#define PAIR_LIMIT ((size_t)1 << 16)
#define PAIR_LIMIT_MAX ((size_t)1 << 19)
#define PAIR_DEEP 16
typedef struct {
    uint64_t *slots; /* algebra.c */
    size_t mask, count;
    int truths;      /* the values are 0 and 1 (8 bytes a slot, else 16) */
    unsigned depth;  /* the owner's recursions under way: no emptying while > 0 */
    size_t limit;    /* entries before it is emptied: PAIR_LIMIT .. PAIR_LIMIT_MAX */
    size_t ops;      /* operations (puts outside a recursion) since it was last emptied */
} PairCache;
int pair_cache_get(const PairCache *c, int32_t a, int32_t b, int32_t *value);
void pair_cache_put(PairCache *c, int32_t a, int32_t b, int32_t value);
/* A cache of values (truths: of 0 and 1), empty, at its base limit. */
#define PAIR_CACHE(values_are_truths) {.slots = NULL, .truths = (values_are_truths), .limit = PAIR_LIMIT}
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
