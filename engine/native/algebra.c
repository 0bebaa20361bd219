/* algebra.c — interning, x + n.up + *k, sums and negatives of the compiled game kernel (gkernel.h).
 *
 * A transcription of ruma.engine.cgt.kernel's _intern, _nus_id, _add, _neg and _all_small. Sums
 * are cached by pair of ids (below); a negative is kept in its node.
 */
#include "gkernel.h"
#include "hugemem.h"

static PairCache SUMS = PAIR_CACHE(0);

/* ---------------------------------------------------------------------------------------- */
/* caches keyed by a pair of ids: open addressing, emptied at their limit between operations */

#define PAIR_MIN ((size_t)1 << 12)
#define TRUTH ((uint64_t)1 << 63)

/* A slot: the key (a << 32 | b) + 1 (below 2^63: ids are below 2^31), then its value in the next
 * word (values) or in the key's top bit (truths); 0 is empty. One probe reads one cache line. */
static inline uint64_t pair_key(int32_t a, int32_t b) { return ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1; }
static inline size_t pair_slot(uint64_t key, size_t mask) { return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 24) & mask; }
static inline size_t pair_width(const PairCache *c) { return c->truths ? 1 : 2; }

int pair_cache_get(const PairCache *c, int32_t a, int32_t b, int32_t *value) {
    if (!c->slots) return 0;
    uint64_t key = pair_key(a, b);
    size_t w = pair_width(c);
    for (size_t i = pair_slot(key, c->mask);; i = (i + 1) & c->mask) {
        uint64_t k = c->slots[w * i];
        if ((k & ~TRUTH) == key) {
            *value = c->truths ? (int32_t)(k >> 63) : (int32_t)c->slots[w * i + 1];
            return 1;
        }
        if (!k) return 0;
    }
}

/* Empty a cache, in place (its array freed instead when larger than its limit needs; *fresh is
 * then the size to start again at). */
static void pair_cache_empty(PairCache *c, size_t *fresh) {
    if (c->mask + 1 > 2 * c->limit) {
        free(c->slots);
        c->slots = NULL;
        *fresh = 2 * c->limit;
    } else {
        memset(c->slots, 0, (c->mask + 1) * pair_width(c) * sizeof *c->slots);
    }
    c->count = 0;
}

void pair_cache_put(PairCache *c, int32_t a, int32_t b, int32_t value) {
    size_t w = pair_width(c), fresh = PAIR_MIN;
    if (!c->depth) c->ops++;
    if (c->count >= c->limit && !c->depth) { /* between operations: emptied, or its limit raised */
        int deep = c->count > PAIR_DEEP * c->ops;
        c->ops = 0;
        if (deep && c->limit < PAIR_LIMIT_MAX) {
            c->limit *= 2;
        } else {
            if (!deep && c->limit > PAIR_LIMIT) c->limit /= 2;
            pair_cache_empty(c, &fresh);
        }
    } else if (c->count >= PAIR_LIMIT_MAX) { /* inside one operation: its memory stays bounded */
        pair_cache_empty(c, &fresh);
    }
    /* load <= 1/2; past the limit (inside an operation) <= 7/8 before it grows */
    size_t room = c->count < c->limit ? (c->mask + 1) / 2 : (c->mask + 1) / 8 * 7;
    if (!c->slots || c->count + 1 > room) {
        size_t want = c->slots ? (c->mask + 1) * 2 : fresh;
        uint64_t *slots = huge_zalloc(want * w * sizeof *slots);
        if (!slots) return; /* a cache may forget */
        size_t mask = want - 1, count = 0;
        for (size_t j = 0; c->slots && j <= c->mask; j++) {
            uint64_t k = c->slots[w * j];
            if (!k) continue;
            size_t at = pair_slot(k & ~TRUTH, mask);
            while (slots[w * at]) at = (at + 1) & mask;
            memcpy(&slots[w * at], &c->slots[w * j], w * sizeof *slots);
            count++;
        }
        free(c->slots);
        c->slots = slots;
        c->mask = mask;
        c->count = count;
    }
    uint64_t key = pair_key(a, b);
    size_t i = pair_slot(key, c->mask);
    while (c->slots[w * i] && (c->slots[w * i] & ~TRUTH) != key) i = (i + 1) & c->mask;
    if (!c->slots[w * i]) c->count++;
    if (c->truths) {
        c->slots[i] = key | (value ? TRUTH : 0);
    } else {
        c->slots[w * i] = key;
        c->slots[w * i + 1] = (uint64_t)(uint32_t)value;
    }
}

void pair_cache_clear(PairCache *c) {
    free(c->slots);
    c->slots = NULL;
    c->mask = c->count = c->ops = 0;
    c->limit = PAIR_LIMIT;
}

size_t g_sum_cache_size(void) { return SUMS.count; }

void g_clear_caches(void) {
    pair_cache_clear(&SUMS);
    le_cache_clear();
    raw_cache_clear();
}

/* ---------------------------------------------------------------------------------------- */
/* interning                                                                                 */

static int set_tag(int32_t i, const Tag *tag) {
    GNode *g = node(i);
    g->flags |= G_NUS;
    g->up = (int32_t)tag->n;
    g->star = (uint32_t)tag->k;
    node_set_stops(g, tag->x, tag->x);
    return arena_nus_add(i);
}

int g_intern(const int32_t *l, size_t nl, const int32_t *r, size_t nr, const Tag *tag, int32_t *out) {
    uint32_t h = arena_hash(l, (uint32_t)nl, r, (uint32_t)nr);
    int32_t i = arena_find(l, (uint32_t)nl, r, (uint32_t)nr, h);
    if (i < 0) {
        Num ls = {0, 0}, rs = {0, 0};
        if (!tag) { /* a canonical form that is not a number has options on both sides */
            if (!nl || !nr) {
                PyErr_SetString(PyExc_RuntimeError, "game kernel: a non-number without options on one side");
                return -1;
            }
            int c;
            ls = node_rs(node(l[0]));
            for (size_t k = 1; k < nl; k++) {
                Num x = node_rs(node(l[k]));
                if (num_compare(x, ls, &c) < 0) return -1;
                if (c > 0) ls = x;
            }
            rs = node_ls(node(r[0]));
            for (size_t k = 1; k < nr; k++) {
                Num x = node_ls(node(r[k]));
                if (num_compare(x, rs, &c) < 0) return -1;
                if (c < 0) rs = x;
            }
        }
        i = arena_add(l, (uint32_t)nl, r, (uint32_t)nr, h);
        if (i < 0) return -1;
        node_set_stops(node(i), ls, rs);
    }
    if (tag && !(node(i)->flags & G_NUS) && set_tag(i, tag) < 0) return -1;
    *out = i;
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* x + n.up + *k                                                                             */

static int nus_range(int64_t n, int64_t k) {
    if (n < -INT32_MAX || n > INT32_MAX || k < 0 || k > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "x + n.up + *k with n = %lld, k = %lld is beyond the game kernel's range "
                                       "(|n|, k < 2^31)",
                     (long long)n, (long long)k);
        return -1;
    }
    return 0;
}

int g_nus_id(Num x, int64_t n, int64_t k, int32_t *out) {
    int32_t i = arena_nus_find(x, n, k);
    if (i >= 0) {
        *out = i;
        return 0;
    }
    if (nus_range(n, k) < 0) return -1;
    Tag t = {x, n, k};
    int32_t l[1], r[1], *opts = NULL;
    size_t nl = 0, nr = 0;
    if (n == 0 && k == 0) {
        if (num_is_integer(x)) {
            if (x.w) {
                PyErr_SetString(PyExc_ValueError, "an integer beyond 2^31 in magnitude is beyond the game kernel's range");
                return -1;
            }
            int64_t v = x.q >> NUM_FRAC_BITS, sign = v > 0 ? 1 : -1, m;
            if ((v > 1 || v < -1) && arena_nus_find(num_int(v - sign), 0, 0) < 0)
                for (m = 1; m < (v > 0 ? v : -v); m++) /* build the integers upwards: no deep recursion */
                    if (g_nus_id(num_int(sign * m), 0, 0, &i) < 0) return -1;
            if (v > 0 && g_nus_id(num_int(v - 1), 0, 0, &l[nl++]) < 0) return -1;
            if (v < 0 && g_nus_id(num_int(v + 1), 0, 0, &r[nr++]) < 0) return -1;
        } else {
            Num step, y;
            if (num_step(x, &step) < 0) return -1;
            if (num_neg(step, &y) < 0 || num_add(x, y, &y) < 0 || g_nus_id(y, 0, 0, &l[nl++]) < 0) return -1;
            if (num_add(x, step, &y) < 0 || g_nus_id(y, 0, 0, &r[nr++]) < 0) return -1;
        }
        if (g_intern(l, nl, r, nr, &t, &i) < 0) return -1;
    } else if (n == 0) { /* x + *k = {x, x + *1, ..., x + *(k-1) | the same} */
        opts = malloc((size_t)k * sizeof *opts);
        if (!opts) {
            PyErr_NoMemory();
            return -1;
        }
        for (int64_t j = 0; j < k; j++)
            if (g_nus_id(x, 0, j, &opts[j]) < 0) goto fail;
        size_t m = sort_unique(opts, (size_t)k);
        if (g_intern(opts, m, opts, m, &t, &i) < 0) goto fail;
        free(opts);
    } else {
        /* x + n.up + *k = {x | x + (n-1).up + *(k^1)} for n >= 1, except x + up* = {x, x* | x};
         * mirror images for n <= -1. Build the chain upwards: no deep recursion. */
        int64_t sign = n > 0 ? 1 : -1, size = n > 0 ? n : -n;
        if (size > 1 && arena_nus_find(x, n - sign, k ^ 1) < 0)
            for (int64_t m = 1; m < size; m++)
                if (g_nus_id(x, sign * m, k ^ ((size - m) & 1), &i) < 0) return -1;
        int32_t zero, other;
        if (g_nus_id(x, 0, 0, &zero) < 0) return -1;
        if (k == 1 && size == 1) {
            if (g_nus_id(x, 0, 1, &other) < 0) return -1;
            int32_t both[2] = {zero < other ? zero : other, zero < other ? other : zero};
            if ((n > 0 ? g_intern(both, 2, &zero, 1, &t, &i) : g_intern(&zero, 1, both, 2, &t, &i)) < 0) return -1;
        } else {
            if (g_nus_id(x, n - sign, k ^ 1, &other) < 0) return -1;
            if ((n > 0 ? g_intern(&zero, 1, &other, 1, &t, &i) : g_intern(&other, 1, &zero, 1, &t, &i)) < 0) return -1;
        }
    }
    if (arena_nus_find(x, n, k) < 0 && arena_nus_add(i) < 0) return -1;
    *out = i;
    return 0;
fail:
    free(opts);
    return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* sums and negatives                                                                        */

int g_add(int32_t a, int32_t b, int32_t *out) {
    if (a == 0 || b == 0) { /* ZERO is id 0 */
        *out = a ? a : b;
        return 0;
    }
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    if (pair_cache_get(&SUMS, a, b, out)) return 0;
    const GNode *ga = node(a), *gb = node(b);
    int32_t r;
    if (ga->flags & gb->flags & G_NUS) {
        Num x;
        if (num_add(node_ls(ga), node_ls(gb), &x) < 0) return -1;
        if (g_nus_id(x, (int64_t)ga->up + gb->up, (int64_t)(ga->star ^ gb->star), &r) < 0) return -1;
    } else {
        /* number translation: x + G = {x + G^L | x + G^R} */
        int na = node_is_number(ga), nb = node_is_number(gb);
        size_t nl = (nb ? 0 : gb->nl) + (na ? 0 : ga->nl), nr = (nb ? 0 : gb->nr) + (na ? 0 : ga->nr);
        int32_t stack[64], *l = nl + nr <= 64 ? stack : malloc((nl + nr) * sizeof *l), *rt = l + nl;
        if (!l) {
            PyErr_NoMemory();
            return -1;
        }
        size_t il = 0, ir = 0;
        int rc = 0;
        SUMS.depth++;
        if (!nb) {
            for (uint32_t k = 0; k < gb->nl && rc == 0; k++) rc = g_add(a, gb->opts[k], &l[il++]);
            for (uint32_t k = 0; k < gb->nr && rc == 0; k++) rc = g_add(a, gb->opts[gb->nl + k], &rt[ir++]);
        }
        if (!na) {
            for (uint32_t k = 0; k < ga->nl && rc == 0; k++) rc = g_add(ga->opts[k], b, &l[il++]);
            for (uint32_t k = 0; k < ga->nr && rc == 0; k++) rc = g_add(ga->opts[ga->nl + k], b, &rt[ir++]);
        }
        SUMS.depth--;
        if (rc == 0) rc = g_canon(l, nl, rt, nr, &r);
        if (l != stack) free(l);
        if (rc < 0) return -1;
    }
    pair_cache_put(&SUMS, a, b, r);
    *out = r;
    return 0;
}

int g_neg(int32_t a, int32_t *out) {
    GNode *g = node(a);
    if (g->neg >= 0) {
        *out = g->neg;
        return 0;
    }
    int32_t r;
    if (g->flags & G_NUS) {
        Num x;
        if (num_neg(node_ls(g), &x) < 0 || g_nus_id(x, -(int64_t)g->up, g->star, &r) < 0) return -1;
    } else { /* -{L | R} = {-R | -L}: canonical when {L | R} is */
        size_t nl = g->nr, nr = g->nl;
        int32_t stack[64], *l = nl + nr <= 64 ? stack : malloc((nl + nr) * sizeof *l), *rt = l + nl;
        if (!l) {
            PyErr_NoMemory();
            return -1;
        }
        int rc = 0;
        for (size_t k = 0; k < nl && rc == 0; k++) rc = g_neg(g->opts[g->nl + k], &l[k]);
        for (size_t k = 0; k < nr && rc == 0; k++) rc = g_neg(g->opts[k], &rt[k]);
        if (rc == 0) {
            sort_unique(l, nl);
            sort_unique(rt, nr);
            rc = g_intern(l, nl, rt, nr, NULL, &r);
        }
        if (l != stack) free(l);
        if (rc < 0) return -1;
    }
    g->neg = r;
    node(r)->neg = a;
    *out = r;
    return 0;
}

int g_all_small(int32_t a) {
    GNode *g = node(a);
    if (g->flags & G_SMALL_KNOWN) return (g->flags & G_ALL_SMALL) != 0;
    int r = 1;
    if (a != 0) {
        if (!g->nl || !g->nr) r = 0;
        for (uint32_t k = 0; k < g->nl + g->nr && r; k++) r = g_all_small(g->opts[k]);
    }
    g->flags |= G_SMALL_KNOWN | (r ? G_ALL_SMALL : 0);
    return r;
}

int g_init(void) {
    if (A.count) return 0;
    Tag zero = {num_small(0), 0, 0};
    int32_t i;
    if (g_intern(NULL, 0, NULL, 0, &zero, &i) < 0) return -1;
    return i == 0 ? 0 : -1;
}
