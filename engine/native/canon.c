/* canon.c — the game order and canonical forms of the compiled game kernel (gkernel.h).
 *
 * A transcription of ruma.engine.cgt.kernel's _le, _le_xg, _le_gx, _canon, _fast, _finish and
 * _detect on the arena's nodes (arena.h); _canonicalise removes the same dominated options and
 * bypasses the same reversible ones in another order (canonicalise, below). The canonical form of
 * a game is unique and the order is a truth, so visiting options in array order (where the
 * reference iterates sets) reaches the same canonical forms; only the ids differ from the
 * reference's.
 *
 * Caches: comparisons by pair of ids (exact, as the reference's _LE: the recursion of the order
 * is exponential without it), and option lists already canonicalised in a lossy cache of short
 * lists (RAW_IDS ids at most; a slot holds the last list that hashed to it), sized with the
 * arena. A cache only saves work: a miss recomputes.
 */
#include "gkernel.h"

static PairCache LE = PAIR_CACHE(1);

size_t g_le_cache_size(void) { return LE.count; }
size_t g_le_cache_limit(void) { return LE.limit; }
void le_cache_clear(void) { pair_cache_clear(&LE); }

/* ---------------------------------------------------------------------------------------- */
/* the order                                                                                 */

/* stops(i) >= (ls, rs) componentwise: the condition for i >= a game with those stops */
static int stops_ge(const GNode *g, Num ls, Num rs) {
    int c;
    if (num_compare(node_ls(g), ls, &c) < 0) return -1;
    if (c < 0) return 0;
    if (num_compare(node_rs(g), rs, &c) < 0) return -1;
    return c >= 0;
}

static int stops_le(const GNode *g, Num ls, Num rs) {
    int c;
    if (num_compare(node_ls(g), ls, &c) < 0) return -1;
    if (c > 0) return 0;
    if (num_compare(node_rs(g), rs, &c) < 0) return -1;
    return c <= 0;
}

/* Bounds on a game's stops: LS in [ls_lo, ls_hi], RS in [rs_lo, rs_hi] (an interned game's are
 * exact; a game being canonicalised may know less, see Form). */
typedef struct {
    Num ls_lo, ls_hi, rs_lo, rs_hi;
} StopBounds;

static inline StopBounds node_bounds(const GNode *g) {
    Num ls = node_ls(g), rs = node_rs(g);
    return (StopBounds){ls, ls, rs, rs};
}

/* What the stops settle of a <= b: G <= H needs LS(G) <= LS(H) and RS(G) <= RS(H), and LS(G) <
 * RS(H) gives G < x < H for a number x. 0 or 1 when settled, 2 when not, -1 on error. */
static inline int le_by_bounds(const StopBounds *a, const StopBounds *b) {
    int c;
    if (num_compare(a->ls_lo, b->ls_hi, &c) < 0) return -1;
    if (c > 0) return 0;
    if (num_compare(a->ls_hi, b->rs_lo, &c) < 0) return -1;
    if (c < 0) return 1;
    if (num_compare(a->rs_lo, b->rs_hi, &c) < 0) return -1;
    if (c > 0) return 0;
    return 2;
}

/* a <= b when the stops (and NUS triples) decide it: 1 or 0; 2 when they do not; -1 on error. */
static inline int le_by_stops(const GNode *ga, const GNode *gb) {
    if (ga->flags & gb->flags & G_NUS) { /* the stops are the number parts */
        int c;
        if (num_compare(node_ls(ga), node_ls(gb), &c) < 0) return -1;
        if (c) return c < 0;
        int64_t n = (int64_t)gb->up - ga->up;
        if (n == 0) return ga->star == gb->star;
        return n > 1 || (n == 1 && (ga->star ^ gb->star) != 1);
    }
    StopBounds a = node_bounds(ga), b = node_bounds(gb);
    return le_by_bounds(&a, &b);
}

int g_le(int32_t a, int32_t b) {
    if (a == b) return 1;
    const GNode *ga = node(a), *gb = node(b);
    int quick = le_by_stops(ga, gb);
    if (quick != 2) return quick;
    Num lsa = node_ls(ga), lsb = node_ls(gb), rsa = node_rs(ga), rsb = node_rs(gb);
    int32_t answer;
    if (pair_cache_get(&LE, a, b, &answer)) return answer;
    answer = 1;
    LE.depth++;
    for (uint32_t k = 0; k < ga->nl && answer > 0; k++) { /* b <= a^L refutes a <= b */
        int32_t i = ga->opts[k];
        int ok = stops_ge(node(i), lsb, rsb);
        if (ok > 0) ok = g_le(b, i);
        if (ok < 0) answer = -1;
        else if (ok) answer = 0;
    }
    const int32_t *rb = gb->opts + gb->nl;
    for (uint32_t k = 0; k < gb->nr && answer > 0; k++) { /* b^R <= a refutes a <= b */
        int32_t i = rb[k];
        int ok = stops_le(node(i), lsa, rsa);
        if (ok > 0) ok = g_le(i, a);
        if (ok < 0) answer = -1;
        else if (ok) answer = 0;
    }
    LE.depth--;
    if (answer >= 0) pair_cache_put(&LE, a, b, answer);
    return answer;
}

/* A game {L | R} not interned, being canonicalised, and what its options tell of its stops. With
 * l = max RS(G^L) and r = min LS(G^R) (both sides not empty): a number x has l <= x <= r (G^L
 * <| x gives RS(G^L) <= x), any other game has LS(G) = l >= RS(G) = r. So when l >= r, G's stops
 * are l and r (a number equal to l when l = r), and when l < r, G is a number between them
 * (both stops in [l, r]). Its options change as it is canonicalised; its value, and so this, does
 * not. */
typedef struct {
    const Ids *L, *R;
    int known; /* stops holds bounds (else nothing is known: a side is empty) */
    StopBounds stops;
} Form;

static int form_stops(Form *G) {
    G->known = 0;
    if (!G->L->n || !G->R->n) return 0;
    Num ls = node_rs(node(G->L->v[0])), rs = node_ls(node(G->R->v[0]));
    int c;
    for (size_t k = 1; k < G->L->n; k++) {
        Num x = node_rs(node(G->L->v[k]));
        if (num_compare(x, ls, &c) < 0) return -1;
        if (c > 0) ls = x;
    }
    for (size_t k = 1; k < G->R->n; k++) {
        Num x = node_ls(node(G->R->v[k]));
        if (num_compare(x, rs, &c) < 0) return -1;
        if (c < 0) rs = x;
    }
    if (num_compare(ls, rs, &c) < 0) return -1;
    G->known = 1;
    G->stops = c >= 0 ? (StopBounds){ls, ls, rs, rs} : (StopBounds){ls, rs, ls, rs};
    return 0;
}

static int le_gx(const Form *G, int32_t x);

/* G_x <= G for a game not interned (kernel._le_xg) */
static int le_xg(int32_t x, const Form *G) {
    const GNode *g = node(x);
    if (G->known) { /* as g_le: the stops may settle it */
        StopBounds a = node_bounds(g);
        int r = le_by_bounds(&a, &G->stops);
        if (r != 2) return r;
    }
    for (size_t k = 0; k < G->R->n; k++) {
        int r = g_le(G->R->v[k], x);
        if (r) return r < 0 ? -1 : 0;
    }
    for (uint32_t k = 0; k < g->nl; k++) {
        int r = le_gx(G, g->opts[k]);
        if (r) return r < 0 ? -1 : 0;
    }
    return 1;
}

/* G <= G_x for a game not interned (kernel._le_gx) */
static int le_gx(const Form *G, int32_t x) {
    const GNode *g = node(x);
    if (G->known) {
        StopBounds b = node_bounds(g);
        int r = le_by_bounds(&G->stops, &b);
        if (r != 2) return r;
    }
    for (size_t k = 0; k < G->L->n; k++) {
        int r = g_le(x, G->L->v[k]);
        if (r) return r < 0 ? -1 : 0;
    }
    const int32_t *ro = g->opts + g->nl;
    for (uint32_t k = 0; k < g->nr; k++) {
        int r = le_xg(ro[k], G);
        if (r) return r < 0 ? -1 : 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------------------------- */
/* sets of ids                                                                               */

int ids_grow(int32_t **v, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    int32_t *w = realloc(*v, c * sizeof *w);
    if (!w) {
        PyErr_NoMemory();
        return -1;
    }
    *v = w;
    *cap = c;
    return 0;
}

int ids_add(Ids *s, int32_t x) {
    for (size_t k = 0; k < s->n; k++)
        if (s->v[k] == x) return 0;
    if (ids_grow(&s->v, &s->cap, s->n + 1) < 0) return -1;
    s->v[s->n++] = x;
    return 0;
}

size_t sort_unique(int32_t *v, size_t n) {
    for (size_t i = 1; i < n; i++) { /* insertion sort: option lists are short */
        int32_t x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

/* ---------------------------------------------------------------------------------------- */
/* canonicalisation                                                                          */

/* Left keeps a unless a <= b for another b (Right: b <= a); *removed set when one goes. When
 * quick, only what the stops decide (le_by_stops) removes an option: no comparison recurses, and
 * an option may stay that the full pass removes. */
static int undominated(Ids *s, int left, int quick, int *removed) {
    if (s->n < 2) return 0;
    size_t n = 0;
    for (size_t x = 0; x < s->n; x++) {
        const GNode *ga = node(s->v[x]);
        Num la = node_ls(ga), ra = node_rs(ga);
        int dominated = 0;
        for (size_t y = 0; y < s->n && !dominated; y++) {
            if (y == x) continue;
            const GNode *gb = node(s->v[y]);
            int r;
            if (quick) { /* (what settles a <= b includes the test of the stops below) */
                r = left ? le_by_stops(ga, gb) : le_by_stops(gb, ga);
                if (r == 2) r = 0;
            } else {
                r = left ? stops_ge(gb, la, ra) : stops_le(gb, la, ra);
                if (r > 0) r = left ? g_le(s->v[x], s->v[y]) : g_le(s->v[y], s->v[x]);
            }
            if (r < 0) return -1;
            dominated = r;
        }
        /* Compacted in place: every entry of s->v is still one of the original options, none of
         * them a's id, and the undominated ones all stay, so a dominated option always meets one
         * that dominates it (<= is transitive and no two distinct canonical ids are equal). */
        if (!dominated) s->v[n++] = s->v[x];
        else *removed = 1;
    }
    s->n = n;
    return 0;
}

static int same_set(const Ids *L, const Ids *R) {
    if (L->n != R->n) return 0;
    for (size_t k = 0; k < L->n; k++) {
        int found = 0;
        for (size_t j = 0; j < R->n && !found; j++) found = R->v[j] == L->v[k];
        if (!found) return 0;
    }
    return 1;
}

/* kernel._fast: 1 and *out when every option is a nimber with equal sides, or every option a
 * number; 0 when no fast path applies; -1 on error. */
static int fast(const Ids *L, const Ids *R, int32_t *out) {
    if (L->n && same_set(L, R)) {
        size_t n = L->n, k;
        uint8_t stack[256], *seen = n < 256 ? stack : calloc(n + 1, 1); /* the mex of n values is <= n */
        if (!seen) {
            PyErr_NoMemory();
            return -1;
        }
        memset(seen, 0, n + 1);
        for (k = 0; k < n; k++) {
            const GNode *g = node(L->v[k]);
            if (!node_is_nimber(g)) break;
            if (g->star <= n) seen[g->star] = 1;
        }
        size_t mex = 0;
        while (k == n && seen[mex]) mex++;
        if (seen != stack) free(seen);
        if (k == n) return g_nus_id(num_small(0), 0, (int64_t)mex, out) < 0 ? -1 : 1;
    }
    Num lo = {0, 0}, hi = {0, 0};
    int32_t lo_id = -1, hi_id = -1, c;
    for (size_t k = 0; k < L->n; k++) {
        const GNode *g = node(L->v[k]);
        if (!node_is_number(g)) return 0;
        if (lo_id >= 0 && num_compare(node_ls(g), lo, &c) < 0) return -1;
        if (lo_id < 0 || c > 0) lo = node_ls(g), lo_id = L->v[k];
    }
    for (size_t k = 0; k < R->n; k++) {
        const GNode *g = node(R->v[k]);
        if (!node_is_number(g)) return 0;
        if (hi_id >= 0 && num_compare(node_ls(g), hi, &c) < 0) return -1;
        if (hi_id < 0 || c < 0) hi = node_ls(g), hi_id = R->v[k];
    }
    if (lo_id >= 0 && hi_id >= 0 && num_compare(lo, hi, &c) < 0) return -1;
    if (lo_id < 0 || hi_id < 0 || c < 0) {
        Num x;
        if (num_simplest_between(lo_id >= 0 ? &lo : NULL, hi_id >= 0 ? &hi : NULL, &x) < 0) return -1;
        return g_nus_id(x, 0, 0, out) < 0 ? -1 : 1;
    }
    return g_finish(&lo_id, 1, &hi_id, 1, NULL, out) < 0 ? -1 : 1; /* a switch {a | b}, a >= b numbers */
}

/* kernel._detect: which x + n.up + *k the new canonical form {l | r} could be (up to cap). */
static size_t detect(const int32_t *l, size_t nl, const int32_t *r, size_t nr, Tag *guesses) {
    if (!nl || !nr) return 0;
    for (size_t k = 0; k < nl + nr; k++)
        if (!(node(k < nl ? l[k] : r[k - nl])->flags & G_NUS)) return 0;
    Num x = node_ls(node(l[0]));
    for (size_t k = 0; k < nl + nr; k++)
        if (!num_eq(node_ls(node(k < nl ? l[k] : r[k - nl])), x)) return 0;
    size_t count = 0;
    if (nl == nr && memcmp(l, r, nl * sizeof *l) == 0) {
        guesses[0] = (Tag){x, 0, (int64_t)nl};
        return 1;
    }
    int64_t top = INT64_MIN, bottom = INT64_MAX;
    for (size_t k = 0; k < nr; k++)
        if (node(r[k])->up > top) top = node(r[k])->up;
    for (size_t k = 0; k < nl; k++)
        if (node(l[k])->up < bottom) bottom = node(l[k])->up;
    if (top >= 0)
        for (size_t k = 0; k < nr; k++)
            if (node(r[k])->up == top) guesses[count++] = (Tag){x, top + 1, (int64_t)(node(r[k])->star ^ 1)};
    if (bottom <= 0)
        for (size_t k = 0; k < nl; k++)
            if (node(l[k])->up == bottom) guesses[count++] = (Tag){x, bottom - 1, (int64_t)(node(l[k])->star ^ 1)};
    return count;
}

int g_finish(const int32_t *l, size_t nl, const int32_t *r, size_t nr, const Tag *tag, int32_t *out) {
    uint32_t h = arena_hash(l, (uint32_t)nl, r, (uint32_t)nr);
    int32_t i = arena_find(l, (uint32_t)nl, r, (uint32_t)nr, h);
    if (i >= 0) {
        if (tag && !(node(i)->flags & G_NUS)) return g_intern(l, nl, r, nr, tag, out);
        *out = i;
        return 0;
    }
    if (!tag) {
        Tag stack_guesses[16];
        Tag *guesses = nl + nr <= 16 ? stack_guesses : malloc((nl + nr) * sizeof *guesses);
        if (!guesses) {
            PyErr_NoMemory();
            return -1;
        }
        size_t n = detect(l, nl, r, nr, guesses);
        for (size_t k = 0; k < n && i < 0; k++) {
            int32_t ignored;
            if (g_nus_id(guesses[k].x, guesses[k].n, guesses[k].k, &ignored) < 0) {
                if (guesses != stack_guesses) free(guesses);
                return -1;
            }
            i = arena_find(l, (uint32_t)nl, r, (uint32_t)nr, h); /* interned with its tag when the guess was right */
        }
        if (guesses != stack_guesses) free(guesses);
        if (i >= 0) {
            *out = i;
            return 0;
        }
    }
    return g_intern(l, nl, r, nr, tag, out);
}

/* Bypass every reversible option of one side of G = {L | R} (S is L when left, else R): a Left
 * option a is reversible through a^R <= G and gives way to a^R's Left options (Right: through
 * a^L >= G, to a^L's Right options). Bypassing keeps G's value, and whether an option reverses is
 * a question about G's value, so one pass settles each option: an option found irreversible stays
 * so whatever else is bypassed, and only the options a bypass brings in (appended, so the pass
 * reaches them) are checked after it. *bypassed set when one goes. */
static int bypass(Ids *S, int left, const Form *G, int *bypassed) {
    size_t x = 0;
    while (x < S->n) {
        const GNode *ga = node(S->v[x]);
        const int32_t *through = left ? ga->opts + ga->nl : ga->opts;
        uint32_t n = left ? ga->nr : ga->nl;
        int32_t via = -1;
        for (uint32_t k = 0; k < n && via < 0; k++) {
            int r = left ? le_xg(through[k], G) : le_gx(G, through[k]);
            if (r < 0) return -1;
            if (r) via = through[k];
        }
        if (via < 0) {
            x++;
            continue;
        }
        /* the last option takes a's place (and is checked next); via's options go to the end */
        S->v[x] = S->v[--S->n];
        const GNode *g = node(via);
        const int32_t *opts = left ? g->opts : g->opts + g->nl;
        uint32_t m = left ? g->nl : g->nr;
        for (uint32_t j = 0; j < m; j++)
            if (ids_add(S, opts[j]) < 0) return -1;
        *bypassed = 1;
    }
    return 0;
}

/* kernel._canonicalise(L, R, None): the canonical id of {L | R} (option ids canonical, each side
 * sorted; hash: arena_hash of them).
 * The options the stops alone show dominated go first; then every reversible option is bypassed
 * (each side in one pass, see bypass); then every dominated option goes. Removing a dominated
 * option keeps G's value as bypassing does, so no step makes an option reversible again.
 * Bypassing before the full domination test is the cheaper order in Sowing: bypassed options
 * are often deep games whose comparisons with each other would recurse, and what replaces them
 * is often numbers (at Sowing 1^13, 35 % fewer comparisons missed the cache than when every
 * dominated option went first). */
static int canonicalise(Ids *L, Ids *R, uint32_t hash, int32_t *out) {
    int rc = fast(L, R, out);
    if (rc) return rc < 0 ? -1 : 0;
    int removed = 0, bypassed = 0;
    if (undominated(L, 1, 1, &removed) < 0 || undominated(R, 0, 1, &removed) < 0) return -1;
    if (!removed) { /* (options sorted, as given) the game may be canonical already */
        int32_t i = arena_find(L->v, (uint32_t)L->n, R->v, (uint32_t)R->n, hash);
        if (i >= 0) {
            *out = i;
            return 0;
        }
    }
    Form G = {.L = L, .R = R};
    if (form_stops(&G) < 0) return -1;
    if (bypass(L, 1, &G, &bypassed) < 0 || bypass(R, 0, &G, &bypassed) < 0) return -1;
    if (undominated(L, 1, 0, &removed) < 0 || undominated(R, 0, 0, &removed) < 0) return -1;
    if (removed || bypassed) { /* the remaining options may all be numbers or nimbers now */
        rc = fast(L, R, out);
        if (rc) return rc < 0 ? -1 : 0;
    }
    L->n = sort_unique(L->v, L->n);
    R->n = sort_unique(R->v, R->n);
    return g_finish(L->v, L->n, R->v, R->n, NULL, out);
}

/* ---------------------------------------------------------------------------------------- */
/* option lists canonicalised (kernel._RAW): a lossy cache of short lists                     */

#define RAW_IDS 13
typedef struct {
    uint32_t hash;
    int32_t id;     /* -1 empty */
    uint8_t nl, nr;
    int32_t ids[RAW_IDS];
} RawSlot; /* 64 bytes */

static struct {
    RawSlot *slots;
    size_t mask;
} RAW;

size_t g_raw_cache_size(void) { return RAW.slots ? RAW.mask + 1 : 0; }

static RawSlot *raw_slot(uint32_t h) {
    /* a quarter of the games, within 2^10 .. 2^12 slots: 256 KiB, which stays in the core's L2
     * cache (at 2^14 slots a probe was an L2 miss that cost Sowing 1^13 more than its hits saved;
     * without the cache Atomic Wari 3^7 took 3 % longer) */
    size_t want = 1u << 10;
    while (want < A.count / 4 && want < (1u << 12)) want *= 2;
    if (!RAW.slots || RAW.mask + 1 < want) {
        RawSlot *fresh = malloc(want * sizeof *fresh);
        if (!fresh) return RAW.slots ? &RAW.slots[h & RAW.mask] : NULL;
        for (size_t k = 0; k < want; k++) fresh[k].id = -1;
        free(RAW.slots);
        RAW.slots = fresh;
        RAW.mask = want - 1;
    }
    return &RAW.slots[h & RAW.mask];
}

void raw_cache_clear(void) {
    free(RAW.slots);
    RAW.slots = NULL;
    RAW.mask = 0;
}

int g_canon(int32_t *l, size_t nl, int32_t *r, size_t nr, int32_t *out) {
#if defined(__GNUC__)
    /* the options' nodes (both lines a node may span), read from the first test on: their misses
     * overlap each other and the probes below instead of coming one by one */
    for (size_t k = 0; k < nl + nr; k++) {
        const char *g = (const char *)node(k < nl ? l[k] : r[k - nl]);
        __builtin_prefetch(g);
        __builtin_prefetch(g + sizeof(GNode) - 1);
    }
#endif
    nl = sort_unique(l, nl);
    nr = sort_unique(r, nr);
    uint32_t h = arena_hash(l, (uint32_t)nl, r, (uint32_t)nr);
    RawSlot *slot = nl + nr <= RAW_IDS ? raw_slot(h) : NULL;
    if (slot && slot->id >= 0 && slot->hash == h && slot->nl == nl && slot->nr == nr &&
        memcmp(slot->ids, l, nl * sizeof *l) == 0 && memcmp(slot->ids + nl, r, nr * sizeof *r) == 0) {
        *out = slot->id;
        return 0;
    }
    Ids L = {0}, R = {0};
    int32_t i;
    int rc = ids_grow(&L.v, &L.cap, nl) < 0 || ids_grow(&R.v, &R.cap, nr) < 0 ? -1 : 0;
    if (rc == 0) {
        if (nl) memcpy(L.v, l, nl * sizeof *l);
        if (nr) memcpy(R.v, r, nr * sizeof *r);
        L.n = nl;
        R.n = nr;
        rc = canonicalise(&L, &R, h, &i);
    }
    free(L.v);
    free(R.v);
    if (rc < 0) return -1;
    slot = nl + nr <= RAW_IDS ? raw_slot(h) : NULL; /* (the cache may have been resized) */
    if (slot) {
        slot->hash = h;
        slot->id = i;
        slot->nl = (uint8_t)nl;
        slot->nr = (uint8_t)nr;
        memcpy(slot->ids, l, nl * sizeof *l);
        memcpy(slot->ids + nl, r, nr * sizeof *r);
    }
    *out = i;
    return 0;
}

int g_adopt(int32_t *l, size_t nl, int32_t *r, size_t nr, int32_t *out) {
    nl = sort_unique(l, nl);
    nr = sort_unique(r, nr);
    int32_t i = arena_find(l, (uint32_t)nl, r, (uint32_t)nr, arena_hash(l, (uint32_t)nl, r, (uint32_t)nr));
    if (i >= 0) {
        *out = i;
        return 0;
    }
    /* a canonical form the kernel has not met: a number or a nimber by the fast paths (their
     * options are numbers or nimbers), else what g_finish makes of it (x + n.up + *k detected) */
    Ids L = {l, nl, nl}, R = {r, nr, nr};
    int rc = fast(&L, &R, out);
    if (rc) return rc < 0 ? -1 : 0;
    return g_finish(l, nl, r, nr, NULL, out);
}
