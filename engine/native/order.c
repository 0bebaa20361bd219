/* order.c — the game order and canonicalisation of ruma.engine.cgt.kernel, compiled.
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
#include "kernel_state.h"

KernelState K;

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
PyObject *kernel_canonicalise(PyObject *self, PyObject *args) {
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

PyObject *kernel_le(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
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

