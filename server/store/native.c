/* store/native.c — ruma.server.store._native: the per-entry byte work of the store's bulk writes.
 *
 * The pure-Python reference is ruma.server.store.bulk (its fallback path) and store.codec: a bulk
 * write of N values builds N sealed ``positions`` records, each with a CRC32C. In Python that is ≈ 3 µs an entry (slicing, struct packing, one google_crc32c call and
 * a bytes concatenation per record), more than the compiled search spends valuing the position;
 * here it is one C loop per batch. The byte layouts are store.codec's (its module docstring):
 *
 *   positions record:  entry + crc32c(key + entry)                        (4 bytes, little-endian)
 *
 * CRC32C (Castagnoli, reflected, init and final xor 0xFFFFFFFF: what google_crc32c.value returns)
 * uses the SSE4.2 crc32 instruction when the CPU has it, else a byte-wise table.
 *
 * Also here: a batch split into keys and values in one pass (split_batch), the frames of the
 * store's writer process (pack_batch / unpack_batch: the engine's batch frame, frame.h), and the two per-game
 * helpers of game interning (seal, encode_options), and the writer process's transactions in C
 * (Writer: store/lmdb.c, on the LMDB in third_party/lmdb), and the copy step of a store's dense rewrite
 * (compact_copy: store/compact.c, tested against store.rewrite's Python copy in
 * tests/store/test_store_compact_native.py).
 * Tested byte for byte against the Python path in tests/store/test_store_bulk.py and
 * tests/store/test_store_writer.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "interning.h"
#include "records.h"

int store_lmdb_add(PyObject *module); /* store/lmdb.c: Writer, WriteError */
PyObject *store_compact_copy(PyObject *self, PyObject *args); /* store/compact.c */
PyObject *store_merge_frames(PyObject *self, PyObject *arg);  /* store/merge.c */
/* store/iterators.c */
PyObject *py_seal_positions(PyObject *self, PyObject *args);
int store_iterators_ready(void);

/* ---------------------------------------------------------------------------------------- */
/* CRC32C                                                                                    */

static uint32_t crc_table[256];

static void crc_init_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc_soft(uint32_t crc, const uint8_t *p, size_t n) {
    while (n--) crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define HAVE_HW_CRC 1
/* Eight bytes an instruction; compiled for SSE4.2 only here, called only when the CPU has it. */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8); /* (unaligned load without undefined behaviour) */
        c = _mm_crc32_u64(c, word);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--) c32 = _mm_crc32_u8(c32, *p++);
    return c32;
}
#else
#define HAVE_HW_CRC 0
#endif

static int use_hw = 0;

/* The CRC32C of two pieces one after the other (a record's key, then its payload). */
uint32_t crc32c_two(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
    uint32_t crc = 0xFFFFFFFFu;
#if HAVE_HW_CRC
    if (use_hw) return ~crc_hw(crc_hw(crc, a, na), b, nb);
#endif
    return ~crc_soft(crc_soft(crc, a, na), b, nb);
}

void put_le32(uint8_t *out, uint32_t v) {
    out[0] = (uint8_t)v;
    out[1] = (uint8_t)(v >> 8);
    out[2] = (uint8_t)(v >> 16);
    out[3] = (uint8_t)(v >> 24);
}

/* ---------------------------------------------------------------------------------------- */
/* functions                                                                                 */

static PyObject *py_crc32c(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    uint32_t crc = crc32c_two(view.buf, (size_t)view.len, NULL, 0);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

static PyObject *py_sha256(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    uint8_t digest[32];
    store_sha256(view.buf, (size_t)view.len, digest);
    PyBuffer_Release(&view);
    return PyBytes_FromStringAndSize((const char *)digest, sizeof digest);
}

/* Both arguments must be lists of bytes of one length (the caller's batch). */
int check_lists(PyObject *a, PyObject *b) {
    if (!PyList_CheckExact(a) || !PyList_CheckExact(b) || PyList_GET_SIZE(a) != PyList_GET_SIZE(b)) {
        PyErr_SetString(PyExc_TypeError, "expected two lists of bytes of the same length");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(a); i++) {
        if (!PyBytes_CheckExact(PyList_GET_ITEM(a, i)) || !PyBytes_CheckExact(PyList_GET_ITEM(b, i))) {
            PyErr_SetString(PyExc_TypeError, "expected two lists of bytes of the same length");
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* batches                                                                                   */

/* split_batch(items) -> (keys, values, sorted, shortest, longest), or None: the keys and values of
 * a list of (bytes, value) tuples in one pass (insert_many's first step; in Python, sorted() plus
 * two maps plus min/max of the lengths cost more than writing the batch to a pipe), whether the
 * keys are in strictly increasing order (the compiled search hands them over sorted), and the
 * shortest and longest key's length. None when an item is not a (bytes, value) tuple (the
 * caller's general path then takes the batch). */
static PyObject *py_split_batch(PyObject *self, PyObject *items) {
    if (!PyList_CheckExact(items)) {
        PyErr_SetString(PyExc_TypeError, "split_batch takes a list of (bytes, value) pairs");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(items), shortest = PY_SSIZE_T_MAX, longest = 0;
    PyObject *keys = PyList_New(n), *values = PyList_New(n);
    if (!keys || !values) goto fail;
    int in_order = 1;
    PyObject *last = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyBytes_CheckExact(PyTuple_GET_ITEM(pair, 0))) {
            Py_DECREF(keys); /* not all (bytes, value) tuples: the caller's general path takes it */
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
        PyObject *key = PyTuple_GET_ITEM(pair, 0), *value = PyTuple_GET_ITEM(pair, 1);
        Py_ssize_t len = PyBytes_GET_SIZE(key);
        if (len < shortest) shortest = len;
        if (len > longest) longest = len;
        if (last && in_order) {
            Py_ssize_t nl = PyBytes_GET_SIZE(last);
            int c = memcmp(PyBytes_AS_STRING(last), PyBytes_AS_STRING(key), (size_t)(nl < len ? nl : len));
            if (c > 0 || (c == 0 && nl >= len)) in_order = 0;
        }
        last = key;
        PyList_SET_ITEM(keys, i, Py_NewRef(key));
        PyList_SET_ITEM(values, i, Py_NewRef(value));
    }
    return Py_BuildValue("(NNNnn)", keys, values, PyBool_FromLong(in_order), n ? shortest : 0, longest);
fail:
    Py_XDECREF(keys);
    Py_XDECREF(values);
    return NULL;
}

/* pack_batch(keys, values, codes) -> bytes, or None: a batch frame for the store's writer process
 * (engine/native/frame.h: count, key lengths, value codes, then the keys; ruma.engine.frame.pack
 * in Python). Each value goes as its code in the store (store.codec.encode_value before the
 * varint): a nim value n as 2n, any other object as codes[id(value)] (the parent's store id s of
 * a Game, as 2s + 1). None when a value is neither a nim value below 2**63 nor in codes (a bool, a
 * negative number, an unknown object: the caller's checks then raise). Keys must be bytes
 * shorter than 65,536. */
static PyObject *py_pack_batch(PyObject *self, PyObject *args) {
    PyObject *keys, *values, *codes;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyList_Type, &keys, &PyList_Type, &values, &codes)) return NULL;
    if (codes != Py_None && !PyDict_Check(codes)) {
        PyErr_SetString(PyExc_TypeError, "pack_batch: codes must be a dict or None");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(keys);
    if (PyList_GET_SIZE(values) != n || n > 0xFFFFFFFFLL) {
        PyErr_SetString(PyExc_ValueError, "pack_batch takes as many values as keys");
        return NULL;
    }
    size_t total = frame_head((size_t)n);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        if (!PyBytes_CheckExact(key) || PyBytes_GET_SIZE(key) > 0xFFFF) {
            PyErr_SetString(PyExc_ValueError, "pack_batch takes keys of bytes shorter than 65,536");
            return NULL;
        }
        total += (size_t)PyBytes_GET_SIZE(key);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (!out) return NULL;
    Packed f = frame_start((uint8_t *)PyBytes_AS_STRING(out), (size_t)n, 0, 0);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i), *value = PyList_GET_ITEM(values, i);
        size_t len = (size_t)PyBytes_GET_SIZE(key);
        unsigned long long v;
        if (PyLong_CheckExact(value)) {
            v = PyLong_AsUnsignedLongLong(value);
            if (v >= (1ULL << 63)) { /* (also (unsigned long long)-1: negative or too big, error set) */
                PyErr_Clear();
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
            v <<= 1;
        } else {
            PyObject *ident = codes == Py_None ? NULL : PyLong_FromVoidPtr(value);
            PyObject *code = ident ? PyDict_GetItemWithError(codes, ident) : NULL; /* borrowed */
            Py_XDECREF(ident);
            v = code && PyLong_CheckExact(code) ? PyLong_AsUnsignedLongLong(code) : (unsigned long long)-1;
            if (v == (unsigned long long)-1) {
                PyErr_Clear();
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
        }
        frame_put_key(&f, (size_t)i, (const uint8_t *)PyBytes_AS_STRING(key), len, v);
    }
    return out;
}

/* unpack_batch(payload) -> (keys, values): pack_batch's lists again (ValueError if malformed). */
static PyObject *py_unpack_batch(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const uint8_t *p = view.buf;
    size_t size = (size_t)view.len;
    PyObject *keys = NULL, *values = NULL;
    size_t n = frame_count(p, size);
    if (n == SIZE_MAX) goto bad;
    keys = PyList_New((Py_ssize_t)n);
    values = PyList_New((Py_ssize_t)n);
    if (!keys || !values) goto fail;
    const uint8_t *lens = frame_lengths(p), *vals = frame_codes(p, n);
    size_t at = frame_head(n);
    for (size_t i = 0; i < n; i++) {
        size_t len = frame_length(lens, i);
        if (at + len > size) goto bad;
        PyObject *key = PyBytes_FromStringAndSize((const char *)p + at, (Py_ssize_t)len);
        PyObject *value = key ? PyLong_FromUnsignedLongLong(frame_code(vals, i)) : NULL;
        if (!value) {
            Py_XDECREF(key);
            goto fail;
        }
        PyList_SET_ITEM(keys, (Py_ssize_t)i, key);
        PyList_SET_ITEM(values, (Py_ssize_t)i, value);
        at += len;
    }
    if (at != size) goto bad;
    PyBuffer_Release(&view);
    return Py_BuildValue("(NN)", keys, values);
bad:
    PyErr_SetString(PyExc_ValueError, "a malformed batch");
fail:
    PyBuffer_Release(&view);
    Py_XDECREF(keys);
    Py_XDECREF(values);
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* store.codec's per-record helpers (the games a partizan batch interns: two sealed records each) */

/* seal(key, payload) -> payload + crc32c(key + payload) (store.codec.seal). */
static PyObject *py_seal(PyObject *self, PyObject *args) {
    Py_buffer key, payload;
    if (!PyArg_ParseTuple(args, "y*y*", &key, &payload)) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, payload.len + 4);
    if (out) {
        uint8_t *r = (uint8_t *)PyBytes_AS_STRING(out);
        memcpy(r, payload.buf, (size_t)payload.len);
        put_le32(r + payload.len, crc32c_two(key.buf, (size_t)key.len, payload.buf, (size_t)payload.len));
    }
    PyBuffer_Release(&key);
    PyBuffer_Release(&payload);
    return out;
}

static int by_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

size_t put_varint(uint8_t *out, uint64_t n) {
    size_t k = 0;
    while (n >= 0x80) {
        out[k++] = (uint8_t)(n & 0x7F) | 0x80;
        n >>= 7;
    }
    out[k++] = (uint8_t)n;
    return k;
}

/* Read a sequence of non-negative ints (< 2**64) into a new sorted array; NULL on error. */
static uint64_t *sorted_ids(PyObject *seq, Py_ssize_t *n) {
    PyObject *fast = PySequence_Fast(seq, "encode_options takes sequences of store ids");
    if (!fast) return NULL;
    *n = PySequence_Fast_GET_SIZE(fast);
    uint64_t *ids = PyMem_Malloc((size_t)(*n ? *n : 1) * sizeof *ids);
    if (!ids) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        ids[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (ids[i] == (uint64_t)-1 && PyErr_Occurred()) {
            PyMem_Free(ids);
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    qsort(ids, (size_t)*n, sizeof *ids, by_u64);
    return ids;
}

/* encode_options(left, right) -> bytes (store.codec.encode_options: varints of both counts, then
 * of each side's ids in increasing order). */
static PyObject *py_encode_options(PyObject *self, PyObject *args) {
    PyObject *left, *right;
    if (!PyArg_ParseTuple(args, "OO", &left, &right)) return NULL;
    Py_ssize_t nl, nr;
    uint64_t *l = sorted_ids(left, &nl);
    if (!l) return NULL;
    uint64_t *r = sorted_ids(right, &nr);
    if (!r) {
        PyMem_Free(l);
        return NULL;
    }
    uint8_t *buf = PyMem_Malloc(10 * (size_t)(nl + nr + 2));
    PyObject *out = NULL;
    if (buf) {
        size_t at = put_varint(buf, (uint64_t)nl);
        at += put_varint(buf + at, (uint64_t)nr);
        for (Py_ssize_t i = 0; i < nl; i++) at += put_varint(buf + at, l[i]);
        for (Py_ssize_t i = 0; i < nr; i++) at += put_varint(buf + at, r[i]);
        out = PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)at);
        PyMem_Free(buf);
    } else {
        PyErr_NoMemory();
    }
    PyMem_Free(l);
    PyMem_Free(r);
    return out;
}

/* One varint of p[*at..end) into *out (at most 9 bytes: < 2**63); 0 when truncated or too long. */
static int get_varint(const uint8_t *p, size_t end, size_t *at, uint64_t *out) {
    uint64_t n = 0;
    for (unsigned shift = 0; *at < end && shift < 63; shift += 7) {
        uint8_t byte = p[(*at)++];
        n |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *out = n;
            return 1;
        }
    }
    return 0;
}

/* decode_nim_records(keys, records) -> list: for each key and its positions record as read from
 * the database (bytes or None), None for None, the nim value (an int) for a sealed record whose
 * checksum holds and whose payload is a nim value and an explored count (store.games.decode's
 * common case), else the record itself — a game, or anything odd (a bad checksum, a record that
 * does not decode), for the Python path to decode or to raise CorruptRecordError on. */
static PyObject *py_decode_nim_records(PyObject *self, PyObject *args) {
    PyObject *keys, *records;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &keys, &PyList_Type, &records)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(records);
    if (PyList_GET_SIZE(keys) != n) {
        PyErr_SetString(PyExc_ValueError, "decode_nim_records takes as many keys as records");
        return NULL;
    }
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i), *record = PyList_GET_ITEM(records, i), *item = record;
        if (record != Py_None && PyBytes_Check(record) && PyBytes_Check(key) && PyBytes_GET_SIZE(record) > 4) {
            const uint8_t *r = (const uint8_t *)PyBytes_AS_STRING(record);
            size_t len = (size_t)PyBytes_GET_SIZE(record) - 4, at = 0;
            uint64_t code, explored;
            uint32_t crc = crc32c_two((const uint8_t *)PyBytes_AS_STRING(key), (size_t)PyBytes_GET_SIZE(key), r, len);
            uint32_t sealed = (uint32_t)r[len] | (uint32_t)r[len + 1] << 8 | (uint32_t)r[len + 2] << 16 | (uint32_t)r[len + 3] << 24;
            if (crc == sealed && get_varint(r, len, &at, &code) && !(code & 1) && get_varint(r, len, &at, &explored) && at == len) {
                item = PyLong_FromUnsignedLongLong(code >> 1);
                if (!item) {
                    Py_DECREF(out);
                    return NULL;
                }
                PyList_SET_ITEM(out, i, item);
                continue;
            }
        }
        PyList_SET_ITEM(out, i, Py_NewRef(item));
    }
    return out;
}

static PyMethodDef methods[] = {
    {"decode_nim_records", py_decode_nim_records, METH_VARARGS,
     "decode_nim_records(keys, records) -> [None, nim value, or the record left to Python, ...]."},
    {"seal", py_seal, METH_VARARGS, "seal(key, payload) -> payload + its CRC32C seal (store.codec.seal)."},
    {"encode_options", py_encode_options, METH_VARARGS,
     "encode_options(left ids, right ids) -> bytes (store.codec.encode_options)."},
    {"split_batch", py_split_batch, METH_O,
     "split_batch(items) -> (keys, values, in strictly increasing key order, shortest key, longest key), or None."},
    {"pack_batch", py_pack_batch, METH_VARARGS, "pack_batch(keys, values, codes) -> bytes (a batch frame: engine/native/frame.h), or None (see store/native.c)."},
    {"unpack_batch", py_unpack_batch, METH_O, "unpack_batch(bytes) -> (keys, value codes) (store.writer.unpack)."},
    {"crc32c", py_crc32c, METH_O, "crc32c(data) -> int: CRC32C of a bytes-like object (as google_crc32c.value)."},
    {"sha256", py_sha256, METH_O,
     "sha256(data) -> bytes: the SHA-256 digest the writer process keys long game index records with (store/interning.c)."},
    {"compact_copy", store_compact_copy, METH_VARARGS,
     "compact_copy(source, target, drop, schema, chunk, progress, merge=None) -> {table: records}: store.rewrite._copy in C "
     "(store/compact.c)."},
    {"merge_frames", store_merge_frames, METH_O,
     "merge_frames(frames) -> frame: batch frames, keys sorted, none in two, as one (store/merge.c)."},
    {"seal_positions", py_seal_positions, METH_VARARGS,
     "seal_positions(keys, entries) -> iterator of (key, sealed positions record)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_native",
    .m_doc = "Per-entry byte work of the LMDB store's bulk writes (see store/native.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    crc_init_table();
#if HAVE_HW_CRC
    __builtin_cpu_init();
    use_hw = __builtin_cpu_supports("sse4.2");
#endif
    if (store_iterators_ready() < 0) return NULL;
    PyObject *made = PyModule_Create(&module);
    if (made && store_lmdb_add(made) < 0) Py_CLEAR(made);
    return made;
}
