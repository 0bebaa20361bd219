/* store_native.c — ruma.server._store_native: the per-entry byte work of the store's bulk writes.
 *
 * The pure-Python reference is ruma.server.store_bulk (its fallback path) and store_codec: a bulk
 * write of N values builds N sealed ``positions`` records and N ``by_value`` index keys, each with
 * a CRC32C. In Python that is ≈ 3 µs an entry (slicing, struct packing, one google_crc32c call and
 * a bytes concatenation per record), more than the compiled search spends valuing the position;
 * here it is one C loop per batch. The byte layouts are store_codec's (its module docstring):
 *
 *   positions record:  entry + crc32c(key + entry)                        (4 bytes, little-endian)
 *   by_value key:      key[:2] + value + seeds(4, big-endian) + len(key)(2, big-endian) + key,
 *                      where seeds = sum(key[3:]) — the common case of store_codec.complexity,
 *                      a key whose tag byte key[2] is 0 (one byte a pot); other keys are left to
 *                      store_codec.by_value_key (their indices are returned)
 *   by_value record:   crc32c(index key)                                  (an empty payload, sealed)
 *
 * CRC32C (Castagnoli, reflected, init and final xor 0xFFFFFFFF: what google_crc32c.value returns)
 * uses the SSE4.2 crc32 instruction when the CPU has it, else a byte-wise table.
 * Tested byte for byte against the Python path in tests/test_store_bulk.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
static uint32_t crc32c_two(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
    uint32_t crc = 0xFFFFFFFFu;
#if HAVE_HW_CRC
    if (use_hw) return ~crc_hw(crc_hw(crc, a, na), b, nb);
#endif
    return ~crc_soft(crc_soft(crc, a, na), b, nb);
}

static void put_le32(uint8_t *out, uint32_t v) {
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

/* Both arguments must be lists of bytes of one length (the caller's batch). */
static int check_lists(PyObject *a, PyObject *b) {
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

/* seal_positions(keys, entries) -> [(key, entry + crc32c(key + entry))] */
static PyObject *py_seal_positions(PyObject *self, PyObject *args) {
    PyObject *keys, *entries;
    if (!PyArg_ParseTuple(args, "OO", &keys, &entries) || check_lists(keys, entries) < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(keys);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i), *entry = PyList_GET_ITEM(entries, i);
        const uint8_t *k = (const uint8_t *)PyBytes_AS_STRING(key), *e = (const uint8_t *)PyBytes_AS_STRING(entry);
        Py_ssize_t nk = PyBytes_GET_SIZE(key), ne = PyBytes_GET_SIZE(entry);
        PyObject *record = PyBytes_FromStringAndSize(NULL, ne + 4);
        if (!record) {
            Py_DECREF(out);
            return NULL;
        }
        uint8_t *r = (uint8_t *)PyBytes_AS_STRING(record);
        memcpy(r, e, (size_t)ne);
        put_le32(r + ne, crc32c_two(k, (size_t)nk, e, (size_t)ne));
        PyObject *pair = PyTuple_New(2);
        if (!pair) {
            Py_DECREF(record);
            Py_DECREF(out);
            return NULL;
        }
        Py_INCREF(key);
        PyTuple_SET_ITEM(pair, 0, key);
        PyTuple_SET_ITEM(pair, 1, record);
        PyList_SET_ITEM(out, i, pair);
    }
    return out;
}

static int by_bytes(const void *a, const void *b) {
    PyObject *x = *(PyObject *const *)a, *y = *(PyObject *const *)b;
    Py_ssize_t nx = PyBytes_GET_SIZE(x), ny = PyBytes_GET_SIZE(y);
    int c = memcmp(PyBytes_AS_STRING(x), PyBytes_AS_STRING(y), (size_t)(nx < ny ? nx : ny));
    return c ? c : (nx > ny) - (nx < ny);
}

/* index_entries(keys, values, max_key) -> ([(index key, crc32c(index key))] sorted, [i: left over])
 * for keys of tag 0 (key[2] == 0); the indices of the other keys (longer than 2 bytes or not) are
 * returned for store_codec.by_value_key. Index keys longer than max_key are dropped (as a flush
 * drops them). */
static PyObject *py_index_entries(PyObject *self, PyObject *args) {
    PyObject *keys, *values;
    Py_ssize_t max_key;
    if (!PyArg_ParseTuple(args, "OOn", &keys, &values, &max_key) || check_lists(keys, values) < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(keys), made = 0;
    PyObject **index = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *index);
    PyObject *left = PyList_New(0);
    if (!index || !left) {
        PyMem_Free(index);
        Py_XDECREF(left);
        return PyErr_NoMemory();
    }
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
        Py_ssize_t total = 2 + nv + 6 + nk;
        if (total > max_key) continue;
        uint32_t seeds = 0;
        for (Py_ssize_t j = 3; j < nk; j++) seeds += k[j];
        PyObject *entry = PyBytes_FromStringAndSize(NULL, total);
        if (!entry) goto fail;
        uint8_t *e = (uint8_t *)PyBytes_AS_STRING(entry);
        e[0] = k[0];
        e[1] = k[1];
        memcpy(e + 2, PyBytes_AS_STRING(value), (size_t)nv);
        uint8_t *c = e + 2 + nv;
        c[0] = (uint8_t)(seeds >> 24);
        c[1] = (uint8_t)(seeds >> 16);
        c[2] = (uint8_t)(seeds >> 8);
        c[3] = (uint8_t)seeds;
        c[4] = (uint8_t)(nk >> 8);
        c[5] = (uint8_t)nk;
        memcpy(c + 6, k, (size_t)nk);
        index[made++] = entry;
    }
    qsort(index, (size_t)made, sizeof *index, by_bytes);
    PyObject *pairs = PyList_New(made);
    if (!pairs) goto fail;
    for (Py_ssize_t i = 0; i < made; i++) {
        PyObject *entry = index[i];
        PyObject *record = PyBytes_FromStringAndSize(NULL, 4);
        PyObject *pair = record ? PyTuple_New(2) : NULL;
        if (!pair) {
            Py_XDECREF(record);
            for (Py_ssize_t j = i; j < made; j++) Py_DECREF(index[j]);
            made = 0;
            Py_DECREF(pairs);
            goto fail;
        }
        put_le32((uint8_t *)PyBytes_AS_STRING(record),
                 crc32c_two((const uint8_t *)PyBytes_AS_STRING(entry), (size_t)PyBytes_GET_SIZE(entry), NULL, 0));
        PyTuple_SET_ITEM(pair, 0, entry); /* (the reference moves from index to the pair) */
        PyTuple_SET_ITEM(pair, 1, record);
        PyList_SET_ITEM(pairs, i, pair);
    }
    PyMem_Free(index);
    PyObject *result = PyTuple_Pack(2, pairs, left);
    Py_DECREF(pairs);
    Py_DECREF(left);
    return result;
fail:
    for (Py_ssize_t j = 0; j < made; j++) Py_DECREF(index[j]);
    PyMem_Free(index);
    Py_DECREF(left);
    return NULL;
}

static PyMethodDef methods[] = {
    {"crc32c", py_crc32c, METH_O, "crc32c(data) -> int: CRC32C of a bytes-like object (as google_crc32c.value)."},
    {"seal_positions", py_seal_positions, METH_VARARGS,
     "seal_positions(keys, entries) -> list of (key, sealed positions record)."},
    {"index_entries", py_index_entries, METH_VARARGS,
     "index_entries(keys, encoded values, max_key) -> (sorted list of (by_value key, its seal), indices left over)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_store_native", "Per-entry byte work of the LMDB store's bulk writes (see store_native.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__store_native(void) {
    crc_init_table();
#if HAVE_HW_CRC
    __builtin_cpu_init();
    use_hw = __builtin_cpu_supports("sse4.2");
#endif
    return PyModule_Create(&module);
}
