/* store/iterators.c — the lazy record iterators of the store's bulk writes (``_native.seal_positions``
 * and ``_native.index_entries``) and the ordering of ``by_value`` keys they hand out. Part of the
 * module ``ruma.server.store._native`` (store/native.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"

/* ---------------------------------------------------------------------------------------- */
/* lazy record iterators                                                                     */
/*
 * Both builders return iterators for Cursor.putmulti rather than lists: putmulti takes one
 * (key, record) pair, puts it and drops it before asking for the next, so each pair is made just
 * in time and freed at once. A list of N pairs kept alive instead would be N GC-tracked tuples
 * (the cyclic collector runs every 700 net allocations and, once they survive, walks them again
 * and again — together with every Game of a partizan process; measured at a quarter of the
 * store's CPU time on a 16,384-entry batch) and N records cold in the cache by the time LMDB
 * copies them. Freed tuples go back to CPython's tuple free list, so a batch allocates a handful.
 */

/* A pair (a, b), both new references stolen; NULL (and both released) on error. */
static PyObject *pair_of(PyObject *a, PyObject *b) {
    PyObject *pair = (a && b) ? PyTuple_New(2) : NULL;
    if (!pair) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, a);
    PyTuple_SET_ITEM(pair, 1, b);
    return pair;
}

typedef struct {
    PyObject_HEAD
    PyObject *keys, *entries; /* lists of bytes, of one length (checked when made) */
    Py_ssize_t next;
} SealIter;

static void SealIter_dealloc(SealIter *it) {
    Py_XDECREF(it->keys);
    Py_XDECREF(it->entries);
    PyObject_Free(it);
}

/* The next (key, entry + crc32c(key + entry)). */
static PyObject *SealIter_next(SealIter *it) {
    Py_ssize_t i = it->next;
    /* (the lists are the caller's: re-checked at every step, in case they changed meanwhile) */
    if (i >= PyList_GET_SIZE(it->keys) || i >= PyList_GET_SIZE(it->entries)) return NULL;
    PyObject *key = PyList_GET_ITEM(it->keys, i), *entry = PyList_GET_ITEM(it->entries, i);
    if (!PyBytes_CheckExact(key) || !PyBytes_CheckExact(entry)) {
        PyErr_SetString(PyExc_TypeError, "expected two lists of bytes of the same length");
        return NULL;
    }
    it->next = i + 1;
    const uint8_t *k = (const uint8_t *)PyBytes_AS_STRING(key), *e = (const uint8_t *)PyBytes_AS_STRING(entry);
    Py_ssize_t nk = PyBytes_GET_SIZE(key), ne = PyBytes_GET_SIZE(entry);
    PyObject *record = PyBytes_FromStringAndSize(NULL, ne + 4);
    if (!record) return NULL;
    uint8_t *r = (uint8_t *)PyBytes_AS_STRING(record);
    memcpy(r, e, (size_t)ne);
    put_le32(r + ne, crc32c_two(k, (size_t)nk, e, (size_t)ne));
    return pair_of(Py_NewRef(key), record);
}

static PyTypeObject SealIterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.server.store._native.SealIter",
    .tp_basicsize = sizeof(SealIter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Iterator of (key, sealed positions record) pairs (seal_positions).",
    .tp_dealloc = (destructor)SealIter_dealloc,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)SealIter_next,
};

/* seal_positions(keys, entries) -> iterator of (key, entry + crc32c(key + entry)) */
PyObject *py_seal_positions(PyObject *self, PyObject *args) {
    PyObject *keys, *entries;
    if (!PyArg_ParseTuple(args, "OO", &keys, &entries) || check_lists(keys, entries) < 0) return NULL;
    SealIter *it = PyObject_New(SealIter, &SealIterType);
    if (!it) return NULL;
    it->keys = Py_NewRef(keys);
    it->entries = Py_NewRef(entries);
    it->next = 0;
    return (PyObject *)it;
}

/* The by_value index keys of a batch, built into one buffer (no Python object per key until the
 * iterator hands it out) and ordered by an array of offsets. */

typedef struct {
    PyObject_HEAD
    uint8_t *bytes; /* every index key, back to back */
    Span *order;    /* the keys, sorted */
    size_t count, next;
} IndexIter;

static void IndexIter_dealloc(IndexIter *it) {
    PyMem_Free(it->bytes);
    PyMem_Free(it->order);
    PyObject_Free(it);
}

/* The next (index key, crc32c(index key)). */
static PyObject *IndexIter_next(IndexIter *it) {
    if (it->next >= it->count) return NULL;
    Span span = it->order[it->next++];
    PyObject *entry = PyBytes_FromStringAndSize((const char *)span.at, (Py_ssize_t)span.len);
    PyObject *record = PyBytes_FromStringAndSize(NULL, 4);
    if (record) put_le32((uint8_t *)PyBytes_AS_STRING(record), crc32c_two(span.at, span.len, NULL, 0));
    return pair_of(entry, record);
}

static PyObject *IndexIter_length_hint(IndexIter *it, PyObject *unused) {
    return PyLong_FromSize_t(it->count - it->next);
}

static PyMethodDef IndexIter_methods[] = {
    {"__length_hint__", (PyCFunction)IndexIter_length_hint, METH_NOARGS, "How many records are left."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject IndexIterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.server.store._native.IndexIter",
    .tp_basicsize = sizeof(IndexIter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Iterator of (by_value key, its seal) pairs in key order (index_entries).",
    .tp_dealloc = (destructor)IndexIter_dealloc,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)IndexIter_next,
    .tp_methods = IndexIter_methods,
};

/* Byte order of keys; heads first give the same order (they differ at a byte both keys have, or
 * where the shorter key, a prefix so far, has padding no greater than the longer one's byte). */
static int by_span(const void *a, const void *b) {
    const Span *x = a, *y = b;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    int c = memcmp(x->at, y->at, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Whether a comes strictly before b in byte order. */
int bytes_less(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
    int c = memcmp(a, b, na < nb ? na : nb);
    return c ? c < 0 : na < nb;
}

/* The same order for the keys of a batch that came sorted (as every bulk batch does) with two
 * integer comparisons and no memcmp. An index key is group + position key, the group being
 * (prefix, value, seeds, key length): a batch has only a few groups (a handful of values, a few
 * seed counts), so most pairs tie on the group and by_span then compares the position keys byte by
 * byte from where they start. Where both groups lie within the first 16 bytes (values of at most 8
 * bytes: every nim value and game id below 2^56), equal heads and tails mean equal groups (a
 * value's varint ends itself, so two values differ within the shorter one), hence position keys of
 * one length, whose byte order is their order in the sorted batch: seq. Otherwise by_span's order;
 * both are the byte order, so mixing them is consistent. */
static int by_group(const void *a, const void *b) {
    const Span *x = a, *y = b;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    if (x->tail != y->tail) return x->tail < y->tail ? -1 : 1;
    if (x->short_group && y->short_group) return (x->seq > y->seq) - (x->seq < y->seq);
    return by_span(a, b);
}

/* by_group's order in linear time, for a sorted batch whose groups all lie within head and tail
 * (every nim value and game id below 2^56): a stable counting sort by group. A batch has a handful
 * of groups (a few values times a few seed counts and key lengths), and qsort's comparisons were
 * most of the writer's time spent ordering a batch. Two groups differ at a byte both have (a
 * value's varint ends itself), so their bytes zero-padded to 16 give their order, and within a
 * group the batch's order is the keys' byte order (by_group). Returns 0 (nothing done: the caller
 * sorts) for a long group, more than GROUPS_MAX groups, or when out of memory. */
#define GROUPS_MAX 1024
typedef struct {
    uint64_t head, tail; /* the group's bytes, zero-padded */
    size_t count;        /* its spans */
    size_t index;        /* its place in order of first appearance */
} Group;

static int by_group_key(const void *a, const void *b) {
    const Group *x = a, *y = b;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    return (x->tail > y->tail) - (x->tail < y->tail);
}

/* The first len bytes (zero-padded) of a key whose first 16 are head and tail. */
static void group_bytes(const Span *span, uint64_t *head, uint64_t *tail) {
    unsigned len = span->group_len;
    *head = len >= 8 ? span->head : span->head & ~(~(uint64_t)0 >> (8 * len));
    *tail = len <= 8 ? 0 : len >= 16 ? span->tail : span->tail & ~(~(uint64_t)0 >> (8 * (len - 8)));
}

static int order_by_group(Span *spans, size_t n) {
    enum { SLOTS = 4 * GROUPS_MAX }; /* open addressing, at most a quarter full */
    for (size_t i = 0; i < n; i++)
        if (!spans[i].short_group) return 0;
    int16_t *slot = PyMem_Malloc(SLOTS * sizeof *slot);
    uint16_t *group_of = PyMem_Malloc((n ? n : 1) * sizeof *group_of);
    Group *groups = PyMem_Malloc(GROUPS_MAX * sizeof *groups);
    Span *out = PyMem_Malloc((n ? n : 1) * sizeof *out);
    size_t count = 0;
    int done = 0;
    if (!slot || !group_of || !groups || !out) goto end;
    memset(slot, 0xFF, SLOTS * sizeof *slot); /* -1: empty */
    for (size_t i = 0; i < n; i++) {
        uint64_t head, tail;
        group_bytes(&spans[i], &head, &tail);
        uint64_t h = head * 0x9E3779B97F4A7C15u ^ tail * 0xC2B2AE3D27D4EB4Fu;
        size_t s = (size_t)(h >> 40) & (SLOTS - 1);
        while (slot[s] >= 0 && (groups[slot[s]].head != head || groups[slot[s]].tail != tail))
            s = (s + 1) & (SLOTS - 1);
        if (slot[s] < 0) {
            if (count == GROUPS_MAX) goto end;
            groups[count] = (Group){head, tail, 0, count};
            slot[s] = (int16_t)count++;
        }
        group_of[i] = (uint16_t)slot[s];
        groups[slot[s]].count++;
    }
    /* rank the groups in (head, tail) order; start[g]: where group g's first span goes */
    Group ranked[GROUPS_MAX];
    size_t start[GROUPS_MAX];
    memcpy(ranked, groups, count * sizeof *groups);
    qsort(ranked, count, sizeof *ranked, by_group_key);
    size_t at = 0;
    for (size_t r = 0; r < count; r++) {
        start[ranked[r].index] = at;
        at += ranked[r].count;
    }
    for (size_t i = 0; i < n; i++) out[start[group_of[i]]++] = spans[i]; /* stable: batch order */
    memcpy(spans, out, n * sizeof *spans);
    done = 1;
end:
    PyMem_Free(slot);
    PyMem_Free(group_of);
    PyMem_Free(groups);
    PyMem_Free(out);
    return done;
}

void sort_spans(Span *spans, size_t n, int sorted) {
    if (!sorted || !order_by_group(spans, n)) qsort(spans, n, sizeof *spans, sorted ? by_group : by_span);
}

Span span_of(const uint8_t *e, size_t len, size_t seq, unsigned group_len) {
    uint64_t head = 0, tail = 0;
    for (size_t j = 0; j < 8; j++) head = head << 8 | (j < len ? e[j] : 0);
    for (size_t j = 8; j < 16; j++) tail = tail << 8 | (j < len ? e[j] : 0);
    return (Span){head, tail, e, len, seq, group_len <= 16, group_len};
}

size_t index_key_of(uint8_t *out, const uint8_t *key, size_t nk, const uint8_t *value, size_t nv) {
    uint32_t seeds = 0;
    for (size_t j = 3; j < nk; j++) seeds += key[j];
    out[0] = key[0];
    out[1] = key[1];
    memcpy(out + 2, value, nv);
    uint8_t *c = out + 2 + nv;
    c[0] = (uint8_t)(seeds >> 24);
    c[1] = (uint8_t)(seeds >> 16);
    c[2] = (uint8_t)(seeds >> 8);
    c[3] = (uint8_t)seeds;
    c[4] = (uint8_t)(nk >> 8);
    c[5] = (uint8_t)nk;
    memcpy(c + 6, key, nk);
    return 2 + nv + 6 + nk;
}

size_t frame_count(const uint8_t *p, size_t size) {
    if (size < 4) return SIZE_MAX;
    size_t n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    return (size - 4) / 10 < n ? SIZE_MAX : n;
}

uint64_t frame_code(const uint8_t *codes, size_t i) {
    uint64_t v = 0;
    for (int b = 0; b < 8; b++) v |= (uint64_t)codes[8 * i + b] << (8 * b);
    return v;
}

/* index_entries(keys, values, max_key) -> (iterator of (index key, crc32c(index key)) in key
 * order, [i: left over]) for keys of tag 0 (key[2] == 0); the indices of the other keys are
 * returned for store.codec.by_value_key. Index keys longer than max_key are dropped (as a flush
 * drops them). */
PyObject *py_index_entries(PyObject *self, PyObject *args) {
    PyObject *keys, *values;
    Py_ssize_t max_key;
    if (!PyArg_ParseTuple(args, "OOn", &keys, &values, &max_key) || check_lists(keys, values) < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(keys);
    size_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        total += 2 + (size_t)PyBytes_GET_SIZE(PyList_GET_ITEM(values, i)) + 6 + (size_t)PyBytes_GET_SIZE(PyList_GET_ITEM(keys, i));
    IndexIter *it = PyObject_New(IndexIter, &IndexIterType);
    PyObject *left = PyList_New(0);
    if (!it || !left) {
        Py_XDECREF(left);
        if (it) PyObject_Free(it);
        return NULL;
    }
    it->count = it->next = 0;
    it->bytes = PyMem_Malloc(total ? total : 1);
    it->order = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *it->order);
    if (!it->bytes || !it->order) {
        PyErr_NoMemory();
        goto fail;
    }
    uint8_t *e = it->bytes;
    const uint8_t *previous = NULL; /* the last indexed key: whether the batch came sorted */
    Py_ssize_t previous_len = 0;
    int sorted = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i), *value = PyList_GET_ITEM(values, i);
        const uint8_t *k = (const uint8_t *)PyBytes_AS_STRING(key);
        Py_ssize_t nk = PyBytes_GET_SIZE(key), nv = PyBytes_GET_SIZE(value);
        if (nk < 3 || k[2] != 0 || nk >= 0xFFFF) {
            PyObject *at = PyLong_FromSsize_t(i);
            int rc = at ? PyList_Append(left, at) : -1;
            Py_XDECREF(at);
            if (rc < 0) goto fail;
            continue;
        }
        Py_ssize_t len = 2 + nv + 6 + nk;
        if (len > max_key) continue;
        index_key_of(e, k, (size_t)nk, (const uint8_t *)PyBytes_AS_STRING(value), (size_t)nv);
        if (sorted && previous && !bytes_less(previous, (size_t)previous_len, k, (size_t)nk)) sorted = 0;
        previous = k;
        previous_len = nk;
        it->order[it->count] = span_of(e, (size_t)len, it->count, (unsigned)(2 + nv + 6));
        it->count++;
        e += len;
    }
    sort_spans(it->order, it->count, sorted);
    PyObject *result = PyTuple_Pack(2, (PyObject *)it, left);
    Py_DECREF(it);
    Py_DECREF(left);
    return result;
fail:
    Py_DECREF(it);
    Py_DECREF(left);
    return NULL;
}

int store_iterators_ready(void) {
    return PyType_Ready(&SealIterType) < 0 || PyType_Ready(&IndexIterType) < 0 ? -1 : 0;
}
