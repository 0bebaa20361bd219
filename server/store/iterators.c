/* store/iterators.c — the lazy record iterator of the store's bulk writes (``_native.seal_positions``)
 * and the byte order of keys. Part of the module
 * ``ruma.server.store._native`` (store/native.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"

/* ---------------------------------------------------------------------------------------- */
/* lazy record iterators                                                                     */
/*
 * The builder returns an iterator for Cursor.putmulti rather than a list: putmulti takes one
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


/* Whether a comes strictly before b in byte order. */
int bytes_less(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
    int c = memcmp(a, b, na < nb ? na : nb);
    return c ? c < 0 : na < nb;
}

int store_iterators_ready(void) {
    return PyType_Ready(&SealIterType) < 0 ? -1 : 0;
}
