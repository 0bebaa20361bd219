/* store/merge.c — store._native.merge_frames: a sweep's runs as one frame for the dense rewrite.
 *
 * A sweep whose store is rewritten densely at its end (LmdbStore.close_dense) keeps each drain of
 * nim values as a run (store/runs.py) instead of handing it to the writer process: a batch frame
 * (engine/native/frame.h), keys sorted, no key in two runs. merge_frames(frames) merges them into
 * one frame, keys sorted, by a k-way merge on a binary heap of the runs' next keys (LMDB's order:
 * bytes_less), which compact_copy then puts among the store's records. A frame cut short, keys out
 * of order or a key in two runs raise ValueError (nothing is merged). store.runs.merge_frames_python
 * is the reference tests/store/test_store_runs.py compares it with.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "records.h"

typedef struct {
    const uint8_t *lengths, *codes, *key; /* the run's key lengths and codes, and its next key */
    size_t n, at;                         /* its entries, and the next one's index */
    uint64_t head;                        /* the next key's first 8 bytes, big-endian, zero-padded */
} Run;

/* The first 8 bytes of a key, big-endian, zero-padded: two keys whose heads differ are in the
 * order of their heads (most comparisons of a merge end there). */
static uint64_t key_head(const uint8_t *key, size_t len) {
    uint64_t head = 0;
    for (size_t i = 0; i < 8; i++) head = head << 8 | (i < len ? key[i] : 0);
    return head;
}

static int run_less(const Run *a, const Run *b) {
    if (a->head != b->head) return a->head < b->head;
    return bytes_less(a->key, frame_length(a->lengths, a->at), b->key, frame_length(b->lengths, b->at));
}

static void sift_down(Run **heap, size_t n, size_t i) {
    for (;;) {
        size_t left = 2 * i + 1, right = left + 1, least = i;
        if (left < n && run_less(heap[left], heap[least])) least = left;
        if (right < n && run_less(heap[right], heap[least])) least = right;
        if (least == i) return;
        Run *swap = heap[i];
        heap[i] = heap[least];
        heap[least] = swap;
        i = least;
    }
}

/* Read frame `view` into *run; its key bytes, or SIZE_MAX when it is cut short or its keys do not
 * fill it. */
static size_t read_run(const Py_buffer *view, Run *run) {
    const uint8_t *f = view->buf;
    size_t size = (size_t)view->len, n = frame_count(f, size), keys = 0;
    if (n == SIZE_MAX) return SIZE_MAX;
    run->lengths = frame_lengths(f);
    run->codes = frame_codes(f, n);
    run->key = f + frame_head(n);
    run->n = n;
    run->at = 0;
    for (size_t i = 0; i < n; i++) keys += frame_length(run->lengths, i);
    if (n) run->head = key_head(run->key, frame_length(run->lengths, 0));
    return frame_head(n) + keys == size ? keys : SIZE_MAX;
}

/* The k-way merge of `live` runs (heap[0..live)) into the frame at `out` of `total` entries; 0, or
 * -1 when a key does not come strictly after the one before (out of order, or in two runs). */
static int merge_runs(Run **heap, size_t live, size_t total, uint8_t *out) {
    for (size_t i = live / 2; i-- > 0;) sift_down(heap, live, i);
    Packed packed = frame_start(out, total, 0, 0);
    const uint8_t *previous = NULL;
    size_t previous_len = 0;
    for (size_t j = 0; j < total; j++) {
        Run *run = heap[0];
        size_t len = frame_length(run->lengths, run->at);
        if (previous && !bytes_less(previous, previous_len, run->key, len)) return -1;
        frame_put_key(&packed, j, run->key, len, frame_code(run->codes, run->at));
        previous = run->key, previous_len = len;
        run->key += len;
        if (++run->at == run->n) heap[0] = heap[--live];
        else run->head = key_head(run->key, frame_length(run->lengths, run->at));
        if (live) sift_down(heap, live, 0);
    }
    return 0;
}

/* merge_frames(frames) -> frame (see the file's comment). */
PyObject *store_merge_frames(PyObject *self, PyObject *arg) {
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "merge_frames takes a sequence of frames");
    if (!seq) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq), held = 0;
    size_t room = k ? (size_t)k : 1;
    Py_buffer *views = calloc(room, sizeof *views);
    Run *runs = calloc(room, sizeof *runs);
    Run **heap = calloc(room, sizeof *heap);
    PyObject *out = NULL;
    size_t total = 0, keys = 0, live = 0;
    if (!views || !runs || !heap) {
        PyErr_NoMemory();
        goto done;
    }
    for (; held < k; held++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(seq, held), &views[held], PyBUF_SIMPLE) < 0) goto done;
        size_t bytes = read_run(&views[held], &runs[held]);
        if (bytes == SIZE_MAX) {
            PyErr_Format(PyExc_ValueError, "run %zd of %zd is not a whole batch frame", held, k);
            held++;
            goto done;
        }
        total += runs[held].n;
        keys += bytes;
        if (runs[held].n) heap[live++] = &runs[held];
    }
    if (total >= UINT32_MAX) {
        PyErr_Format(PyExc_ValueError, "the runs hold %zu entries, more than a frame can", total);
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)frame_bytes(total, keys));
    if (!out) goto done;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = merge_runs(heap, live, total, (uint8_t *)PyBytes_AS_STRING(out));
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_SetString(PyExc_ValueError, "the runs' keys are not sorted, or a key is in two of them");
        Py_CLEAR(out);
    }
done:
    for (Py_ssize_t i = 0; i < held; i++) PyBuffer_Release(&views[i]);
    free(views);
    free(runs);
    free(heap);
    Py_DECREF(seq);
    return out;
}
