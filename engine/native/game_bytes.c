/* game_bytes.c — canonical forms as bytes between machines: ``_core.kernel.pack_nodes`` / ``unpack_nodes``.
 *
 * The compiled twin of ruma.engine.cgt.game_bytes (the reference, which documents the format: the magic
 * "RGN1", a varint count of nodes, each node's Left and Right counts and its options as varint
 * distances back to earlier nodes, then the CRC-32 of all that, little-endian). Checked on
 * arrival: the magic, the checksum, every varint and distance, no byte left over, and every node
 * in canonical form (its canonical form, computed here, has exactly its options) — so a damaged or
 * forged packet is refused and never makes a node the arena would hold twice.
 */
#include "gkernel.h"
#include "kernel.h"

static uint32_t crc_table[256];

static uint32_t crc32_ieee(const uint8_t *p, size_t n) {
    if (!crc_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

typedef struct {
    uint8_t *v;
    size_t n, cap;
} Bytes;

#define GROW_STACK(v, cap, need) ids_grow(&(v), &(cap), (need))

static int put(Bytes *b, uint64_t x) { /* a varint */
    if (b->n + 10 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        uint8_t *v = realloc(b->v, cap);
        if (!v) {
            PyErr_NoMemory();
            return -1;
        }
        b->v = v;
        b->cap = cap;
    }
    do {
        uint8_t byte = x & 0x7F;
        x >>= 7;
        b->v[b->n++] = byte | (x ? 0x80 : 0);
    } while (x);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* packing                                                                                   */

typedef struct {
    uint64_t *slots; /* (id + 1) << 32 | node index; 0 empty */
    size_t mask;
} IndexMap;

static int64_t index_get(const IndexMap *m, int32_t id) {
    uint64_t key = (uint64_t)id + 1;
    for (size_t i = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 20) & m->mask;; i = (i + 1) & m->mask) {
        if (!m->slots[i]) return -1;
        if (m->slots[i] >> 32 == key) return (int64_t)(uint32_t)m->slots[i];
    }
}

static void index_put(IndexMap *m, int32_t id, uint32_t at) {
    uint64_t key = (uint64_t)id + 1;
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 20) & m->mask;
    while (m->slots[i]) i = (i + 1) & m->mask;
    m->slots[i] = key << 32 | at;
}

/* pack_nodes(ids) -> (bytes, the node index of each id) */
PyObject *wire_pack(PyObject *ids_arg) {
    PyObject *seq = PySequence_Fast(ids_arg, "pack_nodes takes a sequence of game ids");
    if (!seq) return NULL;
    Py_ssize_t nroots = PySequence_Fast_GET_SIZE(seq);
    int32_t *roots = malloc(((size_t)nroots + 1) * sizeof *roots), *stack = NULL;
    size_t depth = 0, stack_cap = 0, count = 0, size = 1024;
    Bytes body = {0};
    IndexMap index = {0};
    PyObject *result = NULL;
    for (Py_ssize_t k = 0; roots && k < nroots; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v >= kernel_count()) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_IndexError, "no game with id %ld", v);
            goto done;
        }
        roots[k] = (int32_t)v;
    }
    while (size < 4 * (size_t)nroots) size *= 2;
    index.slots = calloc(size, sizeof *index.slots);
    index.mask = size - 1;
    if (!roots || !index.slots) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < nroots; k++) { /* depth first: a node after its options */
        if (index_get(&index, roots[k]) >= 0) continue;
        depth = 0;
        if (GROW_STACK(stack, stack_cap, depth + 1) < 0) goto done;
        stack[depth++] = roots[k];
        while (depth) {
            int32_t t = stack[depth - 1];
            if (index_get(&index, t) >= 0) {
                depth--;
                continue;
            }
            const GNode *g = node(t);
            size_t before = depth;
            for (uint32_t j = 0; j < g->nl + g->nr; j++)
                if (index_get(&index, g->opts[j]) < 0) {
                    if (GROW_STACK(stack, stack_cap, depth + 1) < 0) goto done;
                    stack[depth++] = g->opts[j];
                }
            if (depth > before) continue;
            depth--;
            if ((count + 1) * 2 > size) { /* grow the map */
                IndexMap bigger = {calloc(size * 2, sizeof *bigger.slots), size * 2 - 1};
                if (!bigger.slots) {
                    PyErr_NoMemory();
                    goto done;
                }
                for (size_t i = 0; i < size; i++)
                    if (index.slots[i]) index_put(&bigger, (int32_t)((index.slots[i] >> 32) - 1), (uint32_t)index.slots[i]);
                free(index.slots);
                index = bigger;
                size *= 2;
            }
            if (put(&body, g->nl) < 0 || put(&body, g->nr) < 0) goto done;
            for (uint32_t j = 0; j < g->nl + g->nr; j++)
                if (put(&body, count - (uint64_t)index_get(&index, g->opts[j])) < 0) goto done;
            index_put(&index, t, (uint32_t)count++);
        }
    }
    Bytes head = {0};
    if (put(&head, count) < 0) goto done;
    size_t total = 4 + head.n + body.n + 4;
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    PyObject *at = bytes ? PyList_New(nroots) : NULL;
    if (at) {
        uint8_t *p = (uint8_t *)PyBytes_AS_STRING(bytes);
        memcpy(p, "RGN1", 4);
        memcpy(p + 4, head.v, head.n);
        if (body.n) memcpy(p + 4 + head.n, body.v, body.n);
        uint32_t crc = crc32_ieee(p, total - 4);
        for (int k = 0; k < 4; k++) p[total - 4 + k] = (uint8_t)(crc >> (8 * k));
        for (Py_ssize_t k = 0; k < nroots; k++) {
            PyObject *x = PyLong_FromLongLong(index_get(&index, roots[k]));
            if (!x) Py_CLEAR(at);
            else PyList_SET_ITEM(at, k, x);
            if (!at) break;
        }
    }
    free(head.v);
    if (bytes && at) result = Py_BuildValue("(NN)", bytes, at);
    else {
        Py_XDECREF(bytes);
        Py_XDECREF(at);
    }
done:
    Py_DECREF(seq);
    free(roots);
    free(stack);
    free(body.v);
    free(index.slots);
    return result;
}

/* ---------------------------------------------------------------------------------------- */
/* unpacking                                                                                 */

static int get(const uint8_t *p, size_t n, size_t *at, uint64_t *out) {
    uint64_t x = 0;
    for (int shift = 0; shift < 64 && *at < n; shift += 7) {
        uint8_t byte = p[(*at)++];
        x |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *out = x;
            return 0;
        }
    }
    return -1;
}

static PyObject *refuse(const char *why, size_t node_index) {
    PyErr_Format(PyExc_ValueError, "a packet of games is refused: %s (node %zu)", why, node_index);
    return NULL;
}

/* unpack_nodes(bytes) -> the game id of each node */
PyObject *wire_unpack(PyObject *data) {
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    const uint8_t *p = view.buf;
    size_t n = (size_t)view.len, at = 4;
    PyObject *out = NULL;
    int32_t *ids = NULL, *opts = NULL, *work = NULL;
    size_t opts_cap = 0, work_cap = 0;
    uint64_t count;
    if (n < 9 || memcmp(p, "RGN1", 4) != 0) {
        refuse("not a packet of games", 0);
        goto done;
    }
    uint32_t crc = (uint32_t)p[n - 4] | (uint32_t)p[n - 3] << 8 | (uint32_t)p[n - 2] << 16 | (uint32_t)p[n - 1] << 24;
    n -= 4;
    if (crc32_ieee(p, n) != crc) {
        refuse("its checksum does not match", 0);
        goto done;
    }
    if (get(p, n, &at, &count) < 0 || count > n) {
        refuse("a bad count of nodes", 0);
        goto done;
    }
    ids = malloc(((size_t)count + 1) * sizeof *ids);
    if (!ids) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        uint64_t nl, nr;
        if (get(p, n, &at, &nl) < 0 || get(p, n, &at, &nr) < 0 || nl + nr > n - at) {
            refuse("a bad option count", i);
            goto done;
        }
        size_t m = (size_t)(nl + nr);
        if (ids_grow(&opts, &opts_cap, m + 1) < 0 || ids_grow(&work, &work_cap, m + 1) < 0) goto done;
        for (size_t j = 0; j < m; j++) {
            uint64_t back;
            if (get(p, n, &at, &back) < 0 || back < 1 || back > i) {
                refuse("an option that is not an earlier node", i);
                goto done;
            }
            opts[j] = ids[i - back];
        }
        /* canonical: the canonical form of {L | R} is the node with exactly these options */
        size_t ml = sort_unique(opts, (size_t)nl), mr = sort_unique(opts + nl, (size_t)nr);
        if (ml != nl || mr != nr) {
            refuse("an option listed twice", i);
            goto done;
        }
        int32_t id;
        memcpy(work, opts, m * sizeof *work); /* (g_canon sorts its arrays in place) */
        if (g_canon(work, ml, work + ml, mr, &id) < 0) goto done;
        const GNode *g = node(id);
        if (g->nl != ml || g->nr != mr || memcmp(g->opts, opts, (ml + mr) * sizeof *opts) != 0) {
            refuse("a node not in canonical form", i);
            goto done;
        }
        ids[i] = id;
    }
    if (at != n) {
        refuse("bytes after the last node", (size_t)count);
        goto done;
    }
    out = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; out && i < count; i++) {
        PyObject *x = PyLong_FromLong(ids[i]);
        if (!x) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)i, x);
    }
done:
    PyBuffer_Release(&view);
    free(ids);
    free(opts);
    free(work);
    return out;
}
