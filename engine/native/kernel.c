/* kernel.c — the game order and canonicalisation of ruma.engine.cgt.kernel, compiled.
 *
 * The pure-Python kernel keeps one row of tables per canonical game id (options _LO/_RO, stops
 * _LS/_RS, the x + n.up + *k tag _NUSV); interning, ids and every Game object stay there. This
 * file compiles the two functions the profile shows dominating partizan searches:
 *
 *   le(a, b)                        the order G_a <= G_b (kernel._le), and
 *   canonicalise(lefts, rights, tag) removal of dominated and bypass of reversible options
 *                                    (kernel._canonicalise), calling the kernel's own _fast and
 *                                    _finish at the ends, so new games are interned by Python.
 *
 * Both return what the Python functions return: le is the (unique) truth of the order, and the
 * canonical form of a game is unique, so iterating options in a different order than Python's
 * sets does not change the id that _finish interns. Every shortcut used is the reference's:
 * stops (G <= H implies LS(G) <= LS(H) and RS(G) <= RS(H); LS(G) < RS(H) implies G < H) and the
 * arithmetic of x + n.up + *k. A stop the mirror cannot hold exactly as a double (a Fraction)
 * just disables the shortcuts for that game: the recursive definition decides instead.
 *
 * The mirror: ids only grow and a game's options never change, so each id's options and stops
 * are read from the Python lists once, on first use. A tag may be attached to an existing id
 * later (kernel._intern), so a missing tag is re-checked (one pointer compare) when needed.
 * No Python code runs inside le (only list reads), so no other thread can interleave; pointers
 * into the mirror are not held across the Python calls of canonicalise.
 */
#include "core.h"
#include "kernel.h"
#include "table.h"

typedef struct {
    int32_t *opts; /* Left option ids, then Right's */
    uint32_t nl, nr;
    double ls, rs;
    int64_t nus_n, nus_k;
    uint8_t loaded, stops_ok, nus;
} Info;

static struct {
    /* the kernel's tables ... */
    PyObject *lo, *ro, *ls, *rs, *nusv, *nim, *num, *negs;
    /* ... and functions */
    PyObject *fast, *finish, *canon, *add, *neg;
    Info *info;
    size_t ninfo;
    uint64_t *cache; /* le results: slot = (a << 32 | b) + 1, top bit = the answer; 0 = empty */
    size_t cache_mask, cache_count;
    Table raw;       /* sorted option id lists -> canonical id (kernel._RAW, for the search) */
    uint64_t *sums;  /* (a << 32 | b) + 1 -> id of a + b, in pairs of slots (key, value) */
    size_t sums_mask, sums_count;
    int raw_ready;
} K;

#define CACHE_LIMIT (1u << 23) /* entries before the comparison cache is dropped (64 MiB of slots) */
#define RAW_LIMIT (1u << 21)   /* entries before the option-list cache is dropped */
#define SUMS_LIMIT (1u << 21)  /* entries before the sum cache is dropped */

/* ---------------------------------------------------------------------------------------- */
/* the mirror                                                                                */

/* A stop as an exact double: floats (the kernel stores dyadic stops as floats when exact) and
 * small ints; 0 for anything else (a Fraction), which disables the stop shortcuts. */
static int exact_double(PyObject *x, double *out) {
    if (PyFloat_CheckExact(x)) {
        *out = PyFloat_AS_DOUBLE(x);
        return 1;
    }
    if (PyLong_CheckExact(x)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || v > (1LL << 53) || v < -(1LL << 53)) return 0;
        *out = (double)v;
        return 1;
    }
    return 0;
}

/* Make room for every id the kernel has now: called at the entry points, so that no reallocation
 * happens during a recursion (which holds only indices and options arrays, never Info pointers). */
static int ensure(void) {
    if (!K.lo) {
        PyErr_SetString(PyExc_RuntimeError, "the compiled kernel is not bound (kernel_bind)");
        return -1;
    }
    size_t n = (size_t)PyList_GET_SIZE(K.lo);
    if (n <= K.ninfo) return 0;
    size_t cap = K.ninfo ? K.ninfo : 1024;
    while (cap < n) cap *= 2;
    Info *info = realloc(K.info, cap * sizeof *info);
    if (!info) {
        PyErr_NoMemory();
        return -1;
    }
    memset(info + K.ninfo, 0, (cap - K.ninfo) * sizeof *info);
    K.info = info;
    K.ninfo = cap;
    return 0;
}

static void load_tag(Info *g, size_t i) {
    PyObject *tag = PyList_GET_ITEM(K.nusv, (Py_ssize_t)i);
    if (tag == Py_None || !PyTuple_Check(tag) || PyTuple_GET_SIZE(tag) != 3) return;
    long long n = PyLong_AsLongLong(PyTuple_GET_ITEM(tag, 1));
    long long k = PyLong_AsLongLong(PyTuple_GET_ITEM(tag, 2));
    if ((n == -1 || k == -1) && PyErr_Occurred()) {
        PyErr_Clear(); /* a tag the mirror cannot hold: the recursion decides */
        return;
    }
    g->nus_n = n;
    g->nus_k = k;
    g->nus = 1;
}

static int read_ids(PyObject *tuple, int32_t *out) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(tuple); k++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(tuple, k));
        if (v < 0 || v > INT32_MAX) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "game id out of range");
            return -1;
        }
        out[k] = (int32_t)v;
    }
    return 0;
}

/* The mirror of game i (loaded on first use); NULL with an error set. */
static Info *game(size_t i) {
    if (i >= K.ninfo || i >= (size_t)PyList_GET_SIZE(K.lo) || i >= (size_t)PyList_GET_SIZE(K.ls) ||
        i >= (size_t)PyList_GET_SIZE(K.nusv)) {
        PyErr_Format(PyExc_IndexError, "no game with id %zu", i);
        return NULL;
    }
    Info *g = &K.info[i];
    if (!g->loaded) {
        PyObject *lo = PyList_GET_ITEM(K.lo, (Py_ssize_t)i), *ro = PyList_GET_ITEM(K.ro, (Py_ssize_t)i);
        if (!PyTuple_Check(lo) || !PyTuple_Check(ro)) {
            PyErr_SetString(PyExc_TypeError, "kernel option lists must be tuples");
            return NULL;
        }
        size_t nl = (size_t)PyTuple_GET_SIZE(lo), nr = (size_t)PyTuple_GET_SIZE(ro);
        int32_t *opts = malloc((nl + nr + 1) * sizeof *opts);
        if (!opts) {
            PyErr_NoMemory();
            return NULL;
        }
        if (read_ids(lo, opts) < 0 || read_ids(ro, opts + nl) < 0) {
            free(opts);
            return NULL;
        }
        g->opts = opts;
        g->nl = (uint32_t)nl;
        g->nr = (uint32_t)nr;
        g->stops_ok = exact_double(PyList_GET_ITEM(K.ls, (Py_ssize_t)i), &g->ls) &&
                      exact_double(PyList_GET_ITEM(K.rs, (Py_ssize_t)i), &g->rs);
        g->loaded = 1;
    }
    if (!g->nus) load_tag(g, i);
    return g;
}

/* ---------------------------------------------------------------------------------------- */
/* the order                                                                                 */

static int cache_get(uint64_t key, int *answer) {
    if (!K.cache) return 0;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & K.cache_mask;
    for (;;) {
        uint64_t slot = K.cache[i];
        if (!slot) return 0;
        if ((slot & ~(1ULL << 63)) == key + 1) {
            *answer = (int)(slot >> 63);
            return 1;
        }
        i = (i + 1) & K.cache_mask;
    }
}

static void cache_put(uint64_t key, int answer) {
    if (!K.cache || (K.cache_count + 1) * 2 > K.cache_mask + 1) {
        size_t size = K.cache ? (K.cache_mask + 1) * 2 : 1u << 16;
        if (K.cache_count >= CACHE_LIMIT) size = 1u << 16; /* drop it, like kernel.CACHE_LIMIT */
        uint64_t *fresh = calloc(size, sizeof *fresh);
        if (!fresh) return; /* a cache may forget */
        size_t mask = size - 1, count = 0;
        if (K.cache && K.cache_count < CACHE_LIMIT) {
            for (size_t j = 0; j <= K.cache_mask; j++) {
                uint64_t slot = K.cache[j];
                if (!slot) continue;
                uint64_t k = (slot & ~(1ULL << 63)) - 1;
                size_t at = (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
                while (fresh[at]) at = (at + 1) & mask;
                fresh[at] = slot;
                count++;
            }
        }
        free(K.cache);
        K.cache = fresh;
        K.cache_mask = mask;
        K.cache_count = count;
    }
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & K.cache_mask;
    while (K.cache[i]) i = (i + 1) & K.cache_mask;
    K.cache[i] = (key + 1) | ((uint64_t)(answer != 0) << 63);
    K.cache_count++;
}

/* G_a <= G_b: 1, 0, or -1 with an error set (reference: kernel._le). */
static int le(int32_t a, int32_t b) {
    if (a == b) return 1;
    Info *ga = game((size_t)a), *gb = game((size_t)b);
    if (!ga || !gb) return -1;
    int stops = ga->stops_ok && gb->stops_ok;
    double lsa = ga->ls, lsb = gb->ls, rsa = ga->rs, rsb = gb->rs;
    if (ga->nus && gb->nus && stops) { /* both x + n.up + *k: the stops are the number parts */
        if (lsa != lsb) return lsa < lsb;
        int64_t n = gb->nus_n - ga->nus_n;
        if (n == 0) return ga->nus_k == gb->nus_k;
        return n > 1 || (n == 1 && (ga->nus_k ^ gb->nus_k) != 1);
    }
    if (stops) {
        if (lsa > lsb) return 0;
        if (lsa < rsb) return 1;
        if (rsa > rsb) return 0;
    }
    uint64_t key = (uint64_t)a << 32 | (uint64_t)b;
    int answer;
    if (cache_get(key, &answer)) return answer;
    /* the options arrays never move: hold them, not the Info pointers, across the recursion */
    const int32_t *la = ga->opts, *rb = gb->opts + gb->nl;
    uint32_t nla = ga->nl, nrb = gb->nr;
    answer = 1;
    for (uint32_t k = 0; k < nla && answer; k++) { /* b <= a^L refutes a <= b */
        int32_t i = la[k];
        Info *gi = game((size_t)i);
        if (!gi) return -1;
        if (stops && gi->stops_ok && !(gi->ls >= lsb && gi->rs >= rsb)) continue;
        int r = le(b, i);
        if (r < 0) return -1;
        if (r) answer = 0;
    }
    for (uint32_t k = 0; k < nrb && answer; k++) { /* b^R <= a refutes a <= b */
        int32_t i = rb[k];
        Info *gi = game((size_t)i);
        if (!gi) return -1;
        if (stops && gi->stops_ok && !(gi->ls <= lsa && gi->rs <= rsa)) continue;
        int r = le(i, a);
        if (r < 0) return -1;
        if (r) answer = 0;
    }
    cache_put(key, answer);
    return answer;
}

/* ---------------------------------------------------------------------------------------- */
/* canonicalisation                                                                          */

typedef struct {
    int32_t *v;
    size_t n, cap;
} Ids;

static int ids_add(Ids *s, int32_t x) { /* set semantics: no duplicates */
    for (size_t k = 0; k < s->n; k++)
        if (s->v[k] == x) return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        int32_t *v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            PyErr_NoMemory();
            return -1;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

static void ids_remove(Ids *s, int32_t x) {
    for (size_t k = 0; k < s->n; k++)
        if (s->v[k] == x) {
            s->v[k] = s->v[--s->n];
            return;
        }
}

static int le_gx(const Ids *L, const Ids *R, int32_t x);

/* G_x <= {L | R} for a game not interned yet (reference: kernel._le_xg). */
static int le_xg(int32_t x, const Ids *L, const Ids *R) {
    for (size_t k = 0; k < R->n; k++) {
        int r = le(R->v[k], x);
        if (r) return r < 0 ? -1 : 0;
    }
    Info *g = game((size_t)x);
    if (!g) return -1;
    const int32_t *lo = g->opts;
    uint32_t n = g->nl;
    for (uint32_t k = 0; k < n; k++) {
        int r = le_gx(L, R, lo[k]);
        if (r) return r < 0 ? -1 : 0;
    }
    return 1;
}

/* {L | R} <= G_x for a game not interned yet (reference: kernel._le_gx). */
static int le_gx(const Ids *L, const Ids *R, int32_t x) {
    for (size_t k = 0; k < L->n; k++) {
        int r = le(x, L->v[k]);
        if (r) return r < 0 ? -1 : 0;
    }
    Info *g = game((size_t)x);
    if (!g) return -1;
    const int32_t *ro = g->opts + g->nl;
    uint32_t n = g->nr;
    for (uint32_t k = 0; k < n; k++) {
        int r = le_xg(ro[k], L, R);
        if (r) return r < 0 ? -1 : 0;
    }
    return 1;
}

/* Remove dominated options: Left keeps a unless a <= b for another b (right: b <= a). */
static int undominated(Ids *s, int left, int *removed) {
    if (s->n < 2) return 0;
    uint8_t keep[s->n]; /* small: the options of one game */
    for (size_t x = 0; x < s->n; x++) {
        keep[x] = 1;
        Info *ga = game((size_t)s->v[x]);
        if (!ga) return -1;
        int ok_a = ga->stops_ok;
        double la = ga->ls, ra = ga->rs;
        for (size_t y = 0; y < s->n; y++) {
            if (y == x) continue;
            Info *gb = game((size_t)s->v[y]);
            if (!gb) return -1;
            if (ok_a && gb->stops_ok && !(left ? (gb->ls >= la && gb->rs >= ra) : (gb->ls <= la && gb->rs <= ra)))
                continue;
            int r = left ? le(s->v[x], s->v[y]) : le(s->v[y], s->v[x]);
            if (r < 0) return -1;
            if (r) {
                keep[x] = 0;
                break;
            }
        }
    }
    size_t n = 0;
    for (size_t x = 0; x < s->n; x++)
        if (keep[x]) s->v[n++] = s->v[x];
    if (n < s->n) *removed = 1;
    s->n = n;
    return 0;
}

static PyObject *array_set(const int32_t *v, size_t n);

static PyObject *ids_set(const Ids *s) { return array_set(s->v, s->n); }

static int cmp_ids(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static PyObject *ids_sorted_tuple(Ids *s) {
    qsort(s->v, s->n, sizeof *s->v, cmp_ids);
    PyObject *t = PyTuple_New((Py_ssize_t)s->n);
    if (!t) return NULL;
    for (size_t k = 0; k < s->n; k++) {
        PyObject *x = PyLong_FromLong(s->v[k]);
        if (!x) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)k, x);
    }
    return t;
}

/* Whether kernel._fast can apply: every option a nimber with both sides equal, or every option a
 * number (read off kernel._NIM / _NUM); when not, calling it would only return -1. */
static int fast_may_apply(const Ids *L, const Ids *R) {
    int all_num = 1;
    for (size_t k = 0; k < L->n && all_num; k++)
        all_num = L->v[k] < PyList_GET_SIZE(K.num) && PyList_GET_ITEM(K.num, L->v[k]) != Py_None;
    for (size_t k = 0; k < R->n && all_num; k++)
        all_num = R->v[k] < PyList_GET_SIZE(K.num) && PyList_GET_ITEM(K.num, R->v[k]) != Py_None;
    if (all_num) return 1;
    if (L->n == 0 || L->n != R->n) return 0;
    for (size_t k = 0; k < L->n; k++) {
        int32_t x = L->v[k];
        if (x >= PyList_GET_SIZE(K.nim) || PyList_GET_ITEM(K.nim, x) == Py_None) return 0;
        int found = 0;
        for (size_t j = 0; j < R->n && !found; j++) found = R->v[j] == x;
        if (!found) return 0;
    }
    return 1;
}

/* kernel._fast(set(L), set(R)): the id, or -1 when no fast path applies; -2 on error. */
static long call_fast(const Ids *L, const Ids *R, PyObject *lset, PyObject *rset) {
    if (!fast_may_apply(L, R)) return -1;
    PyObject *ls = lset ? (Py_INCREF(lset), lset) : ids_set(L);
    PyObject *rs = rset ? (Py_INCREF(rset), rset) : ids_set(R);
    PyObject *r = (ls && rs) ? PyObject_CallFunctionObjArgs(K.fast, ls, rs, NULL) : NULL;
    Py_XDECREF(ls);
    Py_XDECREF(rs);
    if (!r) return -2;
    long i = PyLong_AsLong(r);
    Py_DECREF(r);
    return (i == -1 && PyErr_Occurred()) ? -2 : i;
}

static int read_set(PyObject *set, Ids *out) {
    PyObject *it = PyObject_GetIter(set), *x;
    if (!it) return -1;
    while ((x = PyIter_Next(it))) {
        long v = PyLong_AsLong(x);
        Py_DECREF(x);
        if (v < 0 || v > INT32_MAX) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "game id out of range");
            Py_DECREF(it);
            return -1;
        }
        if (ids_add(out, (int32_t)v) < 0) {
            Py_DECREF(it);
            return -1;
        }
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* canonicalise(lefts, rights, tag) -> id (reference: kernel._canonicalise). */
static PyObject *kernel_canonicalise(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *lset, *rset, *tag;
    if (!PyArg_ParseTuple(args, "OOO", &lset, &rset, &tag)) return NULL;
    Ids L = {0}, R = {0};
    PyObject *result = NULL;
    if (read_set(lset, &L) < 0 || read_set(rset, &R) < 0) goto done;
    long i = call_fast(&L, &R, lset, rset);
    if (i == -2) goto done;
    if (i >= 0) {
        result = PyLong_FromLong(i);
        goto done;
    }
    int bypassed = 0;
    for (;;) {
        if (ensure() < 0) goto done;
        if (undominated(&L, 1, &bypassed) < 0 || undominated(&R, 0, &bypassed) < 0) goto done;
        int changed = 0;
        /* a Left option a is reversible through a^R when a^R <= G: replace a by a^R's Left options */
        for (size_t x = 0; x < L.n && !changed; x++) {
            int32_t a = L.v[x];
            Info *ga = game((size_t)a);
            if (!ga) goto done;
            const int32_t *ro = ga->opts + ga->nl;
            uint32_t nr = ga->nr;
            for (uint32_t k = 0; k < nr; k++) {
                int r = le_xg(ro[k], &L, &R);
                if (r < 0) goto done;
                if (r) {
                    Info *g = game((size_t)ro[k]);
                    if (!g) goto done;
                    const int32_t *lo = g->opts;
                    uint32_t nl = g->nl;
                    ids_remove(&L, a);
                    for (uint32_t j = 0; j < nl; j++)
                        if (ids_add(&L, lo[j]) < 0) goto done;
                    changed = 1;
                    break;
                }
            }
        }
        for (size_t x = 0; x < R.n && !changed; x++) {
            int32_t a = R.v[x];
            Info *ga = game((size_t)a);
            if (!ga) goto done;
            const int32_t *lo = ga->opts;
            uint32_t nl = ga->nl;
            for (uint32_t k = 0; k < nl; k++) {
                int r = le_gx(&L, &R, lo[k]);
                if (r < 0) goto done;
                if (r) {
                    Info *g = game((size_t)lo[k]);
                    if (!g) goto done;
                    const int32_t *ro = g->opts + g->nl;
                    uint32_t nr = g->nr;
                    ids_remove(&R, a);
                    for (uint32_t j = 0; j < nr; j++)
                        if (ids_add(&R, ro[j]) < 0) goto done;
                    changed = 1;
                    break;
                }
            }
        }
        if (!changed) break;
        bypassed = 1;
    }
    if (bypassed) { /* the remaining options may all be numbers or nimbers now */
        i = call_fast(&L, &R, NULL, NULL);
        if (i == -2) goto done;
        if (i >= 0) {
            result = PyLong_FromLong(i);
            goto done;
        }
    }
    PyObject *lt = ids_sorted_tuple(&L), *rt = ids_sorted_tuple(&R);
    if (lt && rt) {
        PyObject *key = PyTuple_Pack(2, lt, rt);
        if (key) {
            result = PyObject_CallFunctionObjArgs(K.finish, key, tag, NULL);
            Py_DECREF(key);
        }
    }
    Py_XDECREF(lt);
    Py_XDECREF(rt);
done:
    free(L.v);
    free(R.v);
    return result;
}

static PyObject *kernel_le(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "le(a, b) takes two game ids");
        return NULL;
    }
    long a = PyLong_AsLong(args[0]), b = PyLong_AsLong(args[1]);
    if ((a == -1 || b == -1) && PyErr_Occurred()) return NULL;
    if (a < 0 || b < 0 || a > INT32_MAX || b > INT32_MAX) {
        PyErr_SetString(PyExc_IndexError, "game ids are non-negative");
        return NULL;
    }
    if (ensure() < 0) return NULL;
    int r = le((int32_t)a, (int32_t)b);
    if (r < 0) return NULL;
    return PyBool_FromLong(r);
}

static PyObject *kernel_bind(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *lo, *ro, *ls, *rs, *nusv, *nim, *num, *negs, *fast, *finish, *canon, *add, *neg;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!O!OOOOO", &PyList_Type, &lo, &PyList_Type, &ro, &PyList_Type, &ls,
                          &PyList_Type, &rs, &PyList_Type, &nusv, &PyList_Type, &nim, &PyList_Type, &num,
                          &PyList_Type, &negs, &fast, &finish, &canon, &add, &neg))
        return NULL;
    if (K.lo == lo) Py_RETURN_NONE; /* bound already (the kernel module is imported once) */
    if (K.lo) {
        PyErr_SetString(PyExc_RuntimeError, "the compiled kernel is bound to other tables already");
        return NULL;
    }
    PyObject *all[] = {lo, ro, ls, rs, nusv, nim, num, negs, fast, finish, canon, add, neg};
    for (int k = 0; k < 13; k++) Py_INCREF(all[k]);
    K.lo = lo, K.ro = ro, K.ls = ls, K.rs = rs, K.nusv = nusv, K.nim = nim, K.num = num, K.negs = negs;
    K.fast = fast, K.finish = finish, K.canon = canon, K.add = add, K.neg = neg;
    Py_RETURN_NONE;
}

int kernel_bound(void) { return K.lo != NULL; }

/* ---------------------------------------------------------------------------------------- */
/* what the search needs: negatives, sums and {L | R} by id, cached in C                     */

static int call_ids(PyObject *fn, PyObject *a, PyObject *b, int32_t *out) {
    PyObject *r = b ? PyObject_CallFunctionObjArgs(fn, a, b, NULL) : PyObject_CallOneArg(fn, a);
    if (!r) return -1;
    long v = PyLong_AsLong(r);
    Py_DECREF(r);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "Game id beyond the compiled engine's range");
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

int kernel_neg(int32_t a, int32_t *out) {
    /* kernel._NEG[a] once computed (>= 0), else kernel._neg(a), which fills it */
    if (a < PyList_GET_SIZE(K.negs)) {
        long v = PyLong_AsLong(PyList_GET_ITEM(K.negs, a));
        if (v >= 0 && v <= INT32_MAX) {
            *out = (int32_t)v;
            return 0;
        }
        PyErr_Clear();
    }
    PyObject *x = PyLong_FromLong(a);
    if (!x) return -1;
    int rc = call_ids(K.neg, x, NULL, out);
    Py_DECREF(x);
    return rc;
}

static size_t sum_slot(uint64_t key, size_t mask) { return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & mask; }

int kernel_add(int32_t a, int32_t b, int32_t *out) {
    if (a == 0 || b == 0) { /* ZERO is id 0 */
        *out = a ? a : b;
        return 0;
    }
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    uint64_t key = ((uint64_t)a << 32 | (uint64_t)b) + 1;
    if (K.sums) {
        for (size_t i = sum_slot(key, K.sums_mask);; i = (i + 1) & K.sums_mask) {
            uint64_t slot = K.sums[2 * i];
            if (!slot) break;
            if (slot == key) {
                *out = (int32_t)K.sums[2 * i + 1];
                return 0;
            }
        }
    }
    PyObject *x = PyLong_FromLong(a), *y = PyLong_FromLong(b);
    int rc = (x && y) ? call_ids(K.add, x, y, out) : -1;
    Py_XDECREF(x);
    Py_XDECREF(y);
    if (rc < 0) return -1;
    if (!K.sums || (K.sums_count + 1) * 2 > K.sums_mask + 1) { /* grow (or drop when too big) */
        size_t size = K.sums && K.sums_count < SUMS_LIMIT ? (K.sums_mask + 1) * 2 : 1u << 14;
        uint64_t *fresh = calloc(2 * size, sizeof *fresh);
        if (!fresh) return 0; /* a cache may forget */
        size_t mask = size - 1, count = 0;
        if (K.sums && K.sums_count < SUMS_LIMIT)
            for (size_t j = 0; j <= K.sums_mask; j++) {
                uint64_t k = K.sums[2 * j];
                if (!k) continue;
                size_t at = sum_slot(k, mask);
                while (fresh[2 * at]) at = (at + 1) & mask;
                fresh[2 * at] = k;
                fresh[2 * at + 1] = K.sums[2 * j + 1];
                count++;
            }
        free(K.sums);
        K.sums = fresh;
        K.sums_mask = mask;
        K.sums_count = count;
    }
    size_t i = sum_slot(key, K.sums_mask);
    while (K.sums[2 * i]) {
        if (K.sums[2 * i] == key) return 0; /* added meanwhile by another thread */
        i = (i + 1) & K.sums_mask;
    }
    K.sums[2 * i] = key;
    K.sums[2 * i + 1] = (uint64_t)*out;
    K.sums_count++;
    return 0;
}

/* Sort and dedupe ids in place; returns the new count. */
static size_t sort_unique(int32_t *v, size_t n) {
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

static PyObject *array_set(const int32_t *v, size_t n) {
    PyObject *set = PySet_New(NULL);
    if (!set) return NULL;
    for (size_t k = 0; k < n; k++) {
        PyObject *x = PyLong_FromLong(v[k]);
        if (!x || PySet_Add(set, x) < 0) {
            Py_XDECREF(x);
            Py_DECREF(set);
            return NULL;
        }
        Py_DECREF(x);
    }
    return set;
}

int kernel_canon(int32_t *lefts, size_t nl, int32_t *rights, size_t nr, int32_t *out) {
    nl = sort_unique(lefts, nl);
    nr = sort_unique(rights, nr);
    /* the cache key: the number of Left options, then both sorted lists (the bytes of int32s) */
    size_t len = (1 + nl + nr) * sizeof(int32_t);
    int32_t stack_key[64];
    int32_t *key = 1 + nl + nr <= 64 ? stack_key : malloc(len);
    if (!key) {
        PyErr_NoMemory();
        return -1;
    }
    key[0] = (int32_t)nl;
    memcpy(key + 1, lefts, nl * sizeof *key);
    memcpy(key + 1 + nl, rights, nr * sizeof *key);
    int rc = -1;
    if (!K.raw_ready || K.raw.count >= RAW_LIMIT) { /* (re)start the cache, like kernel.RAW_LIMIT */
        if (K.raw_ready) table_free(&K.raw);
        if (table_init(&K.raw) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        K.raw_ready = 1;
    }
    uint32_t h = table_hash((const uint8_t *)key, len);
    uint32_t rec = table_find(&K.raw, (const uint8_t *)key, len, h);
    if (rec != TABLE_NONE) {
        *out = table_value(&K.raw, rec);
        rc = 0;
        goto done;
    }
    PyObject *ls = array_set(lefts, nl), *rs = ls ? array_set(rights, nr) : NULL;
    rc = (ls && rs) ? call_ids(K.canon, ls, rs, out) : -1;
    Py_XDECREF(ls);
    Py_XDECREF(rs);
    if (rc < 0) goto done;
    /* the Python call may have let another thread add this key (or restart the cache) */
    if (K.raw_ready && table_find(&K.raw, (const uint8_t *)key, len, h) == TABLE_NONE)
        table_add(&K.raw, (const uint8_t *)key, len, h, *out); /* a failed add only forgets */
done:
    if (key != stack_key) free(key);
    return rc;
}

static PyObject *kernel_clear(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    free(K.cache);
    K.cache = NULL;
    K.cache_mask = K.cache_count = 0;
    free(K.sums);
    K.sums = NULL;
    K.sums_mask = K.sums_count = 0;
    if (K.raw_ready) table_free(&K.raw);
    K.raw_ready = 0;
    Py_RETURN_NONE;
}

static PyObject *kernel_info(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return Py_BuildValue("{snsnsnsnsi}", "comparisons", (Py_ssize_t)K.cache_count, "sums", (Py_ssize_t)K.sums_count,
                         "option_lists", (Py_ssize_t)(K.raw_ready ? K.raw.count : 0), "mirrored_games",
                         (Py_ssize_t)K.ninfo, "bound", K.lo != NULL);
}

PyMethodDef kernel_methods[] = {
    {"kernel_bind", (PyCFunction)kernel_bind, METH_VARARGS,
     "kernel_bind(_LO, _RO, _LS, _RS, _NUSV, _NIM, _NUM, _NEG, _fast, _finish, _canon, _add, _neg): "
     "the kernel's tables and functions (once per process)."},
    {"le", (PyCFunction)(void (*)(void))kernel_le, METH_FASTCALL, "le(a, b) -> G_a <= G_b (kernel._le)."},
    {"canonicalise", (PyCFunction)kernel_canonicalise, METH_VARARGS,
     "canonicalise(lefts, rights, tag) -> canonical id (kernel._canonicalise)."},
    {"kernel_clear", (PyCFunction)kernel_clear, METH_NOARGS, "Drop the compiled comparison, sum and option-list caches."},
    {"kernel_info", (PyCFunction)kernel_info, METH_NOARGS, "Sizes of the compiled kernel's cache and mirror."},
    {NULL, NULL, 0, NULL},
};
