/* shared_type.c — the Python type SharedValues (``_core.SharedValues``): mapping a caller's buffer,
 * adds, claims, drains and counters. The table and its concurrency are shared.c. */
#include "shared_layout.h"
#include "body_sort.h"
#include "frame.h"
#include "table.h"

#include <pthread.h>

/* ---------------------------------------------------------------------------------------- */
/* the Python type                                                                           */

static int key_body(SharedValuesObject *t, PyObject *key, const uint8_t **body, size_t *len) {
    if (!PyBytes_Check(key)) {
        PyErr_Format(PyExc_TypeError, "keys are bytes, not %R", key);
        return -1;
    }
    const uint8_t *k = (const uint8_t *)PyBytes_AS_STRING(key);
    Py_ssize_t n = PyBytes_GET_SIZE(key);
    if (n < 3 || k[0] != t->code || k[1] != t->version) {
        PyErr_Format(PyExc_ValueError, "key %R is not of this table's ruleset (code %d, version %d)", key, t->code,
                     t->version);
        return -1;
    }
    *body = k + 2;
    *len = (size_t)n - 2;
    return 0;
}

int shared_buffer_take(Py_buffer *view, PyObject *buffer, const char *type) {
    if (view->buf) {
        PyErr_Format(PyExc_RuntimeError, "%s is initialised once", type);
        return -1;
    }
    if (PyObject_GetBuffer(buffer, view, PyBUF_WRITABLE) < 0) return -1;
    if ((uintptr_t)view->buf % 8) return shared_buffer_refuse(view, "the buffer is not 8-byte aligned");
    return 0;
}

int shared_buffer_refuse(Py_buffer *view, const char *bad) {
    PyBuffer_Release(view);
    view->buf = NULL;
    PyErr_SetString(PyExc_ValueError, bad);
    return -1;
}

static int SharedValues_init(SharedValuesObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"buffer", "code", "version", "slots", "packed", NULL};
    PyObject *buffer;
    int code, version;
    unsigned long long slots = 0, packed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oii|KK", names, &buffer, &code, &version, &slots, &packed))
        return -1;
    if (shared_buffer_take(&self->view, buffer, "SharedValues") < 0) return -1;
    size_t size = (size_t)self->view.len;
    SvHeader *h = self->view.buf;
    const char *bad = NULL;
    if (slots) { /* create: the buffer is fresh (zeroed) memory */
        if (slots & (slots - 1)) bad = "slots must be a power of two";
        else if (packed & (packed - 1) || packed > SV_PACKED_MAX) bad = "packed must be 0 or a power of two up to 2**30";
        else if (size < sizeof *h + slots * 8 + packed * 16 + 64) bad = "the buffer is too small for its slots";
        else {
            h->code = (uint32_t)code;
            h->version = (uint32_t)version;
            h->nslots = slots;
            h->npacked = packed;
            h->arena_words = (size - sizeof *h - slots * 8 - packed * 16) / 4;
            /* chunks: small enough that the processes' last, partly used ones waste little of
             * the arena (1/64 each), large enough to be reserved rarely; whole cache lines */
            uint64_t c = h->arena_words / SV_CHUNKS;
            h->chunk_words = (c < 128 ? 128 : (c > 4096 ? 4096 : c)) / 16 * 16;
            __atomic_store_n(&h->magic, SV_MAGIC, __ATOMIC_RELEASE);
        }
    } else if (size < sizeof *h || load(&h->magic) != SV_MAGIC) {
        bad = "the buffer holds no SharedValues table";
    } else if (h->code != (uint32_t)code || h->version != (uint32_t)version) {
        bad = "the table is of another ruleset";
    } else if (size < sizeof *h + h->nslots * 8 + h->npacked * 16 + h->arena_words * 4) {
        bad = "the buffer is shorter than its table";
    } else if (h->chunk_words < table_record_words(254) || h->chunk_words % 16) {
        bad = "the table's chunks are not of a size it makes";
    }
    if (bad) return shared_buffer_refuse(&self->view, bad);
    self->head = h;
    self->slots = (uint64_t *)(h + 1);
    self->packed = h->npacked ? (SvPacked *)(self->slots + h->nslots) : NULL;
    self->arena = (uint32_t *)((char *)(self->slots + h->nslots) + h->npacked * 16);
    self->mask = h->nslots - 1;
    self->pmask = h->npacked ? h->npacked - 1 : 0;
    self->plimit = h->npacked / 4 * 3;
    self->code = code;
    self->version = version;
    self->chunk_words = h->chunk_words;
    self->arena_end = h->arena_words < SV_ARENA_MAX ? h->arena_words : SV_ARENA_MAX; /* (handles of packed keys are above) */
    self->limit = h->nslots / 4 * 3;
    static int watching; /* (under the GIL) */
    if (!watching && pthread_atfork(NULL, NULL, shared_forked) == 0) watching = 1;
    self->forks = shared_forks;
    return 0;
}

static int ready(SharedValuesObject *t) {
    if (t->head) return 0;
    PyErr_SetString(PyExc_ValueError, "SharedValues is not initialised");
    return -1;
}

static void SharedValues_dealloc(SharedValuesObject *self) {
    if (self->head) shared_seal(self); /* (the memory is still held) */
    free(self->bodies);
    free(self->own_chunks);
    if (self->view.buf) PyBuffer_Release(&self->view);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *SharedValues_add(SharedValuesObject *self, PyObject *args) {
    PyObject *key;
    long value;
    if (ready(self) < 0 || !PyArg_ParseTuple(args, "Ol", &key, &value)) return NULL;
    const uint8_t *body;
    size_t len;
    if (key_body(self, key, &body, &len) < 0) return NULL;
    if (value < 0 || value >= INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "a nim value in 0..%d, not %ld", INT32_MAX - 1, value);
        return NULL;
    }
    int rc = shared_add(self, body, len, table_hash(body, len), (int32_t)value);
    return PyBool_FromLong(rc > 0);
}

static PyObject *SharedValues_get(SharedValuesObject *self, PyObject *key) {
    const uint8_t *body;
    size_t len;
    if (ready(self) < 0 || key_body(self, key, &body, &len) < 0) return NULL;
    int32_t v;
    if (!shared_find(self, body, len, table_hash(body, len), &v)) Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

/* claim_key(key) -> ("mine", handle) | ("known", nim value) | ("theirs", None) | ("full", None). */
static PyObject *SharedValues_claim_key(SharedValuesObject *self, PyObject *key) {
    const uint8_t *body;
    size_t len;
    if (ready(self) < 0 || key_body(self, key, &body, &len) < 0) return NULL;
    int32_t v;
    uint32_t at;
    switch (shared_claim(self, body, len, table_hash(body, len), &v, &at)) {
    case SV_MINE: return Py_BuildValue("(sk)", "mine", (unsigned long)at);
    case SV_KNOWN: return Py_BuildValue("(sl)", "known", (long)v);
    case SV_THEIRS: return Py_BuildValue("(sO)", "theirs", Py_None);
    default: return Py_BuildValue("(sO)", "full", Py_None);
    }
}

/* The record of a claim handle from claim_key, or -1 with ValueError (quoting it). */
static long long claim_handle(SharedValuesObject *self, PyObject *handle) {
    unsigned long long at = PyLong_Check(handle) ? PyLong_AsUnsignedLongLong(handle) : (unsigned long long)-1;
    if (at == (unsigned long long)-1 && PyErr_Occurred()) PyErr_Clear(); /* (negative, too large: none of ours) */
    int mine = at < self->arena_end || (self->packed && at >= SV_LOG && at - SV_LOG <= self->pmask);
    if (!mine || __atomic_load_n(shared_word(self, (uint32_t)at), __ATOMIC_ACQUIRE) != SV_CLAIM) {
        PyErr_Format(PyExc_ValueError, "%R is not the handle of a claim still open", handle);
        return -1;
    }
    return (long long)at;
}

static PyObject *SharedValues_settle(SharedValuesObject *self, PyObject *args) {
    PyObject *handle;
    long value;
    if (ready(self) < 0 || !PyArg_ParseTuple(args, "Ol", &handle, &value)) return NULL;
    if (value < 0 || value >= INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "a nim value in 0..%d, not %ld", INT32_MAX - 1, value);
        return NULL;
    }
    long long at = claim_handle(self, handle);
    if (at < 0) return NULL;
    shared_settle(self, (uint32_t)at, (int32_t)value);
    Py_RETURN_NONE;
}

static PyObject *SharedValues_abandon(SharedValuesObject *self, PyObject *handle) {
    if (ready(self) < 0) return NULL;
    long long at = claim_handle(self, handle);
    if (at < 0) return NULL;
    shared_abandon(self, (uint32_t)at);
    Py_RETURN_NONE;
}

/* The n values of found (a drain's, sorted) as one batch frame; NULL with an error. */
static PyObject *pack_found(SharedValuesObject *self, const Sortable *found, size_t n) {
    size_t bodies = 0;
    for (size_t k = 0; k < n; k++) bodies += found[k].len;
    PyObject *frame = n <= UINT32_MAX ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)frame_bytes(n, bodies + 2 * n)) : NULL;
    if (frame) {
        Packed f = frame_start((uint8_t *)PyBytes_AS_STRING(frame), n, self->code, self->version);
        for (size_t k = 0; k < n; k++) frame_put(&f, k, found[k].body, found[k].len, (int32_t)(found[k].rec - 1));
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_OverflowError, "too many values for one packed batch");
    }
    return frame;
}

/* drain(start) -> (entries, next): the values published from arena word start on, as (key,
 * value) pairs sorted by key, and where the next drain starts. */
static PyObject *SharedValues_drain(SharedValuesObject *self, PyObject *arg) {
    if (ready(self) < 0) return NULL;
    unsigned long long at = PyLong_AsUnsignedLongLong(arg);
    if (at == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    size_t n = 0;
    Sortable *found = shared_collect(self, &at, &n);
    if (!found && PyErr_Occurred()) return NULL;
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t k = 0; out && k < n; k++) {
        size_t len = found[k].len;
        PyObject *key = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len + 2);
        PyObject *pair = key ? Py_BuildValue("(Nk)", key, (unsigned long)(found[k].rec - 1)) : NULL;
        if (!pair) {
            Py_CLEAR(out);
            break;
        }
        uint8_t *kb = (uint8_t *)PyBytes_AS_STRING(key);
        kb[0] = (uint8_t)self->code;
        kb[1] = (uint8_t)self->version;
        memcpy(kb + 2, found[k].body, len);
        PyList_SET_ITEM(out, (Py_ssize_t)k, pair);
    }
    free(found);
    if (!out) return NULL;
    return Py_BuildValue("(NK)", out, at);
}

/* drain_packed(start) -> (frame, next): drain's values as one batch frame (frame.h: count, key
 * lengths, codes 2n, then the keys), which a store takes as it is (Store.insert_packed: the LMDB
 * store hands it to its writer process): a sweep's driver then builds no Python object per value. */
static PyObject *SharedValues_drain_packed(SharedValuesObject *self, PyObject *arg) {
    if (ready(self) < 0) return NULL;
    unsigned long long at = PyLong_AsUnsignedLongLong(arg);
    if (at == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    size_t n = 0;
    Sortable *found = shared_collect(self, &at, &n);
    if (!found && PyErr_Occurred()) return NULL;
    PyObject *frame = pack_found(self, found, n);
    free(found);
    if (!frame) return NULL;
    return Py_BuildValue("(NK)", frame, at);
}

/* drain_own() -> frame: the values this process published since its last drain_own, sorted, as
 * one batch frame (frame.h). A sweep's worker drains its own records so (shared_drain.c): then no
 * other process may drain the table. */
static PyObject *SharedValues_drain_own(SharedValuesObject *self, PyObject *Py_UNUSED(ignored)) {
    if (ready(self) < 0) return NULL;
    size_t n = 0;
    Sortable *found = shared_collect_own(self, &n);
    if (!found && PyErr_Occurred()) return NULL;
    PyObject *frame = pack_found(self, found, n);
    free(found);
    return frame;
}

/* The keys published: the header's count and this process's keys not yet in it (the other
 * processes' show once they add theirs: every SV_COUNT_BATCH keys, and when they seal). */
static uint64_t entries(SharedValuesObject *t) {
    own(t);
    return __atomic_load_n(&t->head->count, __ATOMIC_RELAXED) + t->pending +
           __atomic_load_n(&t->head->pcount, __ATOMIC_RELAXED) + t->ppending;
}

static PyObject *SharedValues_stats(SharedValuesObject *self, PyObject *Py_UNUSED(ignored)) {
    if (ready(self) < 0) return NULL;
    SvHeader *h = self->head;
    return Py_BuildValue("{sKsKsKsKsKsOsKsOsKsK}", "entries", (unsigned long long)entries(self),
                         "slots", (unsigned long long)h->nslots, "packed", (unsigned long long)h->npacked, "arena_words", (unsigned long long)h->arena_words,
                         "words_used", (unsigned long long)load(&h->next), "full",
                         __atomic_load_n(&h->full, __ATOMIC_RELAXED) ? Py_True : Py_False, "claimed",
                         (unsigned long long)load(&h->claimed), "cancelled", load(&h->cancelled) ? Py_True : Py_False,
                         "total", (unsigned long long)load(&h->total), "chunk_words", (unsigned long long)h->chunk_words);
}

/* claim(count) -> the first of the next count work items (a counter every process shares), or -1
 * once cancel() was called. */
static PyObject *SharedValues_claim(SharedValuesObject *self, PyObject *arg) {
    if (ready(self) < 0) return NULL;
    unsigned long long count = PyLong_AsUnsignedLongLong(arg);
    if (count == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    if (load(&self->head->cancelled)) return PyLong_FromLong(-1);
    return PyLong_FromUnsignedLongLong(__atomic_fetch_add(&self->head->claimed, count, __ATOMIC_RELAXED));
}

static PyObject *SharedValues_add_total(SharedValuesObject *self, PyObject *arg) {
    if (ready(self) < 0) return NULL;
    unsigned long long more = PyLong_AsUnsignedLongLong(arg);
    if (more == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    __atomic_fetch_add(&self->head->total, more, __ATOMIC_RELAXED);
    Py_RETURN_NONE;
}

static PyObject *SharedValues_cancel(SharedValuesObject *self, PyObject *Py_UNUSED(ignored)) {
    if (ready(self) < 0) return NULL;
    __atomic_store_n(&self->head->cancelled, 1, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

static Py_ssize_t SharedValues_len(SharedValuesObject *self) {
    if (ready(self) < 0) return -1;
    return (Py_ssize_t)entries(self);
}

static PyObject *SharedValues_seal(SharedValuesObject *self, PyObject *Py_UNUSED(ignored)) {
    if (ready(self) < 0) return NULL;
    shared_seal(self);
    Py_RETURN_NONE;
}

static PyMethodDef SharedValues_methods[] = {
    {"add", (PyCFunction)SharedValues_add, METH_VARARGS,
     "add(key, nim_value) -> bool: publish a value (False when the key was there or the table is full)."},
    {"get", (PyCFunction)SharedValues_get, METH_O, "get(key) -> the published nim value, or None."},
    {"claim_key", (PyCFunction)SharedValues_claim_key, METH_O,
     "claim_key(key) -> (\"mine\", handle) when this call claimed the key (settle or abandon it), (\"known\", "
     "nim value) when it is published, (\"theirs\", None) when another claim holds it, (\"full\", None)."},
    {"settle", (PyCFunction)SharedValues_settle, METH_VARARGS,
     "settle(handle, nim_value): publish the value of a key claimed with claim_key."},
    {"abandon", (PyCFunction)SharedValues_abandon, METH_O,
     "abandon(handle): give a claim up unvalued (the key may be claimed or added again)."},
    {"drain", (PyCFunction)SharedValues_drain, METH_O,
     "drain(start) -> (entries, next): the values published from arena word start on, and where to go on."},
    {"drain_packed", (PyCFunction)SharedValues_drain_packed, METH_O,
     "drain_packed(start) -> (frame, next): drain's values as one batch frame (frame.h)."},
    {"drain_own", (PyCFunction)SharedValues_drain_own, METH_NOARGS,
     "drain_own() -> frame: the values this process published since its last drain_own, as one batch frame "
     "(a sweep's worker drains its own so; then no process may drain the table)."},
    {"seal", (PyCFunction)SharedValues_seal, METH_NOARGS,
     "seal(): this process adds no more for now: the drain may pass its chunk of the arena, and its keys are "
     "counted (call it when done adding, before the last drain; the dealloc does; the next add takes a new chunk)."},
    {"stats", (PyCFunction)SharedValues_stats, METH_NOARGS,
     "entries (this process's and those other processes counted: every 64 adds and at their seal), slots, "
     "packed (slots of the packed part), arena_words, words_used, full, claimed, cancelled, total, chunk_words."},
    {"add_total", (PyCFunction)SharedValues_add_total, METH_O, "add_total(n): n more work items (stats' total)."},
    {"claim", (PyCFunction)SharedValues_claim, METH_O,
     "claim(count) -> the first of the next count work items shared by every process (-1 once cancelled)."},
    {"cancel", (PyCFunction)SharedValues_cancel, METH_NOARGS, "cancel(): claim() answers -1 from now on, everywhere."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods SharedValues_as_sequence = {.sq_length = (lenfunc)SharedValues_len};

PyTypeObject SharedValues_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.engine.native._core.SharedValues",
    .tp_basicsize = sizeof(SharedValuesObject),
    .tp_dealloc = (destructor)SharedValues_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SharedValues(buffer, code, version, slots=0, packed=0): nim values shared by processes (shared.c), "
              "with `packed` slots for the keys table_pack packs (0: every key in the general part); one "
              "object a process. len(): the keys published (other processes' counted every 64 adds and at their seal).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)SharedValues_init,
    .tp_methods = SharedValues_methods,
    .tp_as_sequence = &SharedValues_as_sequence,
};
