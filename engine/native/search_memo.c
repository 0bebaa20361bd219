/* search_memo.c — the compiled search's traffic with the memo (see search.c for the search).
 *
 * Newly valued positions go back in sorted batches (flush_pending): straight into a CompactMemo's
 * table or a plain InMemoryMemo's dict, else through memo.insert_many. Positions the table has
 * never seen are asked about in batches (lookup_batch): a CompactMemo in C, a dict directly,
 * memo.lookup per key, or memo.lookup_many for a whole batch (where the search may speculate:
 * see SPECULATE_AFTER in search.h).
 */
#include "search.h"
#include "body_sort.h"
#include "frame.h"

/* ---------------------------------------------------------------------------------------- */
/* memo traffic                                                                              */

/* The memo's value object of a table value (a nim value, or the one Game object of an id). */
static PyObject *value_object(SearchObject *s, int32_t v) {
    if (s->rules->impartial) return PyLong_FromLong(v);
    return kernel_handle(v);
}

/* Order the pending records by key (all keys share the ruleset prefix, so by body): a store then
 * writes its B-tree pages in order, and sorting an already sorted list is one pass in Python.
 * The bodies are copied next to each other first, and their first bytes into the sort keys:
 * compared in place, every comparison would chase two records across the whole table (cache
 * misses), and a sort makes ~14 per record. */
static int sort_pending(SearchObject *s) {
    size_t total = 0;
    for (size_t k = 0; k < s->npending; k++) {
        size_t len;
        table_body(s->t, s->pending[k], &len, s->scratch);
        total += len;
    }
    Sortable *v = malloc(s->npending * sizeof *v);
    uint8_t *bodies = malloc(total ? total : 1);
    if (!v || !bodies) {
        free(v);
        free(bodies);
        PyErr_NoMemory();
        return -1;
    }
    uint8_t *at = bodies;
    for (size_t k = 0; k < s->npending; k++) {
        size_t len;
        const uint8_t *body = table_body(s->t, s->pending[k], &len, s->scratch);
        memcpy(at, body, len);
        v[k].rec = s->pending[k];
        v[k].head = body_head(body, len);
        v[k].body = at;
        v[k].len = len;
        at += len;
    }
    int rc = sort_by_body(v, s->npending);
    for (size_t k = 0; rc == 0 && k < s->npending; k++) s->pending[k] = v[k].rec;
    free(v);
    free(bodies);
    if (rc < 0) PyErr_NoMemory();
    return rc;
}

/* Hand the pending nim values over as one batch frame (frame.h: count, key lengths, codes 2n,
 * then the whole keys, sorted) after putting them into the cache when that is a CompactMemo (the
 * store's ``recent``), and call memo.insert_packed(frame, that CompactMemo or None). Why: the LMDB
 * store sends exactly these bytes to its writer process, so the pairs' way (a tuple, a key and an
 * int per value, then split, packed and remembered again in Python) was main-process work a cold
 * evaluation waited on. (The cache takes values up to CACHE_LIMIT.) 1 when done, 0 when a key is
 * too long for a u16 length (the caller takes the pairs' way), -1 on error. */
#define CACHE_LIMIT ((size_t)1 << 21) /* values a cache takes from a search: the store's RECENT_LIMIT (store/bulk.py) */

static int pack_pending(SearchObject *s) {
    size_t n = s->npending, bodies = 0;
    for (size_t k = 0; k < n; k++) {
        size_t len;
        table_body(s->t, s->pending[k], &len, s->scratch);
        if (len + 2 > 0xFFFF) return 0;
        bodies += len;
    }
    if (n > UINT32_MAX || sort_pending(s) < 0) return n > UINT32_MAX ? 0 : -1;
    PyObject *frame = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)frame_bytes(n, bodies + 2 * n));
    if (!frame) return -1;
    CompactMemoObject *cache = PyObject_TypeCheck(s->cache, &CompactMemo_Type) ? (CompactMemoObject *)s->cache : NULL;
    /* A full cache takes no more (the store then keeps the values in a fresh one of its own, as it
     * keeps any batch handed over without a cache): it would grow with the search's own table. */
    if (cache && compact_count(cache) + n > CACHE_LIMIT) cache = NULL;
    Packed f = frame_start((uint8_t *)PyBytes_AS_STRING(frame), n, s->rules->code, s->rules->version);
    for (size_t k = 0; k < n; k++) {
        uint32_t rec = s->pending[k];
        size_t len;
        const uint8_t *body = table_body(s->t, rec, &len, s->scratch);
        int32_t v = table_value(s->t, rec);
        const uint8_t *key = frame_put(&f, k, body, len, v);
        if (cache && compact_add(cache, key, len + 2, v) < 0) {
            Py_DECREF(frame);
            return -1;
        }
    }
    s->npending = 0;
    PyObject *r = PyObject_CallFunctionObjArgs(s->insert_packed, frame, cache ? s->cache : Py_None, NULL);
    Py_DECREF(frame);
    if (!r) return -1;
    Py_DECREF(r);
    return 1;
}

/* Hand every pending (key, value) to the memo: straight into a plain InMemoryMemo's dict (what its
 * insert_many does), else memo.insert_many(list of pairs, sorted by key) in one call. */
/* The whole key of a record (ruleset prefix + body) in s->full; its length, or -1. */
static long full_key(SearchObject *s, uint32_t rec) {
    size_t len;
    const uint8_t *body = table_body(s->t, rec, &len, s->scratch);
    if (GROW(s->full, s->full_cap, len + 2) < 0) return -1;
    s->full[0] = (uint8_t)s->rules->code;
    s->full[1] = (uint8_t)s->rules->version;
    memcpy(s->full + 2, body, len);
    return (long)(len + 2);
}

int flush_pending(SearchObject *s) {
    if (!s->npending) return 0;
    if (s->compact) { /* CompactMemo: nim values as they are, Game ids as -(id + 1) */
        for (size_t k = 0; k < s->npending; k++) {
            uint32_t rec = s->pending[k];
            long len = full_key(s, rec);
            int32_t v = table_value(s->t, rec);
            if (len < 0 || compact_add(s->compact, s->full, (size_t)len, s->rules->impartial ? v : -(v + 1)) < 0)
                return -1;
        }
        s->npending = 0;
        return 0;
    }
    if (s->entries != Py_None) {
        for (size_t k = 0; k < s->npending; k++) {
            uint32_t rec = s->pending[k];
            size_t len;
            const uint8_t *body = table_body(s->t, rec, &len, s->scratch);
            PyObject *key = make_key(s->rules, body, len);
            PyObject *value = key ? value_object(s, table_value(s->t, rec)) : NULL;
            int rc = value ? 0 : -1;
            if (value && s->record != Py_None) { /* RecordingMemo.insert_many: record what is new */
                rc = PyDict_Contains(s->entries, key);
                if (rc == 0) {
                    PyObject *pair = PyTuple_Pack(2, key, value);
                    rc = pair ? PyList_Append(s->record, pair) : -1;
                    if (pair) PyObject_GC_UnTrack(pair); /* (as below: a pair of a key and a value is no cycle) */
                    Py_XDECREF(pair);
                    if (rc == 0) rc = PyDict_SetItem(s->entries, key, value);
                } else if (rc > 0) {
                    rc = 0; /* known already (learned from elsewhere): kept, not recorded */
                }
            } else if (value) {
                rc = PyDict_SetItem(s->entries, key, value);
            }
            Py_XDECREF(key);
            Py_XDECREF(value);
            if (rc < 0) return -1;
        }
        s->npending = 0;
        return 0;
    }
    if (s->insert_packed != Py_None) {
        int packed = pack_pending(s);
        if (packed) return packed < 0 ? -1 : 0;
    }
    if (sort_pending(s) < 0) return -1;
    PyObject *items = PyList_New((Py_ssize_t)s->npending);
    if (!items) return -1;
    for (size_t k = 0; k < s->npending; k++) {
        uint32_t rec = s->pending[k];
        size_t len;
        const uint8_t *body = table_body(s->t, rec, &len, s->scratch);
        PyObject *key = make_key(s->rules, body, len);
        PyObject *value = key ? value_object(s, table_value(s->t, rec)) : NULL;
        if (!key || !value) {
            Py_XDECREF(key);
            Py_XDECREF(value);
            Py_DECREF(items);
            return -1;
        }
        PyObject *pair = PyTuple_Pack(2, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (!pair) {
            Py_DECREF(items);
            return -1;
        }
        /* Untracked: the cyclic collector would otherwise be set off every 700 of these pairs
         * and walk all the live ones (and every Game of the process) again and again while the
         * batch is built and stored. A pair of a bytes key and an int or Game value cannot be
         * part of a reference cycle (nothing refers to it but this list), so untracking is safe. */
        PyObject_GC_UnTrack(pair);
        PyList_SET_ITEM(items, (Py_ssize_t)k, pair);
    }
    s->npending = 0;
    PyObject *r = PyObject_CallOneArg(s->insert_many, items);
    Py_DECREF(items);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* A value read from the memo as the table stores it (nim value, or the Game's id). */
static int memo_value(SearchObject *s, PyObject *value, int32_t *out) {
    PyObject *number = value;
    if (!s->rules->impartial) {
        number = game_id(value);
        if (!number) return -1;
    } else {
        Py_INCREF(number);
    }
    long v = PyLong_AsLong(number);
    Py_DECREF(number);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > INT32_MAX || (!s->rules->impartial && v >= kernel_count())) {
        PyErr_Format(PyExc_ValueError, "memo value %ld out of the compiled engine's range", v);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* The memo's answer for one key (a new reference; Py_None when absent), NULL on error. */
static PyObject *memo_get(SearchObject *s, PyObject *key) {
    if (s->entries != Py_None) { /* InMemoryMemo.lookup is entries.get(key) */
        PyObject *found = PyDict_GetItemWithError(s->entries, key);
        if (found) return Py_NewRef(found);
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    return PyObject_CallOneArg(s->lookup, key);
}

/* Settle one record by the memo's answer. Returns 1 when a frame on the path (ACTIVE_LOOKUP) was
 * found in the memo, else 0; -1 on error. */
static int settle_value(SearchObject *s, uint32_t rec, int hit, int32_t v) {
    int32_t status = table_value(s->t, rec);
    if (status >= 0) return 0; /* valued meanwhile (speculatively): the memo holds the same fact */
    if (!hit) {
        s->misses++;
        if (s->misses_in_row < 2 * SPECULATE_AFTER) s->misses_in_row++; /* (capped: a warm region ends it soon) */
        table_set(s->t, rec, status == ACTIVE_LOOKUP ? ACTIVE : UNKNOWN);
        return 0;
    }
    s->hits++;
    /* a hit outweighs HIT_WEIGHT misses: the search speculates while hits are rarer than about one
     * key in HIT_WEIGHT + 1, and goes back to asking before each descent when they are not */
    s->misses_in_row = s->misses_in_row > HIT_WEIGHT ? s->misses_in_row - HIT_WEIGHT : 0;
    if (table_set(s->t, rec, v) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return status == ACTIVE_LOOKUP;
}

static int settle(SearchObject *s, uint32_t rec, PyObject *found) {
    if (table_value(s->t, rec) >= 0) return 0;
    int32_t v = 0;
    if (found != Py_None && memo_value(s, found, &v) < 0) return -1;
    return settle_value(s, rec, found != Py_None, v);
}

/* A value as a CompactMemo holds it (nim value, or -(Game id + 1)) as the search holds it: 1, or
 * -1 with TypeError when it is of the other kind. */
static int compact_value(SearchObject *s, int32_t stored, int32_t *v) {
    if ((stored >= 0) != (s->rules->impartial != 0)) {
        PyErr_SetString(PyExc_TypeError, s->rules->impartial ? "the memo holds a Game for an impartial position"
                                                             : "the memo holds a nim value for a partizan position");
        return -1;
    }
    *v = stored >= 0 ? stored : -(stored + 1);
    return 1;
}

/* The CompactMemo's answer for a record: 0/1 found (value as the search holds it), -1 error. */
static int compact_get(SearchObject *s, uint32_t rec, int32_t *v) {
    long len = full_key(s, rec);
    if (len < 0) return -1;
    int32_t stored;
    if (!compact_find(s->compact, s->full, (size_t)len, &stored)) return 0;
    return compact_value(s, stored, v);
}

/* A key body's value in the search's cache (the store's CompactMemo of the values this process
 * stored, or a dict): 1 found (*v as the table holds it), 0 not there, -1 error. Read as a key is
 * met, so a hit never waits in a lookup batch, never costs a call of the memo and never counts
 * against speculation: a cold store then answers only misses, and the search speculates
 * through them. */
int cache_get(SearchObject *s, const uint8_t *body, size_t len, uint32_t hash, int32_t *v) {
    if (s->shared) {
        int found = shared_find(s->shared, body, len, hash, v);
        return found && shared_value_in(s, *v, v) < 0 ? -1 : found; /* (partizan: adopted from its shared id) */
    }
    if (PyObject_TypeCheck(s->cache, &CompactMemo_Type)) { /* the whole key, with no Python object */
        if (GROW(s->full, s->full_cap, len + 2) < 0) return -1;
        s->full[0] = (uint8_t)s->rules->code;
        s->full[1] = (uint8_t)s->rules->version;
        memcpy(s->full + 2, body, len);
        int32_t stored;
        if (!compact_find((CompactMemoObject *)s->cache, s->full, len + 2, &stored)) return 0;
        return compact_value(s, stored, v);
    }
    PyObject *key = make_key(s->rules, body, len);
    if (!key) return -1;
    PyObject *found = PyDict_GetItemWithError(s->cache, key); /* (borrowed) */
    Py_DECREF(key);
    if (!found) return PyErr_Occurred() ? -1 : 0;
    return memo_value(s, found, v) < 0 ? -1 : 1;
}


/* Drop the frames from the lowest one the memo settled (its record now has a value) upwards:
 * the records of the frames above it go back to "not valued" (their memo status kept), their
 * claims in a sweep's shared table given up. */
static void unwind_settled(SearchObject *s) {
    size_t lowest = s->nframes;
    for (size_t j = 0; j < s->nframes; j++)
        if (table_value(s->t, s->frames[j].rec) >= 0) {
            lowest = j;
            break;
        }
    while (s->nframes > lowest) {
        uint32_t rec = s->frames[s->nframes - 1].rec;
        if (s->frames[s->nframes - 1].claim) shared_release(s, &s->frames[s->nframes - 1]); /* (settled or given up) */
        int32_t status = table_value(s->t, rec);
        if (status == ACTIVE) table_set(s->t, rec, UNKNOWN);
        if (status == ACTIVE_LOOKUP) table_set(s->t, rec, LOOKUP);
        s->nframes--;
        s->path_len = s->frames[s->nframes].state_off;
        s->ncomps = s->frames[s->nframes].comps_begin;
    }
}

/* Consult the memo about every record waiting in the batch (LOOKUP or ACTIVE_LOOKUP; records
 * valued meanwhile are skipped). Returns 1 when frames on the path were settled and dropped
 * (the caller must look at the top of the stack again), 0, or -1 on error. */
int lookup_batch(SearchObject *s) {
    size_t n = 0;
    for (size_t k = 0; k < s->nbatch; k++) /* keep the records still to be asked about */
        if (table_value(s->t, s->batch[k]) < 0) s->batch[n++] = s->batch[k];
    s->nbatch = 0;
    if (!n) return 0;
    int settled = 0;
    if (s->compact) {
        for (size_t k = 0; k < n; k++) {
            int32_t v = 0;
            int hit = compact_get(s, s->batch[k], &v);
            if (hit < 0) return -1;
            int rc = settle_value(s, s->batch[k], hit, v);
            if (rc < 0) return -1;
            settled |= rc;
        }
    } else if (s->lookup_many == Py_None || s->entries != Py_None) {
        for (size_t k = 0; k < n; k++) {
            uint32_t rec = s->batch[k];
            size_t len;
            const uint8_t *body = table_body(s->t, rec, &len, s->scratch);
            PyObject *key = make_key(s->rules, body, len);
            PyObject *found = key ? memo_get(s, key) : NULL;
            Py_XDECREF(key);
            if (!found) return -1;
            int rc = settle(s, rec, found);
            Py_DECREF(found);
            if (rc < 0) return -1;
            settled |= rc;
        }
    } else {
        PyObject *keys = PyList_New((Py_ssize_t)n);
        if (!keys) return -1;
        for (size_t k = 0; k < n; k++) {
            size_t len;
            const uint8_t *body = table_body(s->t, s->batch[k], &len, s->scratch);
            PyObject *key = make_key(s->rules, body, len);
            if (!key) {
                Py_DECREF(keys);
                return -1;
            }
            PyList_SET_ITEM(keys, (Py_ssize_t)k, key);
        }
        PyObject *found = PyObject_CallOneArg(s->lookup_many, keys);
        Py_DECREF(keys);
        if (!found) return -1;
        PyObject *seq = PySequence_Fast(found, "lookup_many must return a sequence");
        Py_DECREF(found);
        if (!seq) return -1;
        if ((size_t)PySequence_Fast_GET_SIZE(seq) != n) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "lookup_many returned a different number of values than keys");
            return -1;
        }
        for (size_t k = 0; k < n; k++) {
            int rc = settle(s, s->batch[k], PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)k));
            if (rc < 0) {
                Py_DECREF(seq);
                return -1;
            }
            settled |= rc;
        }
        Py_DECREF(seq);
        if (s->misses_in_row >= SPECULATE_AFTER) s->speculative = 1;
        else if (s->misses_in_row < SPECULATE_AFTER / 2) s->speculative = 0;
    }
    if (settled) unwind_settled(s);
    return settled;
}
