/* store/merge.h — a k-way merge of batch frames (engine/native/frame.h), keys sorted in each and
 * no key in two: a binary heap of the runs' next keys in LMDB's order (bytes_less), the first 8
 * bytes of each next key compared first. merge_frames (merge.c) writes the merge as one frame;
 * compact_copy (compact.c) puts it among a store's records as it copies them, with no frame of the
 * merge made first. */
#ifndef RUMA_STORE_MERGE_H
#define RUMA_STORE_MERGE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "frame.h"
#include "records.h"

typedef struct {
    const uint8_t *lengths, *codes, *key; /* the run's key lengths and codes, and its next key */
    size_t n, at;                         /* its entries, and the next one's index */
    uint64_t head;                        /* the next key's first 8 bytes, big-endian, zero-padded */
} Run;

typedef struct {
    Py_buffer *views; /* the frames' buffers, held from runs_open to runs_close */
    Py_ssize_t held;
    Run *runs, **heap;
    size_t live;                 /* runs with entries left: heap[0..live) */
    size_t total, keys, bytes;   /* the entries, their key bytes, the frames' bytes */
    const uint8_t *previous;     /* the key taken last (in its frame's memory), or NULL */
    size_t previous_len;
} RunHeap;

/* Open the frames of sequence `frames` (buffers) as a heap whose every key is min_len..max_len
 * bytes long; 0, or -1 with a Python error (runs_close in every case, with the GIL). */
STORE_INTERNAL int runs_open(RunHeap *h, PyObject *frames, size_t min_len, size_t max_len);
/* The next key (its length in *len) and its code: the heap's top (h->live > 0). */
static inline const uint8_t *runs_top(const RunHeap *h, size_t *len, uint64_t *code) {
    const Run *run = h->heap[0];
    *len = frame_length(run->lengths, run->at);
    *code = frame_code(run->codes, run->at);
    return run->key;
}
/* Take the top: 0, or -1 when the key after it does not come strictly after it (keys out of
 * order in a run, or a key in two runs). Needs no GIL. */
STORE_INTERNAL int runs_pop(RunHeap *h);
STORE_INTERNAL void runs_close(RunHeap *h);

#endif
