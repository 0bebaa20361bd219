/* shared_games.c — SharedGames: a content-addressed table of canonical forms in shared memory.
 *
 * Why. A partizan sweep's workers each have their own game kernel (arena.h): ids are per process.
 * To share values as SharedValues shares nim values, a value is published as a node of this table,
 * which every process maps: the node's options are shared ids of the nodes before it, so equal
 * canonical forms are one node whichever process published them first. A process translates its
 * ids to shared ids when it publishes (its game's followers first) and back when it reads; a
 * node read is canonical, so it is adopted into the local kernel as it is (kernel: g_adopt, a
 * hash-cons lookup, or the number and nimber fast paths for a node the kernel has not met) — no
 * comparison of options, no re-canonicalisation.
 *
 * Layout (in a buffer the caller maps into every process, see ruma.client.sweep.shared_memory):
 *     header (128 bytes), then slots (uint64 each, a power of two of them), then the arena
 *     (4-byte words, to the end of the buffer).
 * A slot holds 32 bits of the node's hash (high half) and its record's word offset + 1 (low half;
 * 0 = empty). A record is [nl][nr][kind][up][star][x low][x high] then nl + nr option words: the
 * shared ids of Left's options, sorted, then Right's; kind 1 when the node is x + up.^ + *star with
 * x a small number (dyadic.h: x * 2^32 in the two x words), else 0. A node's shared id is its
 * record's offset (below 2^31: it fits a SharedValues value). Records are never moved nor removed.
 *
 * Concurrency, lock-free as in shared.c: each process writes records in a chunk of the arena of its
 * own (reserved with one fetch-add on the header's `next`; a record too long for a chunk takes its
 * words alone), then claims an empty slot with a compare-and-swap (release); a reader
 * acquire-loads the slot, so the record it points to is whole. A lost CAS shows the winner: the
 * same node (ours is left unused, its words wasted) or another (probe on). A value published in
 * SharedValues after its node (release) is read with acquire, so its node is visible too. Full
 * (arena spent or slots 3/4 full): games_to_shared returns 1 and the header's `full` is set; the
 * worker keeps such values and sends them the way values go between machines.
 */
#include "shared_games.h"
#include "shared.h"
#include "gkernel.h"
#include "kernel.h"

#include <pthread.h>

#define SG_MAGIC 0x31304753414d5552ULL /* "RUMASG01" little-endian */
#define SG_RECORD 7                    /* words of a record before its options */
#define SG_BATCH 64                    /* nodes added between two adds to the header's count */

struct SgHeader {
    uint64_t magic;
    uint64_t nslots;      /* a power of two */
    uint64_t arena_words; /* words after the slots */
    uint64_t next;        /* atomic: arena words reserved so far */
    uint64_t count;       /* atomic: nodes added */
    uint64_t full;        /* atomic: 1 once a node found no room */
    uint64_t chunk_words;
    uint64_t unused[9]; /* (the header is 128 bytes) */
};

static unsigned forks;
static void forked(void) { forks++; }

static inline uint64_t load(uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* A chunk taken before a fork is the parent's: the child starts afresh (shared.c does the same). */
static void own(SharedGamesObject *g) {
    if (__builtin_expect(g->forks != forks, 0)) {
        g->chunk_at = g->chunk_end = g->pending = 0;
        g->forks = forks;
    }
}

static void count_pending(SharedGamesObject *g) {
    if (g->pending) __atomic_fetch_add(&g->head->count, g->pending, __ATOMIC_RELAXED);
    g->pending = 0;
}

static int no_room(SharedGamesObject *g) {
    if (!__atomic_load_n(&g->head->full, __ATOMIC_RELAXED)) __atomic_store_n(&g->head->full, 1, __ATOMIC_RELAXED);
    return 1;
}

/* The offset of `words` words for a record, or UINT32_MAX when the arena has no room. */
static uint32_t take_words(SharedGamesObject *g, uint64_t words) {
    if (words > g->chunk_words / 4) { /* a long record: its own words */
        uint64_t at = __atomic_fetch_add(&g->head->next, words, __ATOMIC_RELAXED);
        return at + words <= g->arena_end ? (uint32_t)at : UINT32_MAX;
    }
    if (g->chunk_at + words > g->chunk_end) {
        if (__atomic_load_n(&g->head->next, __ATOMIC_RELAXED) >= g->arena_end) return UINT32_MAX;
        uint64_t start = __atomic_fetch_add(&g->head->next, g->chunk_words, __ATOMIC_RELAXED);
        if (start + words > g->arena_end) return UINT32_MAX;
        g->chunk_at = start;
        g->chunk_end = start + g->chunk_words < g->arena_end ? start + g->chunk_words : g->arena_end;
    }
    uint64_t at = g->chunk_at;
    g->chunk_at += words;
    return (uint32_t)at;
}

static int same(const SharedGamesObject *g, uint32_t at, const uint32_t *rec, size_t words) {
    return at + words <= g->arena_end && memcmp(g->arena + at, rec, 2 * sizeof *rec) == 0 &&
           memcmp(g->arena + at + SG_RECORD, rec + SG_RECORD, (words - SG_RECORD) * sizeof *rec) == 0;
}

/* The node of record rec (its options' shared ids sorted): 0 and *sid, 1 no room. */
static int find_or_add(SharedGamesObject *g, const uint32_t *rec, size_t words, uint32_t *sid) {
    uint32_t hash = arena_hash((const int32_t *)rec + SG_RECORD, rec[0], (const int32_t *)rec + SG_RECORD + rec[0], rec[1]);
    own(g);
    uint64_t mask = g->mask, limit = (mask + 1) / 4 * 3;
    uint32_t at = UINT32_MAX;
    for (uint64_t i = hash & mask, probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
        uint64_t s = load(&g->slots[i]);
        if (!s) {
            if (at == UINT32_MAX) { /* reserve and write the record once, before claiming a slot */
                if (__atomic_load_n(&g->head->count, __ATOMIC_RELAXED) + g->pending >= limit) return no_room(g);
                at = take_words(g, words);
                if (at == UINT32_MAX) return no_room(g);
                memcpy(g->arena + at, rec, words * sizeof *rec);
            }
            uint64_t want = (uint64_t)hash << 32 | ((uint64_t)at + 1);
            if (__atomic_compare_exchange_n(&g->slots[i], &s, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                if (++g->pending >= SG_BATCH) count_pending(g);
                *sid = at;
                return 0;
            }
        }
        if ((uint32_t)(s >> 32) == hash && same(g, (uint32_t)s - 1, rec, words)) {
            *sid = (uint32_t)s - 1; /* (a record of ours written for it stays unused) */
            return 0;
        }
    }
    return no_room(g);
}

/* ---------------------------------------------------------------------------------------- */
/* this process's translations                                                               */

static int local_get(const SharedGamesObject *g, uint32_t sid, int32_t *local) {
    if (!g->to_local) return 0;
    uint64_t key = (uint64_t)sid + 1;
    for (size_t i = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 20) & g->local_mask;; i = (i + 1) & g->local_mask) {
        uint64_t s = g->to_local[i];
        if (!s) return 0;
        if (s >> 32 == key) {
            *local = (int32_t)(uint32_t)s;
            return 1;
        }
    }
}

static int remember(SharedGamesObject *g, uint32_t sid, int32_t local) {
    if ((size_t)local >= g->to_shared_cap) {
        size_t cap = g->to_shared_cap ? g->to_shared_cap : 1024;
        while (cap <= (size_t)local) cap *= 2;
        uint32_t *v = realloc(g->to_shared, cap * sizeof *v);
        if (!v) goto nomem;
        memset(v + g->to_shared_cap, 0, (cap - g->to_shared_cap) * sizeof *v);
        g->to_shared = v;
        g->to_shared_cap = cap;
    }
    if (!g->to_shared[local]) g->to_shared[local] = sid + 1;
    if (!g->to_local || (g->local_count + 1) * 2 > g->local_mask + 1) {
        size_t size = g->to_local ? (g->local_mask + 1) * 2 : 1024;
        uint64_t *fresh = calloc(size, sizeof *fresh);
        if (!fresh) goto nomem;
        for (size_t j = 0; g->to_local && j <= g->local_mask; j++) {
            uint64_t s = g->to_local[j];
            if (!s) continue;
            size_t at = (size_t)((s >> 32) * 0x9E3779B97F4A7C15ULL >> 20) & (size - 1);
            while (fresh[at]) at = (at + 1) & (size - 1);
            fresh[at] = s;
        }
        free(g->to_local);
        g->to_local = fresh;
        g->local_mask = size - 1;
    }
    uint64_t key = (uint64_t)sid + 1;
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 20) & g->local_mask;
    while (g->to_local[i]) {
        if (g->to_local[i] >> 32 == key) return 0;
        i = (i + 1) & g->local_mask;
    }
    g->to_local[i] = key << 32 | (uint32_t)local;
    g->local_count++;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

static int push(SharedGamesObject *g, size_t *n, int32_t x) {
    if (ids_grow(&g->stack, &g->stack_cap, *n + 1) < 0) return -1;
    g->stack[(*n)++] = x;
    return 0;
}

static uint32_t shared_of(const SharedGamesObject *g, int32_t local) {
    return (size_t)local < g->to_shared_cap ? g->to_shared[local] : 0;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int games_to_shared(SharedGamesObject *g, int32_t local, int32_t *sid) {
    uint32_t known = shared_of(g, local);
    if (known) {
        *sid = (int32_t)(known - 1);
        return 0;
    }
    size_t n = 0, cap = 0;
    uint32_t *rec = NULL;
    int rc = push(g, &n, local);
    while (rc == 0 && n) { /* depth first: a node once its options are published */
        int32_t t = g->stack[n - 1];
        if (shared_of(g, t)) {
            n--;
            continue;
        }
        const GNode *node_t = node(t);
        size_t before = n, words = SG_RECORD + node_t->nl + node_t->nr;
        for (uint32_t k = 0; k < node_t->nl + node_t->nr && rc == 0; k++)
            if (!shared_of(g, node_t->opts[k])) rc = push(g, &n, node_t->opts[k]);
        if (rc || n > before) continue;
        if (words > cap) {
            uint32_t *r = realloc(rec, words * sizeof *r);
            if (!r) {
                rc = -1;
                PyErr_NoMemory();
                break;
            }
            rec = r;
            cap = words;
        }
        int small_nus = (node_t->flags & G_NUS) && !(node_t->flags & G_WIDE_LS);
        rec[0] = node_t->nl;
        rec[1] = node_t->nr;
        rec[2] = (uint32_t)small_nus;
        rec[3] = small_nus ? (uint32_t)node_t->up : 0;
        rec[4] = small_nus ? node_t->star : 0;
        rec[5] = small_nus ? (uint32_t)(uint64_t)node_t->ls : 0;
        rec[6] = small_nus ? (uint32_t)((uint64_t)node_t->ls >> 32) : 0;
        for (uint32_t k = 0; k < node_t->nl + node_t->nr; k++) rec[SG_RECORD + k] = shared_of(g, node_t->opts[k]) - 1;
        qsort(rec + SG_RECORD, node_t->nl, sizeof *rec, cmp_u32);
        qsort(rec + SG_RECORD + node_t->nl, node_t->nr, sizeof *rec, cmp_u32);
        uint32_t at;
        rc = find_or_add(g, rec, words, &at);
        if (rc == 0) rc = remember(g, at, t);
        n--;
        g->published++;
    }
    free(rec);
    if (rc) return rc;
    *sid = (int32_t)(shared_of(g, local) - 1);
    return 0;
}

/* The record of node t, its bounds and options checked (each names another node); NULL with a
 * ValueError for a shared id that names no node, or a damaged record. */
static const uint32_t *node_record(const SharedGamesObject *g, uint32_t t) {
    const uint32_t *rec = g->arena + t;
    if ((uint64_t)t + SG_RECORD > g->arena_end || (uint64_t)t + SG_RECORD + rec[0] + rec[1] > g->arena_end) {
        PyErr_Format(PyExc_ValueError, "shared game id %u names no node of the table", t);
        return NULL;
    }
    for (size_t k = 0; k < (size_t)rec[0] + rec[1]; k++) {
        uint32_t o = rec[SG_RECORD + k];
        if (o == t || o > INT32_MAX) { /* (a node cannot be its own follower) */
            PyErr_Format(PyExc_ValueError, "shared game node %u names itself or no node as an option", t);
            return NULL;
        }
    }
    return rec;
}

int games_to_local(SharedGamesObject *g, int32_t sid, int32_t *local) {
    if (local_get(g, (uint32_t)sid, local)) return 0;
    size_t n = 0;
    int rc = push(g, &n, sid);
    while (rc == 0 && n) { /* depth first: a node once its options are adopted */
        uint32_t t = (uint32_t)g->stack[n - 1];
        int32_t found;
        if (local_get(g, t, &found)) {
            n--;
            continue;
        }
        const uint32_t *rec = node_record(g, t);
        if (!rec) return -1;
        size_t before = n, m = rec[0] + rec[1];
        for (size_t k = 0; k < m && rc == 0; k++)
            if (!local_get(g, rec[SG_RECORD + k], &found)) rc = push(g, &n, (int32_t)rec[SG_RECORD + k]);
        if (rc || n > before) continue;
        int32_t stack_ids[64], *ids = m <= 64 ? stack_ids : malloc(m * sizeof *ids);
        if (!ids) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t k = 0; k < m; k++) local_get(g, rec[SG_RECORD + k], &ids[k]);
        if (rec[2]) {
            Num x = num_small((int64_t)((uint64_t)rec[5] | (uint64_t)rec[6] << 32));
            rc = g_nus_id(x, (int32_t)rec[3], rec[4], &found);
        } else {
            rc = g_adopt(ids, rec[0], ids + rec[0], rec[1], &found);
        }
        if (ids != stack_ids) free(ids);
        if (rc == 0) rc = remember(g, t, found);
        n--;
        g->adopted++;
    }
    if (rc) return rc;
    local_get(g, (uint32_t)sid, local);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* the Python type                                                                           */

static int SharedGames_init(SharedGamesObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"buffer", "slots", NULL};
    PyObject *buffer;
    unsigned long long slots = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|K", names, &buffer, &slots)) return -1;
    if (shared_buffer_take(&self->view, buffer, "SharedGames") < 0) return -1;
    size_t size = (size_t)self->view.len;
    SgHeader *h = self->view.buf;
    const char *bad = NULL;
    if (slots) { /* create: the buffer is fresh (zeroed) memory */
        if (slots & (slots - 1)) bad = "slots must be a power of two";
        else if (size < sizeof *h + slots * 8 + 4096) bad = "the buffer is too small for its slots";
        else {
            h->nslots = slots;
            h->arena_words = (size - sizeof *h - slots * 8) / 4;
            uint64_t c = h->arena_words / 64;
            h->chunk_words = (c < 256 ? 256 : (c > 8192 ? 8192 : c)) / 16 * 16;
            __atomic_store_n(&h->magic, SG_MAGIC, __ATOMIC_RELEASE);
        }
    } else if (size < sizeof *h || load(&h->magic) != SG_MAGIC) {
        bad = "the buffer holds no SharedGames table";
    } else if (size < sizeof *h + h->nslots * 8 + h->arena_words * 4 || h->chunk_words < 256) {
        bad = "the buffer is shorter than its table";
    }
    if (bad) return shared_buffer_refuse(&self->view, bad);
    self->head = h;
    self->slots = (uint64_t *)(h + 1);
    self->arena = (uint32_t *)(self->slots + h->nslots);
    self->mask = h->nslots - 1;
    self->chunk_words = h->chunk_words;
    self->arena_end = h->arena_words < INT32_MAX - 1 ? h->arena_words : INT32_MAX - 1; /* (ids fit an int32) */
    static int watching; /* (under the GIL) */
    if (!watching && pthread_atfork(NULL, NULL, forked) == 0) watching = 1;
    self->forks = forks;
    return 0;
}

static int ready(SharedGamesObject *g) {
    if (g->head) return 0;
    PyErr_SetString(PyExc_ValueError, "SharedGames is not initialised");
    return -1;
}

static void SharedGames_dealloc(SharedGamesObject *self) {
    if (self->head) {
        own(self);
        count_pending(self);
    }
    if (self->view.buf) PyBuffer_Release(&self->view);
    free(self->to_shared);
    free(self->to_local);
    free(self->stack);
    free(self->exported);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *SharedGames_publish(SharedGamesObject *self, PyObject *arg) {
    long v = PyLong_AsLong(arg);
    if (ready(self) < 0 || (v == -1 && PyErr_Occurred())) return NULL;
    if (v < 0 || v >= kernel_count()) return PyErr_Format(PyExc_IndexError, "no game with id %ld", v);
    int32_t sid;
    int rc = games_to_shared(self, (int32_t)v, &sid);
    if (rc < 0) return NULL;
    if (rc > 0) Py_RETURN_NONE;
    return PyLong_FromLong(sid);
}

static PyObject *SharedGames_local(SharedGamesObject *self, PyObject *arg) {
    long v = PyLong_AsLong(arg);
    if (ready(self) < 0 || (v == -1 && PyErr_Occurred())) return NULL;
    int32_t local;
    if (v < 0 || v > INT32_MAX || games_to_local(self, (int32_t)v, &local) < 0) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "shared game id %ld names no node of the table", v);
        return NULL;
    }
    return PyLong_FromLong(local);
}

/* games(pairs) -> the (key, Game) pairs of (key, shared id) pairs (a drain of SharedValues). */
static PyObject *SharedGames_games(SharedGamesObject *self, PyObject *pairs) {
    if (ready(self) < 0) return NULL;
    PyObject *seq = PySequence_Fast(pairs, "games takes a sequence of (key, shared id) pairs");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t k = 0; out && k < n; k++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, k), *key = NULL, *sid = NULL;
        int32_t local;
        long v;
        PyObject *game = NULL;
        if (PyTuple_CheckExact(pair) && PyTuple_GET_SIZE(pair) == 2) /* (the usual case, without parsing) */
            key = PyTuple_GET_ITEM(pair, 0), sid = PyTuple_GET_ITEM(pair, 1);
        else
            PyArg_ParseTuple(pair, "OO;games takes (key, shared id) pairs", &key, &sid);
        if (sid && ((v = PyLong_AsLong(sid)) != -1 || !PyErr_Occurred()) && v >= 0 && v <= INT32_MAX &&
            games_to_local(self, (int32_t)v, &local) == 0)
            game = kernel_handle(local);
        else if (sid && !PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "shared game id %R names no node of the table", sid);
        PyObject *item = game ? PyTuple_Pack(2, key, game) : NULL;
        Py_XDECREF(game);
        if (item) PyObject_GC_UnTrack(item); /* (a key and a Game: never in a cycle; see search_memo.c) */
        if (!item) Py_CLEAR(out);
        else PyList_SET_ITEM(out, k, item);
    }
    Py_DECREF(seq);
    return out;
}

/* ---------------------------------------------------------------------------------------- */
/* export: the nodes a sweep's driver hands to the store's writer process                      */

static int exported_has(const SharedGamesObject *g, uint32_t sid) {
    if (!g->exported) return 0;
    uint32_t key = sid + 1;
    for (size_t i = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 24) & g->exported_mask;; i = (i + 1) & g->exported_mask) {
        uint32_t s = g->exported[i];
        if (!s) return 0;
        if (s == key) return 1;
    }
}

static int exported_add(SharedGamesObject *g, uint32_t sid) {
    if (!g->exported || (g->exported_count + 1) * 2 > g->exported_mask + 1) {
        size_t size = g->exported ? (g->exported_mask + 1) * 2 : 4096;
        uint32_t *fresh = calloc(size, sizeof *fresh);
        if (!fresh) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t j = 0; g->exported && j <= g->exported_mask; j++) {
            uint32_t s = g->exported[j];
            if (!s) continue;
            size_t at = (size_t)(s * 0x9E3779B97F4A7C15ULL >> 24) & (size - 1);
            while (fresh[at]) at = (at + 1) & (size - 1);
            fresh[at] = s;
        }
        free(g->exported);
        g->exported = fresh;
        g->exported_mask = size - 1;
    }
    uint32_t key = sid + 1;
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 24) & g->exported_mask;
    while (g->exported[i]) {
        if (g->exported[i] == key) return 0;
        i = (i + 1) & g->exported_mask;
    }
    g->exported[i] = key;
    g->exported_count++;
    return 0;
}

/* Append a little-endian u32 to out (*n words used of *cap); -1 on no memory. */
static int out_word(uint8_t **out, size_t *n, size_t *cap, uint32_t w) {
    if (*n == *cap) {
        size_t more = *cap ? 2 * *cap : 4096;
        uint8_t *grown = realloc(*out, more * 4);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        *out = grown;
        *cap = more;
    }
    uint8_t *p = *out + 4 * (*n)++;
    p[0] = (uint8_t)w, p[1] = (uint8_t)(w >> 8), p[2] = (uint8_t)(w >> 16), p[3] = (uint8_t)(w >> 24);
    return 0;
}

/* export(codes) -> bytes: the nodes that the values with these codes (a buffer of u64 codes 2s,
 * s a shared id, as SharedValues.drain_packed packs a partizan table's values) need and that no
 * export gave since the last forget(), followers first, as little-endian u32 words
 * [shared id][nl][nr][the options' shared ids: Left's, then Right's] each. */
static PyObject *SharedGames_export(SharedGamesObject *self, PyObject *arg) {
    if (ready(self) < 0) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    if (view.len % 8) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "export takes u64 codes, not %zd bytes", view.len);
    }
    const uint8_t *codes = view.buf;
    size_t count = (size_t)view.len / 8, n_out = 0, cap_out = 0, n = 0;
    uint8_t *out = NULL;
    int rc = 0;
    for (size_t c = 0; rc == 0 && c < count; c++) {
        uint64_t code = 0;
        for (int b = 7; b >= 0; b--) code = code << 8 | codes[8 * c + (size_t)b];
        if ((code & 1) || (code >> 1) > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "code %llu names no shared game", (unsigned long long)code);
            rc = -1;
            break;
        }
        uint32_t first = (uint32_t)(code >> 1);
        if (exported_has(self, first)) continue;
        rc = push(self, &n, (int32_t)first);
        while (rc == 0 && n) { /* depth first: a node once its options are given */
            uint32_t t = (uint32_t)self->stack[n - 1];
            if (exported_has(self, t)) {
                n--;
                continue;
            }
            const uint32_t *rec = node_record(self, t);
            if (!rec) {
                rc = -1;
                break;
            }
            size_t before = n, m = rec[0] + rec[1];
            for (size_t k = 0; k < m && rc == 0; k++)
                if (!exported_has(self, rec[SG_RECORD + k])) rc = push(self, &n, (int32_t)rec[SG_RECORD + k]);
            if (rc || n > before) continue;
            rc = out_word(&out, &n_out, &cap_out, t);
            for (size_t k = 0; k < 2 && rc == 0; k++) rc = out_word(&out, &n_out, &cap_out, rec[k]);
            for (size_t k = 0; k < m && rc == 0; k++) rc = out_word(&out, &n_out, &cap_out, rec[SG_RECORD + k]);
            if (rc == 0) rc = exported_add(self, t);
            n--;
        }
    }
    PyBuffer_Release(&view);
    PyObject *result = rc ? NULL : PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(4 * n_out));
    free(out);
    return result;
}

static PyObject *SharedGames_forget(SharedGamesObject *self, PyObject *unused) {
    (void)unused;
    free(self->exported);
    self->exported = NULL;
    self->exported_mask = self->exported_count = 0;
    Py_RETURN_NONE;
}

static PyObject *SharedGames_stats(SharedGamesObject *self, PyObject *unused) {
    (void)unused;
    if (ready(self) < 0) return NULL;
    own(self);
    SgHeader *h = self->head;
    return Py_BuildValue("{sKsKsisKsKsLsL}", "nodes", (unsigned long long)load(&h->count) + self->pending, "slots",
                         (unsigned long long)h->nslots, "full", (int)load(&h->full), "words_used",
                         (unsigned long long)load(&h->next), "words", (unsigned long long)h->arena_words, "published",
                         self->published, "adopted", self->adopted);
}

static PyMethodDef SharedGames_methods[] = {
    {"publish", (PyCFunction)SharedGames_publish, METH_O,
     "publish(game id) -> its shared id (publishing its followers as needed), or None when the table is full."},
    {"local", (PyCFunction)SharedGames_local, METH_O, "local(shared id) -> this process's game id of that node."},
    {"games", (PyCFunction)SharedGames_games, METH_O, "games(pairs) -> (key, Game) pairs of (key, shared id) pairs."},
    {"export", (PyCFunction)SharedGames_export, METH_O,
     "export(codes) -> bytes: the nodes the values of these u64 codes (2 * shared id) need that no export gave since "
     "forget(), followers first, as u32 words [shared id][nl][nr][options] each."},
    {"forget", (PyCFunction)SharedGames_forget, METH_NOARGS, "forget(): export gives every node again."},
    {"stats", (PyCFunction)SharedGames_stats, METH_NOARGS, "stats() -> nodes, slots, full, words used, ..."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject SharedGames_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.engine.native._core.SharedGames",
    .tp_basicsize = sizeof(SharedGamesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SharedGames(buffer, slots=0): canonical forms in memory a sweep's processes share "
              "(shared_games.c); slots > 0 creates the table.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)SharedGames_init,
    .tp_dealloc = (destructor)SharedGames_dealloc,
    .tp_methods = SharedGames_methods,
};
