/* store/merge.c — the merge of a sweep's runs (merge.h), and store._native.merge_frames.
 *
 * A sweep whose store is rewritten densely at its end (LmdbStore.close_dense) keeps each drain as
 * a run (store/runs.py) instead of handing it to the writer process: a batch frame
 * (engine/native/frame.h), keys sorted, no key in two runs. The rewrite's copy (compact.c) takes
 * the runs' records from a heap of the runs' next keys as it walks the store's; merge_frames(frames)
 * writes the same merge as one frame (where the runs are stored rather than merged into a copy).
 * A frame cut short, keys out of order or a key in two runs raise ValueError (nothing is merged).
 * store.runs.merge_frames_python is the reference tests/store/test_store_runs.py compares it with.
 */
#include "merge.h"

#include <stdlib.h>
#include <string.h>

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

/* Read frame `view` into *run; its key bytes, or SIZE_MAX when it is cut short, its keys do not
 * fill it or one is not min_len..max_len bytes long. */
static size_t read_run(const Py_buffer *view, Run *run, size_t min_len, size_t max_len) {
    const uint8_t *f = view->buf;
    size_t size = (size_t)view->len, n = frame_count(f, size), keys = 0;
    if (n == SIZE_MAX) return SIZE_MAX;
    run->lengths = frame_lengths(f);
    run->codes = frame_codes(f, n);
    run->key = f + frame_head(n);
    run->n = n;
    run->at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = frame_length(run->lengths, i);
        if (len < min_len || len > max_len) return SIZE_MAX;
        keys += len;
    }
    if (n) run->head = key_head(run->key, frame_length(run->lengths, 0));
    return frame_head(n) + keys == size ? keys : SIZE_MAX;
}

int runs_open(RunHeap *h, PyObject *frames, size_t min_len, size_t max_len) {
    memset(h, 0, sizeof *h);
    PyObject *seq = PySequence_Fast(frames, "the runs must be a sequence of frames");
    if (!seq) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    size_t room = k ? (size_t)k : 1;
    h->views = calloc(room, sizeof *h->views);
    h->runs = calloc(room, sizeof *h->runs);
    h->heap = calloc(room, sizeof *h->heap);
    int rc = -1;
    if (!h->views || !h->runs || !h->heap) {
        PyErr_NoMemory();
        goto done;
    }
    for (; h->held < k; h->held++) {
        Py_ssize_t i = h->held;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(seq, i), &h->views[i], PyBUF_SIMPLE) < 0) goto done;
        size_t bytes = read_run(&h->views[i], &h->runs[i], min_len, max_len);
        if (bytes == SIZE_MAX) {
            PyErr_Format(PyExc_ValueError, "run %zd of %zd is not a whole batch frame of keys of %zu to %zu bytes", i, k,
                         min_len, max_len);
            h->held++;
            goto done;
        }
        h->total += h->runs[i].n;
        h->keys += bytes;
        h->bytes += (size_t)h->views[i].len;
        if (h->runs[i].n) h->heap[h->live++] = &h->runs[i];
    }
    for (size_t i = h->live / 2; i-- > 0;) sift_down(h->heap, h->live, i);
    rc = 0;
done:
    Py_DECREF(seq);
    return rc;
}

int runs_pop(RunHeap *h) {
    Run *run = h->heap[0];
    size_t len = frame_length(run->lengths, run->at);
    h->previous = run->key, h->previous_len = len;
    run->key += len;
    if (++run->at == run->n) h->heap[0] = h->heap[--h->live];
    else run->head = key_head(run->key, frame_length(run->lengths, run->at));
    if (!h->live) return 0;
    sift_down(h->heap, h->live, 0);
    const Run *next = h->heap[0];
    return bytes_less(h->previous, h->previous_len, next->key, frame_length(next->lengths, next->at)) ? 0 : -1;
}

void runs_close(RunHeap *h) {
    for (Py_ssize_t i = 0; i < h->held; i++) PyBuffer_Release(&h->views[i]);
    free(h->views);
    free(h->runs);
    free(h->heap);
    memset(h, 0, sizeof *h);
}

/* The merge of the heap into the frame at `out`; 0, or -1 when keys are out of order or in two runs. */
static int merge_runs(RunHeap *h, uint8_t *out) {
    Packed packed = frame_start(out, h->total, 0, 0);
    for (size_t j = 0; h->live; j++) {
        size_t len;
        uint64_t code;
        const uint8_t *key = runs_top(h, &len, &code);
        frame_put_key(&packed, j, key, len, code);
        if (runs_pop(h) < 0) return -1;
    }
    return 0;
}

/* merge_frames(frames) -> frame (see the file's comment). */
PyObject *store_merge_frames(PyObject *self, PyObject *arg) {
    (void)self;
    RunHeap h;
    PyObject *out = NULL;
    if (runs_open(&h, arg, 0, SIZE_MAX) < 0) goto done;
    if (h.total >= UINT32_MAX) {
        PyErr_Format(PyExc_ValueError, "the runs hold %zu entries, more than a frame can", h.total);
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)frame_bytes(h.total, h.keys));
    if (!out) goto done;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = merge_runs(&h, (uint8_t *)PyBytes_AS_STRING(out));
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_SetString(PyExc_ValueError, "the runs' keys are not sorted, or a key is in two of them");
        Py_CLEAR(out);
    }
done:
    runs_close(&h);
    return out;
}
