/* kernel.c — the compiled game kernel's Python functions (``_core.kernel``) and the search's API.
 *
 * ``ruma.engine.cgt.game`` runs on these functions when the compiled engine is active, as it runs
 * on ``ruma.engine.cgt.kernel`` (the pure-Python reference, same names and meanings) otherwise:
 * canon, add, neg, le, left_ids, right_ids, nus, number, nim, stops, nus_id, all_small, count,
 * handle, set_factory, cache_info, clear_caches. Games are ids into the arena (arena.h); the
 * Python object of an id is made by game.py's factory the first time Python asks for it
 * (``handle``) and kept, so a game has one object and nothing is made for the games a search
 * builds. The search (search.c) calls kernel_neg, kernel_add and kernel_canon: no Python.
 */
#include "kernel.h"
#include "gkernel.h"

#include <structmember.h>

/* ---------------------------------------------------------------------------------------- */
/* the search's API (kernel.h)                                                               */

int kernel_neg(int32_t a, int32_t *out) { return g_neg(a, out); }
int kernel_add(int32_t a, int32_t b, int32_t *out) { return g_add(a, b, out); }
int kernel_canon(int32_t *lefts, size_t nl, int32_t *rights, size_t nr, int32_t *out) {
    return g_canon(lefts, nl, rights, nr, out);
}
int kernel_nimber(int64_t k, int32_t *out) { return g_nus_id(num_small(0), 0, k, out); }
int32_t kernel_count(void) { return (int32_t)A.count; }

PyObject *kernel_handle(int32_t id) {
    if (id < 0 || (uint32_t)id >= A.count) {
        PyErr_Format(PyExc_IndexError, "no game with id %d", (int)id);
        return NULL;
    }
    if ((size_t)id < A.handles_cap && A.handles[id]) return Py_NewRef(A.handles[id]);
    PyObject *h;
    if (A.handle_type) { /* made here: the type's instance, its `id` slot set (what the factory does) */
        PyObject *value = PyLong_FromLong(id);
        h = value ? A.handle_type->tp_alloc(A.handle_type, 0) : NULL;
        if (!h) {
            Py_XDECREF(value);
            return NULL;
        }
        *(PyObject **)((char *)h + A.handle_slot) = value;
        /* (its one reference is an int: never part of a cycle, so the collector need not walk it —
         * the games of a big memo's values once cost a sixth of a partizan search in collections) */
        if (PyObject_GC_IsTracked(h)) PyObject_GC_UnTrack(h);
    } else if (A.factory) {
        h = PyObject_CallFunction(A.factory, "i", (int)id);
        if (!h) return NULL;
    } else {
        PyErr_SetString(PyExc_RuntimeError, "the game kernel has no factory of game objects (set_factory)");
        return NULL;
    }
    if ((size_t)id >= A.handles_cap) { /* (after the call: it may have run code that grew the array) */
        size_t cap = A.handles_cap ? A.handles_cap : 1024;
        while (cap <= (size_t)id) cap *= 2;
        PyObject **handles = realloc(A.handles, cap * sizeof *handles);
        if (!handles) {
            Py_DECREF(h);
            return PyErr_NoMemory();
        }
        memset(handles + A.handles_cap, 0, (cap - A.handles_cap) * sizeof *handles);
        A.handles = handles;
        A.handles_cap = cap;
    }
    if (A.handles[id]) { /* made meanwhile by another thread: one object per game */
        Py_DECREF(h);
        return Py_NewRef(A.handles[id]);
    }
    A.handles[id] = h; /* the arena's reference: games live as long as the process */
    A.nhandles++;
    return Py_NewRef(h);
}

/* ---------------------------------------------------------------------------------------- */
/* argument reading                                                                          */

static int read_id(PyObject *x, int32_t *out) {
    long v = PyLong_AsLong(x);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v >= (long)A.count) {
        PyErr_Format(PyExc_IndexError, "no game with id %ld", v);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static int read_args(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *name, int32_t *ids) {
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd game id%s", name, want, want == 1 ? "" : "s");
        return -1;
    }
    for (Py_ssize_t k = 0; k < want; k++)
        if (read_id(args[k], &ids[k]) < 0) return -1;
    return 0;
}

/* The ids of an iterable into a new array (*n of them); NULL with an error set. */
static int32_t *read_ids(PyObject *iterable, size_t *n) {
    PyObject *seq = PySequence_Fast(iterable, "game options are an iterable of game ids");
    if (!seq) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    int32_t *v = malloc(((size_t)m + 1) * sizeof *v);
    if (!v) {
        Py_DECREF(seq);
        return (int32_t *)PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < m; k++)
        if (read_id(PySequence_Fast_GET_ITEM(seq, k), &v[k]) < 0) {
            free(v);
            Py_DECREF(seq);
            return NULL;
        }
    Py_DECREF(seq);
    *n = (size_t)m;
    return v;
}

static PyObject *ids_tuple(const int32_t *v, size_t n) {
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t k = 0; t && k < n; k++) {
        PyObject *x = PyLong_FromLong(v[k]);
        if (!x) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, (Py_ssize_t)k, x);
    }
    return t;
}

/* ---------------------------------------------------------------------------------------- */
/* the Python functions                                                                      */

static PyObject *py_canon(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *lefts, *rights;
    if (!PyArg_ParseTuple(args, "OO:canon", &lefts, &rights)) return NULL;
    size_t nl, nr;
    int32_t *l = read_ids(lefts, &nl), *r = l ? read_ids(rights, &nr) : NULL, out;
    int rc = r ? g_canon(l, nl, r, nr, &out) : -1;
    free(l);
    free(r);
    return rc < 0 ? NULL : PyLong_FromLong(out);
}

static PyObject *py_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t ids[2], out;
    if (read_args(args, nargs, 2, "add", ids) < 0 || g_add(ids[0], ids[1], &out) < 0) return NULL;
    return PyLong_FromLong(out);
}

static PyObject *py_neg(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a, out;
    if (read_args(args, nargs, 1, "neg", &a) < 0 || g_neg(a, &out) < 0) return NULL;
    return PyLong_FromLong(out);
}

static PyObject *py_le(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t ids[2];
    if (read_args(args, nargs, 2, "le", ids) < 0) return NULL;
    int r = g_le(ids[0], ids[1]);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static PyObject *py_left_ids(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "left_ids", &a) < 0) return NULL;
    return ids_tuple(node(a)->opts, node(a)->nl);
}

static PyObject *py_right_ids(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "right_ids", &a) < 0) return NULL;
    return ids_tuple(node(a)->opts + node(a)->nl, node(a)->nr);
}

static PyObject *py_nus(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "nus", &a) < 0) return NULL;
    const GNode *g = node(a);
    if (!(g->flags & G_NUS)) Py_RETURN_NONE;
    return Py_BuildValue("(Nil)", num_to_py(node_ls(g)), (int)g->up, (long)g->star);
}

static PyObject *py_number(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "number", &a) < 0) return NULL;
    if (!node_is_number(node(a))) Py_RETURN_NONE;
    return num_to_py(node_ls(node(a)));
}

static PyObject *py_nim(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "nim", &a) < 0) return NULL;
    if (!node_is_nimber(node(a))) Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(node(a)->star);
}

static PyObject *py_stops(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "stops", &a) < 0) return NULL;
    return Py_BuildValue("(NN)", num_to_py(node_ls(node(a))), num_to_py(node_rs(node(a))));
}

static PyObject *py_nus_id(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *x;
    long long n, k;
    Num v;
    int32_t out;
    if (!PyArg_ParseTuple(args, "OLL:nus_id", &x, &n, &k) || num_from_py(x, &v) < 0 || g_nus_id(v, n, k, &out) < 0)
        return NULL;
    return PyLong_FromLong(out);
}

static PyObject *py_all_small(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "all_small", &a) < 0) return NULL;
    return PyBool_FromLong(g_all_small(a));
}

static PyObject *py_count(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromUnsignedLong(A.count);
}

static PyObject *py_handle(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int32_t a;
    if (read_args(args, nargs, 1, "handle", &a) < 0) return NULL;
    return kernel_handle(a);
}

static PyObject *py_set_factory(PyObject *self, PyObject *factory) {
    (void)self;
    if (!PyCallable_Check(factory)) {
        PyErr_SetString(PyExc_TypeError, "set_factory takes a callable (game id -> object)");
        return NULL;
    }
    Py_XSETREF(A.factory, Py_NewRef(factory));
    Py_RETURN_NONE;
}

/* set_handle_type(cls): objects of cls (a class with __slots__ = ("id",)) are made here, with no
 * Python call: tp_alloc, then the id slot — what the factory does, ten times faster. */
static PyObject *py_set_handle_type(PyObject *self, PyObject *cls) {
    (void)self;
    PyObject *slot = PyType_Check(cls) ? PyDict_GetItemString(((PyTypeObject *)cls)->tp_dict, "id") : NULL;
    if (!slot || !PyObject_TypeCheck(slot, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)slot)->d_member->type != T_OBJECT_EX) {
        PyErr_SetString(PyExc_TypeError, "set_handle_type takes a class whose instances have an id slot");
        return NULL;
    }
    A.handle_slot = ((PyMemberDescrObject *)slot)->d_member->offset;
    Py_XSETREF(A.handle_type, (PyTypeObject *)Py_NewRef(cls));
    Py_RETURN_NONE;
}

static PyObject *py_cache_info(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return Py_BuildValue("{sIsnsnsnsnsnsnsn}", "games", A.count, "objects", (Py_ssize_t)A.nhandles, "sums",
                         (Py_ssize_t)g_sum_cache_size(), "comparisons", (Py_ssize_t)g_le_cache_size(),
                         "comparison_limit", (Py_ssize_t)g_le_cache_limit(), "option_lists",
                         (Py_ssize_t)g_raw_cache_size(), "bytes", (Py_ssize_t)arena_bytes(), "wide_numbers",
                         (Py_ssize_t)num_wide_count());
}

static PyObject *py_clear_caches(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    g_clear_caches();
    Py_RETURN_NONE;
}

PyObject *wire_pack(PyObject *ids);
PyObject *wire_unpack(PyObject *data);
static PyObject *py_pack_nodes(PyObject *self, PyObject *ids) {
    (void)self;
    return wire_pack(ids);
}
static PyObject *py_unpack_nodes(PyObject *self, PyObject *data) {
    (void)self;
    return wire_unpack(data);
}

#define FAST(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL, doc}
static PyMethodDef methods[] = {
    {"canon", py_canon, METH_VARARGS, "canon(lefts, rights) -> the id of the canonical form of {lefts | rights}."},
    FAST("add", py_add, "add(a, b) -> the id of G_a + G_b."),
    FAST("neg", py_neg, "neg(a) -> the id of -G_a."),
    FAST("le", py_le, "le(a, b) -> G_a <= G_b."),
    FAST("left_ids", py_left_ids, "left_ids(a) -> Left's option ids (sorted)."),
    FAST("right_ids", py_right_ids, "right_ids(a) -> Right's option ids (sorted)."),
    FAST("nus", py_nus, "nus(a) -> (x, n, k) when G_a = x + n.up + *k (x an int when integral), else None."),
    FAST("number", py_number, "number(a) -> x when G_a is the number x, else None."),
    FAST("nim", py_nim, "nim(a) -> k when G_a is *k, else None."),
    FAST("stops", py_stops, "stops(a) -> (left stop, right stop), exact."),
    {"nus_id", py_nus_id, METH_VARARGS, "nus_id(x, n, k) -> the id of x + n.up + *k (x dyadic)."},
    FAST("all_small", py_all_small, "all_small(a) -> every follower with options has options for both players."),
    {"count", py_count, METH_NOARGS, "count() -> the number of games in the arena."},
    FAST("handle", py_handle, "handle(a) -> the one Python object of game a (made by the factory once)."),
    {"set_factory", py_set_factory, METH_O, "set_factory(f): f(id) makes the Python object of a game."},
    {"set_handle_type", py_set_handle_type, METH_O,
     "set_handle_type(cls): the objects of games are instances of cls made here, their id slot set (no Python call)."},
    {"pack_nodes", py_pack_nodes, METH_O,
     "pack_nodes(ids) -> (bytes, node index of each id): the games and their followers (ruma.engine.cgt.game_bytes)."},
    {"unpack_nodes", py_unpack_nodes, METH_O,
     "unpack_nodes(bytes) -> the game id of each node, checked (ruma.engine.cgt.game_bytes); ValueError if refused."},
    {"cache_info", py_cache_info, METH_NOARGS, "cache_info() -> sizes of the arena and the caches."},
    {"clear_caches", py_clear_caches, METH_NOARGS, "clear_caches(): drop the sum, comparison and option-list caches."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ruma.engine.native._core.kernel",
    .m_doc = "The compiled game kernel: canonical forms as ids in an arena (engine/native/kernel.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyObject *kernel_module_create(void) {
    if (g_init() < 0) return NULL;
    return PyModule_Create(&kernel_module);
}
