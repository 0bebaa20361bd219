/* kernel.c — the compiled kernel's binding to the Python kernel and the search's caches.
 *
 * kernel_bind gives the compiled code (order.c, this file) the Python kernel's tables and
 * functions once per process. The search (search.c) values partizan positions by Game id through
 * kernel_neg, kernel_add and kernel_canon: C caches keyed by ids (a sum, a negative and the
 * canonical form of an option list are pure functions of the ids), and the Python kernel on a
 * miss, so new canonical forms are interned by Python exactly as in the pure-Python engine.
 */
#include "kernel.h"
#include "kernel_state.h"

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

PyObject *array_set(const int32_t *v, size_t n) {
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
