/* shared.c — SharedValues: a table of nim values in memory shared by the processes of a sweep.
 *
 * Why. Two worker processes valuing one family each keep their own table, so a position one of
 * them valued is known to the other only when the driver forwards it with a later shard, and the
 * sweep must hand out whole cells in dependency order (ruma.engine.sweep_order) — which leaves a
 * worker idle or duplicating a cell whenever the cells' order is a chain. With one table in shared
 * memory a worker publishes every value the moment it has it and reads every value the other
 * published before it searches a position, so dependencies resolve per position: the only work
 * done twice is a position both searched at the same moment.
 *
 * Layout (in a buffer the caller maps into every process, see ruma.client.sweep_shared):
 *     header (128 bytes), then slots (uint64 each, a power of two of them), then the arena
 *     (4-byte words, to the end of the buffer), cut into chunks of C words (the header's
 *     `chunk_words`: chunk k is words [kC, (k+1)C), the last one cut short by the arena's end).
 * As in table.h, a slot holds 32 bits of the key's hash (high half) and the record's word offset
 * + 1 (low half; 0 = empty); a record is [value word][length byte][key body][padding], wholly in
 * one chunk. A value word SV_SKIP where a record would start means "the rest of this chunk is
 * empty". Records are never moved nor removed.
 *
 * Concurrency, lock-free (GCC/Clang atomics):
 *   - chunks: each process (each SharedValues object: one per process) writes its records one
 *     after the other in a chunk of its own, reserved with ONE fetch-add of C words on the
 *     header's `next`. Why: with a fetch-add per record, every add of two workers wrote the one
 *     header cache line, and records of the two were interleaved in the arena so that lines
 *     holding both were written by both cores (false sharing) — two workers spent ~20 % more
 *     CPU per position than one. Chunks are whole cache lines (C is a multiple of 16 words; the
 *     arena is 64-byte aligned when the buffer is and it has 8 slots or more), so the lines two
 *     processes both write are the slots' and, once a chunk or SV_COUNT_BATCH keys, the
 *     header's. A record that does not fit the rest of the chunk makes the process seal it
 *     (store SV_SKIP, release, at its next word) and reserve the next one; seal() does so when
 *     a process stops adding, and so does the dealloc. (An object's own state is touched under
 *     the GIL only: no search releases it.)
 *   - add: once an empty slot is met in the probe sequence, take the record's words in the
 *     process's chunk and write length and body, then claim the slot with a compare-and-swap
 *     (release); only then store the value word (value + 1, release). A lost CAS shows the winner:
 *     the same key (our record is marked dead, the first value stays) or another key (probe on).
 *     A dead record keeps its words.
 *   - count: each process counts the keys it published locally and adds them to the header's
 *     `count` every SV_COUNT_BATCH adds and when it seals (the same cache line as `next`); the
 *     "3/4 of the slots" check reads count + its own pending keys — the other processes' last
 *     few are missed, which the slots' room (at least twice the keys) covers.
 *   - claim (search_shared.c): a search about to descend into a key adds it as add does, with the
 *     value word SV_CLAIM; the frame's value is stored into that word (release) when the frame
 *     leaves the search's path, or SV_GONE when the search is interrupted first. A claim found by
 *     another process tells it that the key is being searched (it searches something else first).
 *     A gone record keeps its slot but stands for no key: readers and adders probe past it.
 *   - find: acquire-load a slot, compare hash and body, acquire-load the value word; a record
 *     whose value word is still 0 (being published) or SV_CLAIM counts as absent (the reader may
 *     search the position itself: duplicated work, never a wrong value).
 *   - drain (the driver): walks the arena from where it stopped, in order, up to `next`; skips
 *     dead and gone records by their length and jumps from SV_SKIP to the next chunk; stops at the
 *     first value word 0 or SV_CLAIM (a record still being written or searched, or the unwritten
 *     rest of a chunk its process has not sealed: the next drain resumes there). So records after
 *     a chunk still open are drained only once its process fills or seals it: a process must
 *     seal() when it stops adding (ruma.client.sweep_shared.value_blocks does, and the dealloc
 *     does) before the last drain; and the drain waits for every claim before it to be settled or
 *     given up (a search holds claims only on its path). Each key is drained once.
 *   - fork: a child process must not write in its parent's chunk (both would place records at
 *     one offset): an object whose chunk was taken before a fork gives it up, unsealed and
 *     uncounted, in the child (own(); the parent seals and counts it).
 * Values are facts: two processes that value one key find the same nim value, so whichever is
 * kept is right. The table never grows: an add that finds no room (arena spent, or slots 3/4
 * full) returns -1 and sets `full`; the sweep worker then sends its values the old way.
 */
#include "shared.h"
#include "body_sort.h"
#include "frame.h"
#include "table.h"

#include <pthread.h>

#define SV_MAGIC 0x32305653414d5552ULL /* "RUMASV02" little-endian (01: no chunks) */
#define SV_DEAD UINT32_MAX             /* a record that lost to the same key (values are stored + 1 <= INT32_MAX) */
#define SV_SKIP (UINT32_MAX - 1)       /* where a record would start: the rest of the chunk is empty */
#define SV_CLAIM (UINT32_MAX - 2)      /* a claimed key: a process is searching it, its value comes later */
#define SV_GONE (UINT32_MAX - 3)       /* a claim given up unvalued: skipped, as if its slot held no key */
#define SV_COUNT_BATCH 64              /* keys a process publishes between two adds to the header's count */
#define SV_CHUNKS 64                   /* the arena's chunks (C = its words / 64, in 128..4096, see init) */

struct SvHeader {
    uint64_t magic;
    uint32_t code, version;
    uint64_t nslots;      /* a power of two */
    uint64_t arena_words; /* words after the slots */
    uint64_t next;        /* atomic: arena words reserved so far */
    uint64_t count;       /* atomic: keys published */
    uint64_t full;        /* atomic: 1 once an add found no room */
    uint64_t claimed;     /* atomic: work items handed out by claim() (a sweep's blocks of classes) */
    uint64_t cancelled;   /* atomic: 1 once cancel() was called (the workers stop at their next claim) */
    uint64_t total;       /* atomic: the work items there are (added to by add_total) */
    uint64_t chunk_words; /* C: the words of a chunk (a multiple of 16, at least the largest record) */
    uint64_t unused[5];   /* (the header is 128 bytes) */
};

static inline uint64_t load(uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static unsigned forks; /* forks this process is the child of (counted by pthread_atfork, see init) */
static void forked(void) { forks++; }

/* A chunk and pending keys taken before a fork are the parent's: the child starts afresh. */
static inline void own(SharedValuesObject *t) {
    if (__builtin_expect(t->forks != forks, 0)) {
        t->chunk_at = t->chunk_end = t->pending = 0;
        t->forks = forks;
    }
}

static void count_pending(SharedValuesObject *t) {
    if (t->pending) __atomic_fetch_add(&t->head->count, t->pending, __ATOMIC_RELAXED);
    t->pending = 0;
}

static void seal_chunk(SharedValuesObject *t) {
    if (t->chunk_at < t->chunk_end) __atomic_store_n(&t->arena[t->chunk_at], SV_SKIP, __ATOMIC_RELEASE);
    t->chunk_at = t->chunk_end = 0;
}

void shared_seal(SharedValuesObject *t) {
    own(t);
    seal_chunk(t);
    count_pending(t);
}

/* The offset of `words` words for a record, in this process's chunk (sealed and replaced by the
 * next one when they do not fit), or UINT32_MAX when the arena has no room for them. */
static uint32_t take_words(SharedValuesObject *t, uint64_t words) {
    if (t->chunk_at + words > t->chunk_end) {
        seal_chunk(t);
        if (__atomic_load_n(&t->head->next, __ATOMIC_RELAXED) >= t->arena_end) return UINT32_MAX; /* (spent) */
        uint64_t start = __atomic_fetch_add(&t->head->next, t->chunk_words, __ATOMIC_RELAXED);
        if (start >= t->arena_end) return UINT32_MAX;
        t->chunk_at = start;
        t->chunk_end = start + t->chunk_words < t->arena_end ? start + t->chunk_words : t->arena_end;
        if (t->chunk_at + words > t->chunk_end) return UINT32_MAX; /* (the last chunk, short: kept for smaller records) */
    }
    uint64_t at = t->chunk_at;
    t->chunk_at += words;
    return (uint32_t)at;
}

static int same_body(const SharedValuesObject *t, uint32_t rec, const uint8_t *body, size_t len) {
    const uint8_t *p = (const uint8_t *)(t->arena + rec + 1);
    return p[0] == len && memcmp(p + 1, body, len) == 0;
}

int shared_find(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t *value) {
    if (len >= 255) return 0;
    uint64_t mask = t->mask;
    for (uint64_t i = hash & mask, probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
        uint64_t s = load(&t->slots[i]);
        if (!s) return 0;
        uint32_t rec = (uint32_t)s - 1;
        if ((uint32_t)(s >> 32) == hash && same_body(t, rec, body, len)) {
            uint32_t w = __atomic_load_n(&t->arena[rec], __ATOMIC_ACQUIRE);
            if (w == SV_GONE) continue; /* a claim given up: the key may have a live record further on */
            if (w == 0 || w == SV_CLAIM) return 0; /* being published, or searched by its claimant */
            *value = (int32_t)(w - 1);
            return 1;
        }
    }
    return 0;
}

static int no_room(SharedValuesObject *t, uint32_t rec) {
    if (rec != UINT32_MAX) __atomic_store_n(&t->arena[rec], SV_DEAD, __ATOMIC_RELEASE);
    if (!__atomic_load_n(&t->head->full, __ATOMIC_RELAXED)) __atomic_store_n(&t->head->full, 1, __ATOMIC_RELAXED);
    return -1;
}

/* Insert the key with value word `word` (value + 1, or SV_CLAIM): 1 and *at when inserted; 0 and
 * *seen (its value word: 0 while being written) when a live record of the key is there; -1 no room. */
static int insert(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, uint32_t word, uint32_t *seen,
                  uint32_t *at) {
    SvHeader *h = t->head;
    own(t);
    if (__atomic_load_n(&h->count, __ATOMIC_RELAXED) + t->pending >= t->limit) return no_room(t, UINT32_MAX);
    uint64_t mask = t->mask;
    uint32_t rec = UINT32_MAX;
    for (uint64_t i = hash & mask, probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
        uint64_t s = load(&t->slots[i]);
        if (!s) {
            if (rec == UINT32_MAX) { /* reserve and write the record once, before claiming a slot */
                rec = take_words(t, table_record_words(len));
                if (rec == UINT32_MAX) return no_room(t, UINT32_MAX);
                uint8_t *p = (uint8_t *)(t->arena + rec + 1);
                p[0] = (uint8_t)len;
                memcpy(p + 1, body, len);
            }
            uint64_t want = (uint64_t)hash << 32 | ((uint64_t)rec + 1);
            if (__atomic_compare_exchange_n(&t->slots[i], &s, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&t->arena[rec], word, __ATOMIC_RELEASE);
                if (++t->pending >= SV_COUNT_BATCH) count_pending(t);
                *at = rec;
                return 1;
            }
            /* lost the slot: s is the winner's, compared below */
        }
        if ((uint32_t)(s >> 32) == hash && same_body(t, (uint32_t)s - 1, body, len)) {
            uint32_t w = __atomic_load_n(&t->arena[(uint32_t)s - 1], __ATOMIC_ACQUIRE);
            if (w == SV_GONE) continue; /* (a claim given up: probe on for a live record, or room) */
            if (rec != UINT32_MAX) __atomic_store_n(&t->arena[rec], SV_DEAD, __ATOMIC_RELEASE);
            *seen = w;
            return 0;
        }
    }
    return no_room(t, rec);
}

int shared_add(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value) {
    if (len >= 255 || value < 0 || value == INT32_MAX) return no_room(t, UINT32_MAX); /* (not for this table) */
    uint32_t seen, at;
    return insert(t, body, len, hash, (uint32_t)value + 1, &seen, &at);
}

int shared_claim(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t *value,
                 uint32_t *at) {
    if (len >= 255) return -1;
    uint32_t seen;
    int rc = insert(t, body, len, hash, SV_CLAIM, &seen, at);
    if (rc != 0) return rc < 0 ? -1 : SV_MINE;
    if (seen == 0 || seen == SV_CLAIM) return SV_THEIRS;
    *value = (int32_t)(seen - 1);
    return SV_KNOWN;
}

void shared_settle(SharedValuesObject *t, uint32_t at, int32_t value) {
    __atomic_store_n(&t->arena[at], (uint32_t)value + 1, __ATOMIC_RELEASE);
}

void shared_abandon(SharedValuesObject *t, uint32_t at) { __atomic_store_n(&t->arena[at], SV_GONE, __ATOMIC_RELEASE); }

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

static int SharedValues_init(SharedValuesObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"buffer", "code", "version", "slots", NULL};
    PyObject *buffer;
    int code, version;
    unsigned long long slots = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oii|K", names, &buffer, &code, &version, &slots)) return -1;
    if (self->view.buf) {
        PyErr_SetString(PyExc_RuntimeError, "SharedValues is initialised once");
        return -1;
    }
    if (PyObject_GetBuffer(buffer, &self->view, PyBUF_WRITABLE) < 0) return -1;
    size_t size = (size_t)self->view.len;
    SvHeader *h = self->view.buf;
    const char *bad = NULL;
    if ((uintptr_t)h % 8) bad = "the buffer is not 8-byte aligned";
    else if (slots) { /* create: the buffer is fresh (zeroed) memory */
        if (slots & (slots - 1)) bad = "slots must be a power of two";
        else if (size < sizeof *h + slots * 8 + 64) bad = "the buffer is too small for its slots";
        else {
            h->code = (uint32_t)code;
            h->version = (uint32_t)version;
            h->nslots = slots;
            h->arena_words = (size - sizeof *h - slots * 8) / 4;
            /* chunks: small enough that the processes' last, partly used ones waste little of
             * the arena (1/64 each), large enough to be reserved rarely; whole cache lines */
            uint64_t c = h->arena_words / SV_CHUNKS;
            h->chunk_words = (c < 128 ? 128 : c > 4096 ? 4096 : c) / 16 * 16;
            __atomic_store_n(&h->magic, SV_MAGIC, __ATOMIC_RELEASE);
        }
    } else if (size < sizeof *h || load(&h->magic) != SV_MAGIC) {
        bad = "the buffer holds no SharedValues table";
    } else if (h->code != (uint32_t)code || h->version != (uint32_t)version) {
        bad = "the table is of another ruleset";
    } else if (size < sizeof *h + h->nslots * 8 + h->arena_words * 4) {
        bad = "the buffer is shorter than its table";
    } else if (h->chunk_words < table_record_words(254) || h->chunk_words % 16) {
        bad = "the table's chunks are not of a size it makes";
    }
    if (bad) {
        PyBuffer_Release(&self->view);
        self->view.buf = NULL;
        PyErr_SetString(PyExc_ValueError, bad);
        return -1;
    }
    self->head = h;
    self->slots = (uint64_t *)(h + 1);
    self->arena = (uint32_t *)(self->slots + h->nslots);
    self->mask = h->nslots - 1;
    self->code = code;
    self->version = version;
    self->chunk_words = h->chunk_words;
    self->arena_end = h->arena_words < UINT32_MAX - 1 ? h->arena_words : UINT32_MAX - 1; /* (slots hold offset + 1 in 32 bits) */
    self->limit = h->nslots / 4 * 3;
    static int watching; /* (under the GIL) */
    if (!watching && pthread_atfork(NULL, NULL, forked) == 0) watching = 1;
    self->forks = forks;
    return 0;
}

static int ready(SharedValuesObject *t) {
    if (t->head) return 0;
    PyErr_SetString(PyExc_ValueError, "SharedValues is not initialised");
    return -1;
}

static void SharedValues_dealloc(SharedValuesObject *self) {
    if (self->head) shared_seal(self); /* (the memory is still held) */
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
    if (at >= self->arena_end || __atomic_load_n(&self->arena[at], __ATOMIC_ACQUIRE) != SV_CLAIM) {
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

/* The values published from arena word *at on, sorted by key (the store takes its batches sorted,
 * see store_bulk._split), in *n (freed by the caller): each a body and its value word (nim value +
 * 1) as rec; *at becomes where the next drain starts. NULL with an exception on no memory, or
 * with *n = 0. */
static Sortable *collect(SharedValuesObject *self, unsigned long long *at_, size_t *n_) {
    unsigned long long at = *at_;
    uint64_t end = load(&self->head->next);
    if (end > self->arena_end) end = self->arena_end; /* (a failed reservation passes it) */
    Sortable *found = NULL;
    size_t n = 0, cap = 0;
    while (at < end) {
        uint32_t w = __atomic_load_n(&self->arena[at], __ATOMIC_ACQUIRE);
        if (w == 0 || w == SV_CLAIM) break; /* being written, published or searched, or a chunk's open rest: the
                                             * next drain resumes here */
        if (w == SV_SKIP) { /* the rest of the chunk is empty */
            at = (at / self->chunk_words + 1) * self->chunk_words;
            continue;
        }
        const uint8_t *p = (const uint8_t *)(self->arena + at + 1);
        if (w != SV_DEAD && w != SV_GONE) {
            if (n == cap) {
                cap = cap ? 2 * cap : 4096;
                Sortable *more = realloc(found, cap * sizeof *found);
                if (!more) {
                    free(found);
                    PyErr_NoMemory();
                    return NULL;
                }
                found = more;
            }
            found[n++] = (Sortable){body_head(p + 1, p[0]), p + 1, p[0], w};
        }
        at += table_record_words(p[0]);
    }
    if (sort_by_body(found, n) < 0) {
        free(found);
        PyErr_NoMemory();
        return NULL;
    }
    *at_ = at;
    *n_ = n;
    return found;
}

/* drain(start) -> (entries, next): the values published from arena word start on, as (key,
 * value) pairs sorted by key, and where the next drain starts. */
static PyObject *SharedValues_drain(SharedValuesObject *self, PyObject *arg) {
    if (ready(self) < 0) return NULL;
    unsigned long long at = PyLong_AsUnsignedLongLong(arg);
    if (at == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    size_t n = 0;
    Sortable *found = collect(self, &at, &n);
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

/* drain_packed(start) -> (frame, next): drain's values as one bytes object, packed as
 * ruma.server.store_writer.pack packs a batch — count (u32), key lengths (u16 each), codes 2n
 * (u64 each), little-endian, then the keys — which the store hands to its writer process as they
 * are (LmdbStore.insert_packed): a sweep's driver then builds no Python object per value. */
static PyObject *SharedValues_drain_packed(SharedValuesObject *self, PyObject *arg) {
    if (ready(self) < 0) return NULL;
    unsigned long long at = PyLong_AsUnsignedLongLong(arg);
    if (at == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    size_t n = 0, bodies = 0;
    Sortable *found = collect(self, &at, &n);
    if (!found && PyErr_Occurred()) return NULL;
    for (size_t k = 0; k < n; k++) bodies += found[k].len;
    PyObject *frame = n <= UINT32_MAX ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)frame_size(n, bodies)) : NULL;
    if (frame) {
        Packed f = frame_start((uint8_t *)PyBytes_AS_STRING(frame), n, self->code, self->version);
        for (size_t k = 0; k < n; k++) frame_put(&f, k, found[k].body, found[k].len, (int32_t)(found[k].rec - 1));
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_OverflowError, "too many values for one packed batch");
    }
    free(found);
    if (!frame) return NULL;
    return Py_BuildValue("(NK)", frame, at);
}

/* The keys published: the header's count and this process's keys not yet in it (the other
 * processes' show once they add theirs: every SV_COUNT_BATCH keys, and when they seal). */
static uint64_t entries(SharedValuesObject *t) {
    own(t);
    return __atomic_load_n(&t->head->count, __ATOMIC_RELAXED) + t->pending;
}

static PyObject *SharedValues_stats(SharedValuesObject *self, PyObject *Py_UNUSED(ignored)) {
    if (ready(self) < 0) return NULL;
    SvHeader *h = self->head;
    return Py_BuildValue("{sKsKsKsKsOsKsOsKsK}", "entries", (unsigned long long)entries(self),
                         "slots", (unsigned long long)h->nslots, "arena_words", (unsigned long long)h->arena_words,
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
     "drain_packed(start) -> (frame, next): drain's values packed as ruma.server.store_writer.pack packs a batch."},
    {"seal", (PyCFunction)SharedValues_seal, METH_NOARGS,
     "seal(): this process adds no more for now: the drain may pass its chunk of the arena, and its keys are "
     "counted (call it when done adding, before the last drain; the dealloc does; the next add takes a new chunk)."},
    {"stats", (PyCFunction)SharedValues_stats, METH_NOARGS,
     "entries (this process's and those other processes counted: every 64 adds and at their seal), slots, "
     "arena_words, words_used, full, claimed, cancelled, total, chunk_words."},
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
    .tp_doc = "SharedValues(buffer, code, version, slots=0): nim values shared by processes (shared.c); one "
               "object a process. len(): the keys published (other processes' counted every 64 adds and at their seal).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)SharedValues_init,
    .tp_methods = SharedValues_methods,
    .tp_as_sequence = &SharedValues_as_sequence,
};
