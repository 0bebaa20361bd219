/* store/compact.c — store._native.compact_copy: the copy step of a store's dense rewrite in C.
 *
 * store.rewrite._copy (``ruma store compact``, and the dense rewrite a completed sweep ends with:
 * LmdbStore.close_dense) puts every record of every table of a store again, in key order, through
 * LMDB's append path, so that every page but the last of a table is full. Through py-lmdb that is
 * a Python tuple a record and a putmulti a chunk: 0.4-0.5 s of the driver's CPU after a sweep of
 * Sowing <= 12 (672,000 positions). Here the same walk and the same puts run in C, without the
 * GIL, on the LMDB py-lmdb bundles (third_party/lmdb: one file format for every process).
 *
 * compact_copy(source, target, drop, schema, chunk, progress) does what _copy does, step for step:
 * the tables named in the source's main table, but those in `drop`, each copied after the last key
 * the target's table holds already (a copy killed half-way goes on), in transactions of `chunk`
 * records; `schema` (bytes, or None) replaces meta's schema_version record; progress(done) after
 * each transaction. It returns {table name: the source table's records}. With `merge`, (frames,
 * meta records): the values of the frames (frame.h: nim values, or games the store holds already;
 * keys sorted in each and in no two — a sweep's runs, taken from a heap of their next keys,
 * merge.h — none of them stored: a key the source holds, or one in two runs, fails the copy; a
 * single frame is taken as one run) are put into positions among the source's records, as their own
 * records (varint(code) 00 crc32c, what the writer process puts), and meta's records named in
 * meta records get the values given (the counts the frame adds to) — the copy is then the file
 * the frame's puts into the source and then a plain copy would have made, without the B-tree puts
 * (LmdbStore.close_dense: a sweep's last drain). The counts returned include the merged records.
 * The source is opened
 * read-only without its lock (the caller has made sure no process has it open, as for _copy);
 * both environments are closed before it returns (LMDB allows one environment per file per
 * process, and the caller then opens the copy with py-lmdb). tests/store/test_store_compact_native.py
 * compares every table of its copies with _copy's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "frame.h"
#include "lmdb.h"
#include "merge.h"
#include "records.h"

PyObject *store_write_error(void); /* store/lmdb.c: WriteError */

#define COMPACT_MAX_DBS 16 /* as _copy opens both environments */
#define NAME_ROOM 512

typedef struct {
    char error[256];
    PyThreadState *save;
} Copying;

/* What a copy merges in (compact_copy's `merge`): batch frames (frame.h: nim values, or games
 * stored already; keys sorted, none in two frames, none stored already: a sweep's runs), taken
 * from a heap of their next keys (merge.h) and put into positions among the source's records,
 * and meta records whose values it replaces (the counts the frames add to). */
typedef struct {
    RunHeap runs;
    size_t n;
    Py_ssize_t n_meta;
    const uint8_t **meta_keys, **meta_values;
    size_t *meta_key_lens, *meta_value_lens;
} Merge;

/* The positions record of a merged entry (key, code; payload in out: varint(code), 00 explored,
 * crc32c of key and payload, as store.codec.seal and lmdb.c build it); its length. */
static size_t merge_record(uint64_t code, const uint8_t *key, size_t key_len, uint8_t out[16]) {
    size_t nv = put_varint(out, code);
    out[nv] = 0;
    put_le32(out + nv + 1, crc32c_two(key, key_len, out, nv + 1));
    return nv + 5;
}

/* Open an environment at `path` (a directory), read-only and unlocked (`readonly`), else writable. */
static int open_env(MDB_env **env, const char *path, size_t map_size, int readonly) {
    int rc = mdb_env_create(env);
    if (!rc) rc = mdb_env_set_maxdbs(*env, COMPACT_MAX_DBS);
    if (!rc) rc = mdb_env_set_mapsize(*env, map_size);
    if (!rc) rc = mdb_env_open(*env, path, MDB_NOTLS | (readonly ? MDB_RDONLY | MDB_NOLOCK : 0), 0644);
    if (rc && *env) {
        mdb_env_close(*env);
        *env = NULL;
    }
    return rc;
}

/* The last key the target's table `name` holds (its length in *len, 0 when empty), created if
 * missing, in its own write transaction; 0 or an LMDB error. */
static int target_table(MDB_env *env, const char *name, MDB_dbi *dbi, uint8_t *last, size_t room, size_t *len) {
    MDB_txn *txn;
    MDB_cursor *cursor;
    *len = 0;
    int rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc) return rc;
    rc = mdb_dbi_open(txn, name, MDB_CREATE, dbi);
    if (!rc) rc = mdb_cursor_open(txn, *dbi, &cursor);
    if (!rc) {
        MDB_val k, v;
        int found = mdb_cursor_get(cursor, &k, &v, MDB_LAST);
        if (found == 0) {
            if (k.mv_size > room) rc = MDB_BAD_VALSIZE;
            else {
                memcpy(last, k.mv_data, k.mv_size);
                *len = k.mv_size;
            }
        } else if (found != MDB_NOTFOUND) {
            rc = found;
        }
        mdb_cursor_close(cursor);
    }
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

/* Copy table `name` of the source (read in `read`) after what the target holds; its records in
 * *entries, the records put added to *done; progress(done) after each transaction (with the
 * GIL). 0, an LMDB error, or -2 with a Python error. */
static int copy_table(Copying *c, MDB_txn *read, MDB_env *target, const char *name, PyObject *schema, size_t chunk,
                      PyObject *progress, size_t *entries, unsigned long long *done, Merge *merge) {
    MDB_dbi source_dbi, target_dbi;
    uint8_t last[NAME_ROOM];
    size_t last_len = 0;
    int rc = mdb_dbi_open(read, name, 0, &source_dbi);
    if (!rc) {
        MDB_stat st;
        rc = mdb_stat(read, source_dbi, &st);
        *entries = st.ms_entries;
    }
    if (!rc) rc = target_table(target, name, &target_dbi, last, sizeof last, &last_len);
    MDB_cursor *from = NULL;
    if (!rc) rc = mdb_cursor_open(read, source_dbi, &from);
    if (rc) return rc;
    MDB_val k, v;
    int more;
    if (last_len) {
        k.mv_size = last_len, k.mv_data = last;
        more = mdb_cursor_get(from, &k, &v, MDB_SET_RANGE);
        if (!more && k.mv_size == last_len && !memcmp(k.mv_data, last, last_len)) more = mdb_cursor_get(from, &k, &v, MDB_NEXT);
    } else {
        more = mdb_cursor_get(from, &k, &v, MDB_FIRST);
    }
    int is_meta = !strcmp(name, "meta");
    Merge *merging = merge && !strcmp(name, "positions") ? merge : NULL;
    const Merge *replacing = merge && is_meta ? merge : NULL;
    if (merging && last_len) { /* (a merge never resumes a copy: the caller starts it afresh) */
        snprintf(c->error, sizeof c->error, "a merged copy cannot resume a copy stopped half-way");
        return -1;
    }
    while (!rc && (more == 0 || (merging && merging->runs.live))) {
        MDB_txn *txn;
        MDB_cursor *to;
        size_t put = 0;
        rc = mdb_txn_begin(target, NULL, 0, &txn);
        if (rc) break;
        rc = mdb_cursor_open(txn, target_dbi, &to);
        while (!rc && (more == 0 || (merging && merging->runs.live)) && put < chunk) {
            if (merging && merging->runs.live) { /* the runs' next entry, if it comes first */
                size_t len;
                uint64_t code;
                const uint8_t *key = runs_top(&merging->runs, &len, &code);
                if (more == 0 && k.mv_size == len && !memcmp(k.mv_data, key, len)) {
                    snprintf(c->error, sizeof c->error, "a merged key is stored already");
                    rc = -1;
                    break;
                }
                if (more != 0 || bytes_less(key, len, k.mv_data, k.mv_size)) {
                    uint8_t record[16];
                    MDB_val mk = {len, (void *)key}, mv = {merge_record(code, key, len, record), record};
                    rc = mdb_cursor_put(to, &mk, &mv, MDB_APPEND);
                    put++;
                    if (!rc && runs_pop(&merging->runs) < 0) {
                        snprintf(c->error, sizeof c->error, "the merged runs' keys are not sorted, or a key is in two of them");
                        rc = -1;
                    }
                    continue;
                }
            }
            MDB_val value = v;
            if (is_meta && schema != Py_None && k.mv_size == 14 && !memcmp(k.mv_data, "schema_version", 14)) {
                value.mv_size = (size_t)PyBytes_GET_SIZE(schema); /* (a bytes object: read without the GIL) */
                value.mv_data = PyBytes_AS_STRING(schema);
            }
            for (Py_ssize_t r = 0; replacing && r < replacing->n_meta; r++)
                if (k.mv_size == replacing->meta_key_lens[r] && !memcmp(k.mv_data, replacing->meta_keys[r], k.mv_size)) {
                    value.mv_size = replacing->meta_value_lens[r];
                    value.mv_data = (void *)replacing->meta_values[r];
                }
            rc = mdb_cursor_put(to, &k, &value, MDB_APPEND);
            put++;
            if (!rc) more = mdb_cursor_get(from, &k, &v, MDB_NEXT);
        }
        if (rc) {
            mdb_txn_abort(txn);
            break;
        }
        rc = mdb_txn_commit(txn);
        if (rc) break;
        *done += put;
        if (progress != Py_None) {
            PyEval_RestoreThread(c->save);
            PyObject *r = PyObject_CallFunction(progress, "K", *done);
            c->save = PyEval_SaveThread();
            if (!r) {
                rc = -2;
                break;
            }
            Py_DECREF(r);
        }
    }
    if (!rc && more != 0 && more != MDB_NOTFOUND) rc = more;
    mdb_cursor_close(from);
    if (merging && !rc) *entries += merging->n;
    return rc;
}

/* The merge of compact_copy's `merge` argument, (frame or frames, ((meta key, value), ...)), in *m
 * (freed by free_merge, with the GIL); 0, or -1 with a Python error. The objects stay the
 * caller's (alive for the call). */
static int read_merge(PyObject *merge, Merge *m) {
    PyObject *frames, *meta;
    if (!PyArg_ParseTuple(merge, "OO!", &frames, &PyTuple_Type, &meta)) return -1;
    PyObject *one = PyObject_CheckBuffer(frames) ? PyTuple_Pack(1, frames) : NULL; /* (a single frame) */
    int opened = runs_open(&m->runs, one ? one : frames, 3, NAME_ROOM - 1);
    Py_XDECREF(one); /* (the frame itself stays the caller's: its buffer is held) */
    if (opened < 0) return -1;
    m->n = m->runs.total;
    m->n_meta = PyTuple_GET_SIZE(meta);
    size_t count = (size_t)m->n_meta ? (size_t)m->n_meta : 1;
    m->meta_keys = calloc(count, sizeof *m->meta_keys);
    m->meta_values = calloc(count, sizeof *m->meta_values);
    m->meta_key_lens = calloc(count, sizeof *m->meta_key_lens);
    m->meta_value_lens = calloc(count, sizeof *m->meta_value_lens);
    if (!m->meta_keys || !m->meta_values || !m->meta_key_lens || !m->meta_value_lens) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t r = 0; r < m->n_meta; r++) {
        PyObject *pair = PyTuple_GET_ITEM(meta, r), *key, *value;
        if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "O!O!", &PyBytes_Type, &key, &PyBytes_Type, &value)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "merge's meta records are (key, value) pairs of bytes");
            return -1;
        }
        m->meta_keys[r] = (const uint8_t *)PyBytes_AS_STRING(key);
        m->meta_key_lens[r] = (size_t)PyBytes_GET_SIZE(key);
        m->meta_values[r] = (const uint8_t *)PyBytes_AS_STRING(value);
        m->meta_value_lens[r] = (size_t)PyBytes_GET_SIZE(value);
    }
    return 0;
}

static void free_merge(Merge *m) {
    runs_close(&m->runs);
    free(m->meta_keys);
    free(m->meta_values);
    free(m->meta_key_lens);
    free(m->meta_value_lens);
}

/* compact_copy(source, target, drop, schema, chunk, progress, merge=None) -> {table name: records}. */
PyObject *store_compact_copy(PyObject *self, PyObject *args) {
    (void)self;
    const char *source, *target;
    PyObject *drop, *schema, *progress, *merge_arg = Py_None;
    Py_ssize_t chunk;
    if (!PyArg_ParseTuple(args, "ssO!OnO|O", &source, &target, &PyTuple_Type, &drop, &schema, &chunk, &progress, &merge_arg))
        return NULL;
    Merge merge_data = {0}, *merge = NULL;
    if (merge_arg != Py_None) {
        if (!PyTuple_Check(merge_arg) || read_merge(merge_arg, &merge_data) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "merge must be (frames, meta records) or None");
            free_merge(&merge_data);
            return NULL;
        }
        merge = &merge_data;
    }
    if (schema != Py_None && !PyBytes_Check(schema)) {
        PyErr_SetString(PyExc_TypeError, "schema must be bytes or None");
        free_merge(&merge_data);
        return NULL;
    }
    if (chunk < 1) {
        PyErr_SetString(PyExc_ValueError, "chunk must be at least 1");
        free_merge(&merge_data);
        return NULL;
    }
    char data[4096];
    struct stat st;
    if ((size_t)snprintf(data, sizeof data, "%s/data.mdb", source) >= sizeof data || stat(data, &st) < 0) {
        PyErr_Format(PyExc_FileNotFoundError, "no LMDB store in %R", PyTuple_GET_ITEM(args, 0));
        free_merge(&merge_data);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    PyObject *counts = PyDict_New();
    if (!counts) {
        free_merge(&merge_data);
        return NULL;
    }
    /* the tables to copy: the names in the source's main table, but those in drop */
    Copying c = {{0}, NULL};
    MDB_env *old = NULL, *new = NULL;
    MDB_txn *read = NULL;
    int rc;
    c.save = PyEval_SaveThread();
    rc = open_env(&old, source, size > (1u << 20) ? size : (1u << 20), 1);
    size_t room = 2 * size + (merge ? 4 * merge->runs.bytes : 0);
    if (!rc) rc = open_env(&new, target, room > ((size_t)64 << 20) ? room : ((size_t)64 << 20), 0);
    if (!rc) rc = mdb_txn_begin(old, NULL, MDB_RDONLY, &read);
    PyEval_RestoreThread(c.save);
    PyObject *names = PyList_New(0);
    if (!rc && names) {
        MDB_dbi main;
        MDB_cursor *cursor;
        rc = mdb_dbi_open(read, NULL, 0, &main);
        if (!rc) rc = mdb_cursor_open(read, main, &cursor);
        if (!rc) {
            MDB_val k, v;
            for (int got = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); !got; got = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
                PyObject *name = PyBytes_FromStringAndSize(k.mv_data, (Py_ssize_t)k.mv_size);
                int dropped = name ? PySequence_Contains(drop, name) : -1;
                if (dropped < 0 || (!dropped && PyList_Append(names, name) < 0)) {
                    Py_XDECREF(name);
                    rc = -2;
                    break;
                }
                Py_DECREF(name);
            }
            mdb_cursor_close(cursor);
        }
    }
    unsigned long long done = 0;
    for (Py_ssize_t i = 0; !rc && names && i < PyList_GET_SIZE(names); i++) {
        PyObject *name = PyList_GET_ITEM(names, i);
        char text[NAME_ROOM];
        if (PyBytes_GET_SIZE(name) >= (Py_ssize_t)sizeof text || memchr(PyBytes_AS_STRING(name), 0, (size_t)PyBytes_GET_SIZE(name))) {
            snprintf(c.error, sizeof c.error, "a table name LMDB cannot open by name");
            rc = -1;
            break;
        }
        memcpy(text, PyBytes_AS_STRING(name), (size_t)PyBytes_GET_SIZE(name) + 1);
        size_t entries = 0;
        c.save = PyEval_SaveThread();
        rc = copy_table(&c, read, new, text, schema, (size_t)chunk, progress, &entries, &done, merge);
        PyEval_RestoreThread(c.save);
        if (!rc) {
            PyObject *key = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
            PyObject *count = PyLong_FromSize_t(entries);
            if (!key || !count || PyDict_SetItem(counts, key, count) < 0) rc = -2;
            Py_XDECREF(key);
            Py_XDECREF(count);
        }
    }
    c.save = PyEval_SaveThread();
    if (read) mdb_txn_abort(read);
    if (old) mdb_env_close(old);
    if (new) mdb_env_close(new);
    PyEval_RestoreThread(c.save);
    Py_XDECREF(names);
    free_merge(&merge_data);
    if (!names && !rc) rc = -2;
    if (rc) {
        Py_DECREF(counts);
        if (rc == -2) return NULL;
        PyErr_Format(store_write_error(), "cannot copy the LMDB store %s: %s", source, rc == -1 ? c.error : mdb_strerror(rc));
        return NULL;
    }
    return counts;
}
