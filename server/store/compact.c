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
 * each transaction. It returns {table name: the source table's records}. The source is opened
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

#include "lmdb.h"

PyObject *store_write_error(void); /* store/lmdb.c: WriteError */

#define COMPACT_MAX_DBS 16 /* as _copy opens both environments */
#define NAME_ROOM 512

typedef struct {
    char error[256];
    PyThreadState *save;
} Copying;

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
                      PyObject *progress, size_t *entries, unsigned long long *done) {
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
    while (!rc && more == 0) {
        MDB_txn *txn;
        MDB_cursor *to;
        size_t put = 0;
        rc = mdb_txn_begin(target, NULL, 0, &txn);
        if (rc) break;
        rc = mdb_cursor_open(txn, target_dbi, &to);
        while (!rc && more == 0 && put < chunk) {
            MDB_val value = v;
            if (is_meta && schema != Py_None && k.mv_size == 14 && !memcmp(k.mv_data, "schema_version", 14)) {
                value.mv_size = (size_t)PyBytes_GET_SIZE(schema); /* (a bytes object: read without the GIL) */
                value.mv_data = PyBytes_AS_STRING(schema);
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
    return rc;
}

/* compact_copy(source, target, drop, schema, chunk, progress) -> {table name: records}. */
PyObject *store_compact_copy(PyObject *self, PyObject *args) {
    (void)self;
    const char *source, *target;
    PyObject *drop, *schema, *progress;
    Py_ssize_t chunk;
    if (!PyArg_ParseTuple(args, "ssO!OnO", &source, &target, &PyTuple_Type, &drop, &schema, &chunk, &progress)) return NULL;
    if (schema != Py_None && !PyBytes_Check(schema)) {
        PyErr_SetString(PyExc_TypeError, "schema must be bytes or None");
        return NULL;
    }
    if (chunk < 1) {
        PyErr_SetString(PyExc_ValueError, "chunk must be at least 1");
        return NULL;
    }
    char data[4096];
    struct stat st;
    if ((size_t)snprintf(data, sizeof data, "%s/data.mdb", source) >= sizeof data || stat(data, &st) < 0) {
        PyErr_Format(PyExc_FileNotFoundError, "no LMDB store in %R", PyTuple_GET_ITEM(args, 0));
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    PyObject *counts = PyDict_New();
    if (!counts) return NULL;
    /* the tables to copy: the names in the source's main table, but those in drop */
    Copying c = {{0}, NULL};
    MDB_env *old = NULL, *new = NULL;
    MDB_txn *read = NULL;
    int rc;
    c.save = PyEval_SaveThread();
    rc = open_env(&old, source, size > (1u << 20) ? size : (1u << 20), 1);
    if (!rc) rc = open_env(&new, target, 2 * size > ((size_t)64 << 20) ? 2 * size : ((size_t)64 << 20), 0);
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
        rc = copy_table(&c, read, new, text, schema, (size_t)chunk, progress, &entries, &done);
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
    if (!names && !rc) rc = -2;
    if (rc) {
        Py_DECREF(counts);
        if (rc == -2) return NULL;
        PyErr_Format(store_write_error(), "cannot copy the LMDB store %s: %s", source, rc == -1 ? c.error : mdb_strerror(rc));
        return NULL;
    }
    return counts;
}
