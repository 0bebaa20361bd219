/* store/lmdb.c — store._native.Writer: the store's writer process's transactions, in C on LMDB.
 *
 * The writer process (server/store/writer.py) writes the bulk batches a store sends it: batch
 * frames of sorted keys with their value codes (the engine's format, engine/native/frame.h). In Python each entry was a tuple of two
 * bytes objects (and, before schema 3, another for an index), handed to py-lmdb's putmulti, which
 * releases and retakes the GIL around every put: about half of the process's time went to that
 * (py-spy on a replay of a cold run's frames), the other half to LMDB's B-tree puts and commits.
 * Here a group of frames is one transaction of mdb_cursor_put calls over records built in place,
 * with the GIL released, on the LMDB that py-lmdb bundles (third_party/lmdb: py-lmdb exports no C
 * API, and the same sources mean one lock-file and data format for every process on a store).
 *
 * What a group writes is what BulkOps.write_codes writes for each of its frames, in one
 * transaction (tests/store/test_store_lmdb.py compares every table): positions records key ->
 * varint(code) 00 crc32c (overwrite=False: the first value stored stays; one B-tree entry a
 * position, schema 3), entry counts per ruleset prefix in meta (with the ruleset's name for a new
 * one) and engine_version. A key past the last key the table holds goes through LMDB's append
 * path (MDB_APPEND: the page it fills is split at its end, not halfway), as a frame's sorted keys
 * do once they pass the end of the table. A shared frame (ruma.engine.frame.pack_shared: a partizan
 * sweep's drain, its values ids of the sweep's SharedGames nodes) first has its nodes interned
 * into games and game_index in the same transaction (interning.c; store.games.put_exported in
 * Python, tests/store/test_store_shared_frames.py), then its records built from their store ids; the
 * session's ids a transaction added are dropped if it aborts. A full map is grown (doubled) and the group retried; a map another process
 * grew is adopted. This process must not also open the store with py-lmdb: LMDB allows one
 * environment per file per process (its locks are per process).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "interning.h"
#include "lmdb.h"
#include "records.h"

#define MAX_DBS 8        /* as store.core opens the environment: its six tables and room */
#define MAX_READERS 254
#define COUNT_PREFIX "count/"
#define RULESET_PREFIX "ruleset/"
#define SHARED_FRAME 0xFFFFFFFFu /* ruma.engine.frame.SHARED_FRAME */
#define SHARED_HEAD 16           /* marker (u32), session (u64), words of nodes (u32) */

typedef struct {
    PyObject_HEAD
    MDB_env *env;
    MDB_dbi positions, meta, games, game_index;
    size_t max_key;
    SharedIds shared; /* the session of the shared frames (a partizan sweep's drains) */
    PyObject *engine_version; /* bytes: meta's engine_version once entries are added */
    PyObject *name_of;        /* name_of(code, version) -> bytes: a ruleset's name, for a new count */
} Writer;

/* One frame, prepared for the transaction. */
typedef struct {
    size_t n;
    const uint8_t **keys;
    size_t *key_lens;
    uint8_t (*records)[16]; /* positions payloads: varint(code), 00 (explored), crc32c (4) */
    uint8_t *record_lens;
    /* a shared frame (ruma.engine.frame.pack_shared): its session, its nodes, its codes (2 * shared
     * id: the records are built once the nodes are interned, in the transaction) */
    int shared;
    uint64_t session;
    const uint8_t *nodes, *codes;
    size_t n_words;
} Prepared;

/* Entries added per ruleset prefix (a group has a handful). */
typedef struct {
    uint8_t prefix[2];
    size_t added;
    PyObject *name; /* bytes */
} Count;

typedef struct {
    Prepared *frames;
    size_t n_frames, room; /* (room: the frames it may hold, those joined included) */
    Count *counts;
    size_t n_counts;
    char error[200];
} Group;

static PyObject *WriteError; /* raised for what LMDB or the store reports (a damaged count, ...) */

static void prepared_free(Prepared *p) {
    PyMem_RawFree(p->keys);
    PyMem_RawFree(p->key_lens);
    PyMem_RawFree(p->records);
    PyMem_RawFree(p->record_lens);
}

static Count *count_of(Group *g, const uint8_t *key) {
    for (size_t i = 0; i < g->n_counts; i++)
        if (g->counts[i].prefix[0] == key[0] && g->counts[i].prefix[1] == key[1]) return &g->counts[i];
    Count *grown = PyMem_RawRealloc(g->counts, (g->n_counts + 1) * sizeof *grown);
    if (!grown) return NULL;
    g->counts = grown;
    g->counts[g->n_counts] = (Count){{key[0], key[1]}, 0, NULL};
    return &g->counts[g->n_counts++];
}

/* Read one batch frame (engine/native/frame.h), or a shared frame holding one, into p, building
 * its records; with the GIL. */
static int prepare(Writer *w, Group *g, const uint8_t *buf, size_t size, Prepared *p) {
    if (size >= 4 && (buf[0] & buf[1] & buf[2] & buf[3]) == 0xFF) { /* a shared frame */
        if (size < SHARED_HEAD) goto bad;
        uint64_t session = 0;
        size_t words = (size_t)buf[12] | (size_t)buf[13] << 8 | (size_t)buf[14] << 16 | (size_t)buf[15] << 24;
        for (int b = 7; b >= 0; b--) session = session << 8 | buf[4 + b];
        if (words > (size - SHARED_HEAD) / 4) goto bad;
        p->shared = 1, p->session = session, p->nodes = buf + SHARED_HEAD, p->n_words = words;
        buf += SHARED_HEAD + 4 * words;
        size -= SHARED_HEAD + 4 * words;
    }
    size_t n = frame_count(buf, size);
    if (n == SIZE_MAX) goto bad;
    p->n = n;
    size_t m = n ? n : 1;
    p->keys = PyMem_RawMalloc(m * sizeof *p->keys);
    p->key_lens = PyMem_RawMalloc(m * sizeof *p->key_lens);
    p->records = PyMem_RawMalloc(m * sizeof *p->records);
    p->record_lens = PyMem_RawMalloc(m);
    if (!p->keys || !p->key_lens || !p->records || !p->record_lens) goto no_memory;
    const uint8_t *lens = frame_lengths(buf), *codes = frame_codes(buf, n);
    size_t at = frame_head(n);
    for (size_t i = 0; i < n; i++) {
        size_t len = frame_length(lens, i);
        if (len > size - at) goto bad;
        p->keys[i] = buf + at;
        p->key_lens[i] = len;
        at += len;
        if (len < 3 || len > w->max_key) {
            PyErr_Format(PyExc_ValueError, "a key of %zu bytes in a batch (LMDB keeps keys of 3 to %zu)", len, w->max_key);
            return -1;
        }
    }
    if (at != size) goto bad;
    p->codes = codes;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *k = p->keys[i];
        if (p->shared) { /* (its records once its nodes are interned: build_records) */
            if (!count_of(g, k)) goto no_memory;
            continue;
        }
        size_t nk = p->key_lens[i];
        uint8_t *r = p->records[i];
        size_t nv = put_varint(r, frame_code(codes, i));
        r[nv] = 0; /* explored: 0 */
        put_le32(r + nv + 1, crc32c_two(k, nk, r, nv + 1));
        p->record_lens[i] = (uint8_t)(nv + 5);
        if (!count_of(g, k)) goto no_memory;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "a malformed batch");
    return -1;
no_memory:
    PyErr_NoMemory();
    return -1;
}

/* The meta key count/<prefix> into key (room for 8 bytes); returns its length. */
static size_t count_key(uint8_t *key, const uint8_t prefix[2]) {
    memcpy(key, COUNT_PREFIX, sizeof COUNT_PREFIX - 1);
    memcpy(key + sizeof COUNT_PREFIX - 1, prefix, 2);
    return sizeof COUNT_PREFIX + 1;
}

/* The ruleset name of a new count, asked for with the GIL taken back (*save: the thread state
 * that released it): only a store's first entries of a ruleset need it, and by the time the puts
 * are done the writer process has the names at hand (store.writer imports the rulesets meanwhile). */
static int name_of(Writer *w, Count *c, PyThreadState **save, char *error, size_t room) {
    PyEval_RestoreThread(*save);
    int rc = 0;
    c->name = PyObject_CallFunction(w->name_of, "ii", c->prefix[0], c->prefix[1]);
    if (!c->name || !PyBytes_Check(c->name) || PyBytes_GET_SIZE(c->name) > 200) {
        PyErr_Clear();
        Py_CLEAR(c->name);
        snprintf(error, room, "name_of(%d, %d) did not give a ruleset's name (bytes)", c->prefix[0], c->prefix[1]);
        rc = -1;
    }
    *save = PyEval_SaveThread();
    return rc;
}

/* The last key of the positions table as the puts go (a key past it takes the append path). */
typedef struct {
    uint8_t key[512];
    size_t len; /* 0: the table is empty */
} Last;

/* A shared frame's nodes interned, and its records built from their store ids; 0, an LMDB error
 * or -1 (g->error). */
static int intern_frame(Writer *w, Group *g, Prepared *p, MDB_txn *txn, int64_t *next_game) {
    if (shared_ids_session(&w->shared, p->session) < 0) {
        snprintf(g->error, sizeof g->error, "no memory for a session's ids");
        return -1;
    }
    int rc = intern_nodes(txn, w->games, w->game_index, w->max_key, &w->shared, p->nodes, p->n_words, next_game,
                          g->error, sizeof g->error);
    for (size_t i = 0; !rc && i < p->n; i++) {
        uint64_t code = frame_code(p->codes, i), store_id;
        if ((code & 1) || code >> 1 > UINT32_MAX || !shared_ids_get(&w->shared, (uint32_t)(code >> 1), &store_id)) {
            snprintf(g->error, sizeof g->error, "a value names shared node %llu, never sent", (unsigned long long)(code >> 1));
            return -1;
        }
        uint8_t *r = p->records[i];
        size_t nv = put_varint(r, store_id << 1 | 1);
        r[nv] = 0; /* explored: 0 */
        put_le32(r + nv + 1, crc32c_two(p->keys[i], p->key_lens[i], r, nv + 1));
        p->record_lens[i] = (uint8_t)(nv + 5);
    }
    return rc;
}

/* A prepared frame's puts; 0 or an LMDB error. */
static int put_frame(Group *g, Prepared *p, MDB_cursor *positions, Last *last) {
    int rc = 0;
    Count *c = NULL;
    for (size_t i = 0; !rc && i < p->n; i++) {
        MDB_val k = {p->key_lens[i], (void *)p->keys[i]}, v = {p->record_lens[i], p->records[i]};
        int past = !last->len || bytes_less(last->key, last->len, p->keys[i], p->key_lens[i]);
        rc = mdb_cursor_put(positions, &k, &v, MDB_NOOVERWRITE | (past ? MDB_APPEND : 0));
        if (rc == MDB_KEYEXIST) {
            rc = 0;
            continue;
        }
        if (past && !rc) {
            memcpy(last->key, p->keys[i], p->key_lens[i]);
            last->len = p->key_lens[i];
        }
        if (!c || c->prefix[0] != p->keys[i][0] || c->prefix[1] != p->keys[i][1])
            for (c = g->counts; c->prefix[0] != p->keys[i][0] || c->prefix[1] != p->keys[i][1]; c++) {}
        c->added++;
    }
    return rc;
}

/* With the GIL: the next frame more() gives (None: none waiting) added to the group and held;
 * 1 when one was, 0 when none, -1 with a Python error. */
static int join(Writer *w, Group *g, PyObject *more, PyObject *held) {
    PyObject *frame = PyObject_CallNoArgs(more);
    if (!frame) return -1;
    int rc = frame == Py_None ? 0 : (PyList_Append(held, frame) < 0 ? -1 : 1);
    Py_DECREF(frame);
    if (rc <= 0) return rc;
    if (!PyBytes_Check(frame)) {
        PyErr_SetString(PyExc_TypeError, "more() must give a frame (bytes) or None");
        return -1;
    }
    g->n_frames++;
    return prepare(w, g, (const uint8_t *)PyBytes_AS_STRING(frame), (size_t)PyBytes_GET_SIZE(frame), &g->frames[g->n_frames - 1]) < 0 ? -1 : 1;
}

/* The group's puts in txn, without the GIL (*save), then — up to g->room frames — those that
 * more() has waiting by then (the last frames of an evaluation come close together: one commit
 * for both saves the tail a commit); 0, an LMDB error, -1 (g->error) or -2 (a Python error). */
static int write_group(Writer *w, Group *g, MDB_txn *txn, const char *version, size_t version_len, PyThreadState **save,
                       PyObject *more, PyObject *held) {
    MDB_cursor *positions = NULL;
    Last last = {{0}, 0};
    int rc = mdb_cursor_open(txn, w->positions, &positions);
    if (!rc) {
        MDB_val k, v;
        int found = mdb_cursor_get(positions, &k, &v, MDB_LAST);
        if (found == 0 && k.mv_size <= sizeof last.key) {
            memcpy(last.key, k.mv_data, k.mv_size);
            last.len = k.mv_size;
        } else if (found != MDB_NOTFOUND) {
            rc = found ? found : MDB_BAD_VALSIZE;
        }
    }
    for (size_t c = 0; c < g->n_counts; c++) g->counts[c].added = 0;
    int64_t next_game = -1; /* (read from the games table when a first game is new) */
    for (size_t f = 0; !rc && f < g->n_frames; f++) {
        if (g->frames[f].shared) rc = intern_frame(w, g, &g->frames[f], txn, &next_game);
        if (!rc) rc = put_frame(g, &g->frames[f], positions, &last);
    }
    while (!rc && more != Py_None && g->n_frames < g->room) {
        PyEval_RestoreThread(*save);
        int joined = join(w, g, more, held);
        *save = PyEval_SaveThread();
        if (joined <= 0) {
            rc = joined < 0 ? -2 : 0;
            break;
        }
        Prepared *p = &g->frames[g->n_frames - 1];
        if (p->shared) rc = intern_frame(w, g, p, txn, &next_game);
        if (!rc) rc = put_frame(g, p, positions, &last);
    }
    if (positions) mdb_cursor_close(positions);
    int any = 0;
    for (size_t i = 0; !rc && i < g->n_counts; i++) { /* store.bulk.add_counts */
        Count *c = &g->counts[i];
        if (!c->added) continue;
        any = 1;
        uint8_t key[16], total[8];
        size_t nk = count_key(key, c->prefix);
        MDB_val k = {nk, key}, old;
        uint64_t count = c->added;
        rc = mdb_get(txn, w->meta, &k, &old);
        if (rc == 0) {
            const uint8_t *o = old.mv_data;
            if (old.mv_size != 12 || crc32c_two(key, nk, o, 8) != ((uint32_t)o[8] | (uint32_t)o[9] << 8 | (uint32_t)o[10] << 16 | (uint32_t)o[11] << 24)) {
                snprintf(g->error, sizeof g->error, "a damaged meta record count/%02x%02x (checksum)", c->prefix[0], c->prefix[1]);
                return -1;
            }
            for (int b = 0; b < 8; b++) count += (uint64_t)o[b] << (8 * (7 - b));
        } else if (rc == MDB_NOTFOUND) {
            uint8_t name_key[sizeof RULESET_PREFIX + 2];
            memcpy(name_key, RULESET_PREFIX, sizeof RULESET_PREFIX - 1);
            memcpy(name_key + sizeof RULESET_PREFIX - 1, c->prefix, 2);
            if (!c->name && name_of(w, c, save, g->error, sizeof g->error) < 0) return -1;
            rc = store_put_sealed(txn, w->meta, name_key, sizeof name_key - 1, PyBytes_AS_STRING(c->name), (size_t)PyBytes_GET_SIZE(c->name));
        }
        for (int b = 0; b < 8; b++) total[b] = (uint8_t)(count >> (8 * (7 - b)));
        if (!rc) rc = store_put_sealed(txn, w->meta, key, nk, total, 8);
    }
    if (!rc && any) rc = store_put_sealed(txn, w->meta, "engine_version", 14, version, version_len);
    return rc;
}

/* Writer.write(frames, more=None, most=0) -> int: the frames in one transaction, with those that
 * more() gives (None: no more) after their puts while there are fewer than most; the entries
 * newly stored. */
static PyObject *Writer_write(Writer *w, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"frames", "more", "most", NULL};
    PyObject *frames, *more = Py_None;
    Py_ssize_t most = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|On", names, &PyList_Type, &frames, &more, &most)) return NULL;
    if (!w->env) return PyErr_Format(PyExc_ValueError, "the writer is closed");
    Group g = {0};
    Py_ssize_t n = PyList_GET_SIZE(frames);
    PyObject *held = PyList_GetSlice(frames, 0, n); /* (the frames stay alive while the GIL is released) */
    g.room = (size_t)(most > n ? most : n);
    g.frames = PyMem_RawCalloc(g.room ? g.room : 1, sizeof *g.frames);
    PyObject *result = NULL;
    if (!held || !g.frames) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t f = 0; f < n; f++) {
        PyObject *frame = PyList_GET_ITEM(held, f);
        if (!PyBytes_Check(frame)) {
            PyErr_SetString(PyExc_TypeError, "frames must be a list of bytes");
            goto done;
        }
        g.n_frames++;
        if (prepare(w, &g, (const uint8_t *)PyBytes_AS_STRING(frame), (size_t)PyBytes_GET_SIZE(frame), &g.frames[f]) < 0) goto done;
    }
    int rc;
    const char *version = PyBytes_AS_STRING(w->engine_version);
    size_t version_len = (size_t)PyBytes_GET_SIZE(w->engine_version);
    uint64_t added = 0;
    PyThreadState *save = PyEval_SaveThread();
    for (;;) {
        MDB_txn *txn;
        rc = mdb_txn_begin(w->env, NULL, 0, &txn);
        if (rc == MDB_MAP_RESIZED) { /* another process grew the map: adopt its size (store.core._adopt) */
            rc = mdb_env_set_mapsize(w->env, 0);
            if (!rc) continue;
        }
        if (rc) break;
        rc = write_group(w, &g, txn, version, version_len, &save, more, held);
        if (!rc) {
            rc = mdb_txn_commit(txn);
        } else {
            mdb_txn_abort(txn);
        }
        if (rc) shared_ids_undo(&w->shared); /* (the ids of nodes the transaction interned: gone with it) */
        else shared_ids_settle(&w->shared);
        if (rc == MDB_MAP_FULL) { /* grow the map (store.core._grow: twice the larger of ours and the file's) */
            MDB_envinfo before, after;
            mdb_env_info(w->env, &before);
            rc = mdb_env_set_mapsize(w->env, 0);
            mdb_env_info(w->env, &after);
            size_t size = before.me_mapsize > after.me_mapsize ? before.me_mapsize : after.me_mapsize;
            if (!rc) rc = mdb_env_set_mapsize(w->env, 2 * size);
            if (!rc) continue;
        }
        break;
    }
    for (size_t c = 0; c < g.n_counts; c++) added += g.counts[c].added;
    PyEval_RestoreThread(save);
    if (rc == -2) {
        /* (a joined frame's error, raised by more() or prepare: already set) */
    } else if (rc == -1) {
        PyErr_SetString(WriteError, g.error);
    } else if (rc) {
        PyErr_Format(WriteError, "LMDB: %s", mdb_strerror(rc));
    } else {
        result = PyLong_FromUnsignedLongLong(added);
    }
done:
    for (size_t f = 0; f < g.n_frames; f++) prepared_free(&g.frames[f]);
    for (size_t c = 0; c < g.n_counts; c++) Py_XDECREF(g.counts[c].name);
    PyMem_RawFree(g.frames);
    PyMem_RawFree(g.counts);
    Py_XDECREF(held);
    return result;
}

/* Writer.translate(frame) -> bytes: a batch frame whose codes 2s name shared ids of the session
 * of the shared frames written last, with each code replaced by 2 * store id + 1 (the store's own
 * code for the game the node was interned as): how a partizan sweep's runs become frames the
 * dense rewrite merges (store.runs.intern_runs). */
static PyObject *Writer_translate(Writer *w, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const uint8_t *buf = view.buf;
    size_t n = frame_count(buf, (size_t)view.len);
    PyObject *out = NULL;
    if (n == SIZE_MAX) {
        PyErr_SetString(PyExc_ValueError, "a malformed batch");
        goto done;
    }
    out = PyBytes_FromStringAndSize(view.buf, view.len);
    if (!out) goto done;
    uint8_t *codes = (uint8_t *)PyBytes_AS_STRING(out) + 4 + 2 * n;
    for (size_t i = 0; i < n; i++) {
        uint64_t code = frame_code(codes, i), store_id;
        if ((code & 1) || code >> 1 > UINT32_MAX || !shared_ids_get(&w->shared, (uint32_t)(code >> 1), &store_id)) {
            PyErr_Format(WriteError, "a value names shared node %llu, never sent", (unsigned long long)(code >> 1));
            Py_CLEAR(out);
            goto done;
        }
        uint64_t mine = store_id << 1 | 1;
        for (int b = 0; b < 8; b++) codes[8 * i + (size_t)b] = (uint8_t)(mine >> (8 * b));
    }
done:
    PyBuffer_Release(&view);
    return out;
}

static PyObject *Writer_close(Writer *w, PyObject *unused) {
    if (w->env) {
        MDB_env *env = w->env;
        w->env = NULL;
        Py_BEGIN_ALLOW_THREADS
        mdb_env_close(env);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}

static int open_dbs(Writer *w) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(w->env, NULL, MDB_RDONLY, &txn);
    if (rc) return rc;
    rc = mdb_dbi_open(txn, "positions", 0, &w->positions);
    if (!rc) rc = mdb_dbi_open(txn, "meta", 0, &w->meta);
    if (!rc) rc = mdb_dbi_open(txn, "games", 0, &w->games);
    if (!rc) rc = mdb_dbi_open(txn, "game_index", 0, &w->game_index);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn); /* (a read-only commit keeps the handles open) */
}

/* Writer(path, map_size, engine_version, name_of): the environment at path (which a
 * store has made: its tables must exist), its map at least map_size. */
static int Writer_init(Writer *w, PyObject *args, PyObject *kwargs) {
    const char *path;
    Py_ssize_t map_size;
    PyObject *version, *name_of;
    if (!PyArg_ParseTuple(args, "snSO", &path, &map_size, &version, &name_of)) return -1;
    if (w->env) {
        PyErr_SetString(PyExc_ValueError, "the writer is open already");
        return -1;
    }
    Py_INCREF(version), Py_INCREF(name_of);
    Py_XSETREF(w->engine_version, version);
    Py_XSETREF(w->name_of, name_of);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mdb_env_create(&w->env);
    if (!rc) rc = mdb_env_set_maxdbs(w->env, MAX_DBS);
    if (!rc) rc = mdb_env_set_maxreaders(w->env, MAX_READERS);
    if (!rc) rc = mdb_env_set_mapsize(w->env, (size_t)map_size);
    if (!rc) rc = mdb_env_open(w->env, path, MDB_NOTLS | MDB_NORDAHEAD, 0644);
    if (!rc) rc = mdb_env_set_mapsize(w->env, 0); /* adopt the size another process may have grown the map to */
    if (!rc) {
        MDB_envinfo info;
        mdb_env_info(w->env, &info);
        if (info.me_mapsize < (size_t)map_size) rc = mdb_env_set_mapsize(w->env, (size_t)map_size);
    }
    if (!rc) rc = open_dbs(w);
    if (rc && w->env) {
        mdb_env_close(w->env);
        w->env = NULL;
    }
    Py_END_ALLOW_THREADS
    if (rc) {
        PyErr_Format(WriteError, "cannot open the LMDB store %s: %s", path, mdb_strerror(rc));
        return -1;
    }
    w->max_key = (size_t)mdb_env_get_maxkeysize(w->env);
    return 0;
}

static void Writer_dealloc(Writer *w) {
    if (w->env) mdb_env_close(w->env);
    shared_ids_free(&w->shared);
    Py_XDECREF(w->engine_version);
    Py_XDECREF(w->name_of);
    Py_TYPE(w)->tp_free((PyObject *)w);
}

static PyMethodDef Writer_methods[] = {
    {"write", (PyCFunction)(void (*)(void))Writer_write, METH_VARARGS | METH_KEYWORDS,
     "write(frames, more=None, most=0) -> int: the batch frames (engine/native/frame.h) in one transaction, then those more() has "
     "waiting while fewer than most; the entries added."},
    {"translate", (PyCFunction)Writer_translate, METH_O,
     "translate(frame) -> bytes: the frame's codes 2s (shared ids of the last session written) as 2 * store id + 1."},
    {"close", (PyCFunction)Writer_close, METH_NOARGS, "close(): close the environment."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.server.store._native.Writer",
    .tp_basicsize = sizeof(Writer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Writer(path, map_size, engine_version, name_of): the writer process's transactions (store/lmdb.c).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Writer_init,
    .tp_dealloc = (destructor)Writer_dealloc,
    .tp_methods = Writer_methods,
};

/* WriteError (a borrowed reference; set once the module is made): what store/compact.c raises too. */
PyObject *store_write_error(void) {
    return WriteError ? WriteError : PyExc_RuntimeError;
}

/* Add Writer and WriteError to the module. */
int store_lmdb_add(PyObject *module) {
    if (PyType_Ready(&WriterType) < 0) return -1;
    WriteError = PyErr_NewException("ruma.server.store._native.WriteError", PyExc_RuntimeError, NULL);
    if (!WriteError || PyModule_AddObjectRef(module, "WriteError", WriteError) < 0) return -1;
    return PyModule_AddObjectRef(module, "Writer", (PyObject *)&WriterType);
}
