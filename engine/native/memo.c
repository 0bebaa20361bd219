/* memo.c — CompactMemo: an in-memory memo in the compiled engine's compact table.
 *
 * The same Memo as ruma.engine.memo.InMemoryMemo (lookup, insert, insert_many, lookup_many, len)
 * for about 30 bytes a position instead of ~110 (a dict entry, a bytes key and its hash). Keys are
 * stored whole (ruleset prefix included); a value is an int32: a nim value n >= 0 as n, a Game
 * as -(id + 1) (Game ids are per process, like the memo itself; every Game lives as long as the
 * kernel's table, so an id always names the same object). The compiled search reads and writes
 * a CompactMemo's table directly, with no Python call (search.c). `ruma eval` and `evaluate()`
 * without a memo use one when the compiled engine is active (ruma.engine.native.new_memo).
 */
#include "core.h"
#include "memo.h"
#include "kernel.h"

PyObject *game_id(PyObject *game) {
    static PyObject *name; /* "id", interned once: GetAttrString would make the string every call */
    if (!name && !(name = PyUnicode_InternFromString("id"))) return NULL;
    return PyObject_GetAttr(game, name);
}

static int encode(CompactMemoObject *m, PyObject *value, int32_t *out) {
    if (PyLong_CheckExact(value)) {
        long v = PyLong_AsLong(value);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < 0) {
            PyErr_Format(PyExc_TypeError, "a nim value is never negative: %R", value);
            return -1;
        }
        if (v > INT32_MAX) {
            PyErr_Format(PyExc_OverflowError, "nim value %R beyond the compact memo's range", value);
            return -1;
        }
        *out = (int32_t)v;
        return 0;
    }
    if ((PyObject *)Py_TYPE(value) != m->game_type) {
        PyErr_Format(PyExc_TypeError, "a memo value is a Game or a nim value (int), not %R", value);
        return -1;
    }
    PyObject *id = game_id(value);
    if (!id) return -1;
    long g = PyLong_AsLong(id);
    Py_DECREF(id);
    if (g == -1 && PyErr_Occurred()) return -1;
    if (g < 0 || g >= INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "Game id beyond the compact memo's range");
        return -1;
    }
    *out = (int32_t)(-(g + 1));
    return 0;
}

static PyObject *decode(CompactMemoObject *m, int32_t v) {
    (void)m;
    if (v >= 0) return PyLong_FromLong(v);
    return kernel_handle((int32_t)(-(int64_t)v - 1)); /* the game kernel's object of the id */
}

int compact_find(CompactMemoObject *m, const uint8_t *key, size_t len, int32_t *value) {
    uint32_t rec = table_find(&m->table, key, len, table_hash(key, len));
    if (rec == TABLE_NONE) return 0;
    *value = table_value(&m->table, rec);
    return 1;
}

int compact_add(CompactMemoObject *m, const uint8_t *key, size_t len, int32_t value) {
    uint32_t h = table_hash(key, len);
    if (table_find(&m->table, key, len, h) != TABLE_NONE) return 0; /* the first value is kept */
    if (table_add(&m->table, key, len, h, value) == TABLE_NONE) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int key_bytes(PyObject *key, const uint8_t **data, size_t *len) {
    if (!PyBytes_Check(key)) {
        PyErr_Format(PyExc_TypeError, "memo keys are bytes, not %R", key);
        return -1;
    }
    *data = (const uint8_t *)PyBytes_AS_STRING(key);
    *len = (size_t)PyBytes_GET_SIZE(key);
    return 0;
}

static PyObject *CompactMemo_lookup(CompactMemoObject *m, PyObject *key) {
    const uint8_t *data;
    size_t len;
    int32_t v;
    if (key_bytes(key, &data, &len) < 0) return NULL;
    if (!compact_find(m, data, len, &v)) Py_RETURN_NONE;
    return decode(m, v);
}

static PyObject *CompactMemo_lookup_many(CompactMemoObject *m, PyObject *keys) {
    PyObject *seq = PySequence_Fast(keys, "lookup_many takes a sequence of keys");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t k = 0; out && k < n; k++) {
        PyObject *found = CompactMemo_lookup(m, PySequence_Fast_GET_ITEM(seq, k));
        if (!found) Py_CLEAR(out);
        else PyList_SET_ITEM(out, k, found);
    }
    Py_DECREF(seq);
    return out;
}

static int insert_one(CompactMemoObject *m, PyObject *key, PyObject *value) {
    const uint8_t *data;
    size_t len;
    int32_t v;
    if (key_bytes(key, &data, &len) < 0 || encode(m, value, &v) < 0) return -1;
    return compact_add(m, data, len, v);
}

static PyObject *CompactMemo_insert(CompactMemoObject *m, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"key", "value", "explored", NULL};
    PyObject *key, *value;
    long long explored = 0; /* provenance is not kept in memory (InMemoryMemo keeps it in a dict) */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|L", kwlist, &key, &value, &explored)) return NULL;
    if (insert_one(m, key, value) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *CompactMemo_insert_many(CompactMemoObject *m, PyObject *items) {
    PyObject *it = PyObject_GetIter(items), *item;
    if (!it) return NULL;
    while ((item = PyIter_Next(it))) {
        PyObject *key, *value;
        int rc = -1;
        if (PyTuple_CheckExact(item) && PyTuple_GET_SIZE(item) == 2) /* (the usual case, without parsing) */
            rc = insert_one(m, PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1));
        else if (PyArg_ParseTuple(item, "OO;insert_many takes (key, value) pairs", &key, &value))
            rc = insert_one(m, key, value);
        Py_DECREF(item);
        if (rc < 0) {
            Py_DECREF(it);
            return NULL;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *CompactMemo_items(CompactMemoObject *m, PyObject *unused) {
    (void)unused;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (size_t rec = 0; rec < m->table.arena_len;) { /* records lie back to back in the arena */
        size_t len;
        const uint8_t *body = table_body(&m->table, (uint32_t)rec, &len);
        PyObject *key = PyBytes_FromStringAndSize((const char *)body, (Py_ssize_t)len);
        PyObject *value = key ? decode(m, table_value(&m->table, (uint32_t)rec)) : NULL;
        PyObject *pair = value ? PyTuple_Pack(2, key, value) : NULL;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (!pair || PyList_Append(out, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(pair);
        rec += table_record_words(len);
    }
    return out;
}

static PyObject *CompactMemo_nbytes(CompactMemoObject *m, void *unused) {
    (void)unused;
    return PyLong_FromSize_t(table_bytes(&m->table));
}

static Py_ssize_t CompactMemo_len(CompactMemoObject *m) { return (Py_ssize_t)m->table.count; }

static int CompactMemo_init(CompactMemoObject *m, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"game_type", NULL};
    PyObject *game_type;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!", kwlist, &PyType_Type, &game_type)) return -1;
    if (m->game_type) {
        PyErr_SetString(PyExc_RuntimeError, "CompactMemo is already initialised");
        return -1;
    }
    if (table_init(&m->table) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    m->game_type = Py_NewRef(game_type);
    return 0;
}

static int CompactMemo_traverse(CompactMemoObject *m, visitproc visit, void *arg) {
    Py_VISIT(m->game_type);
    return 0;
}

static int CompactMemo_clear(CompactMemoObject *m) {
    Py_CLEAR(m->game_type);
    return 0;
}

static void CompactMemo_dealloc(CompactMemoObject *m) {
    PyObject_GC_UnTrack(m);
    CompactMemo_clear(m);
    table_free(&m->table);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyMethodDef CompactMemo_methods[] = {
    {"lookup", (PyCFunction)CompactMemo_lookup, METH_O, "lookup(key) -> the stored value, or None."},
    {"lookup_many", (PyCFunction)CompactMemo_lookup_many, METH_O, "lookup_many(keys) -> [value or None, ...]."},
    {"insert", (PyCFunction)(void (*)(void))CompactMemo_insert, METH_VARARGS | METH_KEYWORDS,
     "insert(key, value, explored=0): store value under key (the first value stored is kept)."},
    {"insert_many", (PyCFunction)CompactMemo_insert_many, METH_O, "insert_many(items): insert each (key, value)."},
    {"items", (PyCFunction)CompactMemo_items, METH_NOARGS, "items() -> every (key, value), in insertion order."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef CompactMemo_getset[] = {
    {"nbytes", (getter)CompactMemo_nbytes, NULL, "bytes held by the table (index and records)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods CompactMemo_as_sequence = {.sq_length = (lenfunc)CompactMemo_len};

PyTypeObject CompactMemo_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.engine.native._core.CompactMemo",
    .tp_basicsize = sizeof(CompactMemoObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "CompactMemo(game_type): an in-memory Memo in a compact table (see memo.c).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CompactMemo_init,
    .tp_dealloc = (destructor)CompactMemo_dealloc,
    .tp_traverse = (traverseproc)CompactMemo_traverse,
    .tp_clear = (inquiry)CompactMemo_clear,
    .tp_methods = CompactMemo_methods,
    .tp_getset = CompactMemo_getset,
    .tp_as_sequence = &CompactMemo_as_sequence,
};
