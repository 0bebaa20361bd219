/* module.c — ruma.engine.native._core: the compiled rulesets (Rules) and search (Search).
 *
 * Rules(family, impartial, code, version, reference) exposes the methods of a row-of-pots
 * Ruleset (parse, left_options, right_options, options, normalise, components, decompose, key,
 * size) on states given as tuples of ints, with the results the pure-Python reference gives.
 * Any input the compiled code does not take (a state that is not a tuple of non-negative ints
 * below RUMA_MAX_COUNT, text that does not parse) is passed to the same method of `reference`,
 * so errors and odd inputs behave exactly as in the reference, and stay written in one place.
 * The Python facade is ruma/engine/native/__init__.py; the design is in docs/architecture.md.
 */
#include "core.h"
#include "kernel.h"
#include "memo.h"
#include "parse.h"
#include "shared.h"
#include "shared_games.h"

#include <structmember.h>

PyObject *Interrupted;

/* ---------------------------------------------------------------------------------------- */
/* conversions                                                                               */

int state_to_pots(PyObject *state, Buf *buf, size_t *n) {
    if (!PyTuple_Check(state)) return 1;
    Py_ssize_t len = PyTuple_GET_SIZE(state);
    pot_t *v = buf_reserve(buf, len ? (size_t)len : 1);
    if (!v) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        PyObject *item = PyTuple_GET_ITEM(state, k);
        if (!PyLong_CheckExact(item)) return 1; /* bool, float, int subclasses: the reference */
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow || x < 0 || x > RUMA_MAX_COUNT) return 1;
        v[k] = x;
    }
    *n = (size_t)len;
    return 0;
}

PyObject *pots_to_tuple(const pot_t *row, size_t n) {
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (!t) return NULL;
    for (size_t k = 0; k < n; k++) {
        PyObject *x = PyLong_FromLongLong(row[k]); /* 0..256 come from CPython's small-int cache */
        if (!x) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)k, x);
    }
    /* A tuple of ints is never in a cycle: untracked now, as the collector would untrack it at its
     * first pass (_PyTuple_MaybeUntrack), which otherwise walks every state a walk or an option
     * list made — 95 ms after Rules.class_states' 671,849 states (impartial Sowing <= 12). */
    PyObject_GC_UnTrack(t);
    return t;
}

PyObject *make_key(const RulesObject *rules, const uint8_t *body, size_t len) {
    PyObject *key = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(len + 2));
    if (!key) return NULL;
    char *w = PyBytes_AS_STRING(key);
    w[0] = (char)rules->code;
    w[1] = (char)rules->version;
    memcpy(w + 2, body, len);
    return key;
}

int rules_options(const RulesObject *rules, const pot_t *s, size_t n, int side, Rows *out) {
    if (rules->impartial) { /* BothDirections: Left's options, then Right's */
        if (family_options(rules->family, s, n, +1, out) < 0) return -1;
        return family_options(rules->family, s, n, -1, out);
    }
    return family_options(rules->family, s, n, side, out);
}

/* ---------------------------------------------------------------------------------------- */
/* Rules                                                                                     */

static PyObject *fallback(RulesObject *self, const char *method, PyObject *arg) {
    PyObject *name = PyUnicode_InternFromString(method);
    if (!name) return NULL;
    PyObject *result = PyObject_CallMethodOneArg(self->reference, name, arg);
    Py_DECREF(name);
    return result;
}

/* Read the state argument into a fresh buffer (the compiled functions get their own scratch, so
 * threads calling the same Rules never share memory); when the compiled code does not take the
 * state, return what the reference's method returns. */
#define READ_STATE(method)                                     \
    Buf in_ = {NULL, 0};                                       \
    size_t n;                                                  \
    int rc_ = state_to_pots(state, &in_, &n);                  \
    if (rc_ != 0) {                                            \
        free(in_.v);                                           \
        return rc_ < 0 ? NULL : fallback(self, method, state); \
    }                                                          \
    const pot_t *s = in_.v;                                    \
    Scratch sc;                                                \
    scratch_init(&sc);

#define DONE_STATE() \
    free(in_.v);     \
    scratch_free(&sc);

static PyObject *rows_to_list(const Rows *rows, int with_flags) {
    PyObject *list = PyList_New((Py_ssize_t)rows->count);
    if (!list) return NULL;
    for (size_t k = 0; k < rows->count; k++) {
        size_t m;
        const pot_t *row = rows_row(rows, k, &m);
        PyObject *t = pots_to_tuple(row, m);
        if (t && with_flags) {
            PyObject *pair = PyTuple_Pack(2, t, rows->flag[k] ? Py_True : Py_False);
            Py_DECREF(t);
            t = pair;
        }
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)k, t);
    }
    return list;
}

static PyObject *options_side(RulesObject *self, PyObject *state, int side, const char *method) {
    READ_STATE(method)
    Rows out;
    rows_init(&out);
    PyObject *result = NULL;
    if (rules_options(self, s, n, side, &out) < 0)
        PyErr_NoMemory();
    else
        result = rows_to_list(&out, 0);
    rows_free(&out);
    DONE_STATE()
    return result;
}

static PyObject *Rules_left_options(RulesObject *self, PyObject *state) {
    return options_side(self, state, +1, "left_options");
}

static PyObject *Rules_right_options(RulesObject *self, PyObject *state) {
    return options_side(self, state, -1, "right_options");
}

static PyObject *Rules_options(RulesObject *self, PyObject *state) {
    /* Ruleset.options: every option (impartial) or Left's (partizan, the base class's default) */
    return options_side(self, state, +1, "options");
}

static PyObject *Rules_normalise(RulesObject *self, PyObject *state) {
    READ_STATE("normalise")
    Rows out;
    rows_init(&out);
    PyObject *result = NULL;
    if (family_normalise(self->family, s, n, &out, &sc) < 0) {
        PyErr_NoMemory();
    } else {
        size_t m;
        const pot_t *row = rows_row(&out, 0, &m);
        PyObject *t = pots_to_tuple(row, m);
        if (t) result = Py_BuildValue("(NO)", t, out.flag[0] ? Py_True : Py_False);
    }
    rows_free(&out);
    DONE_STATE()
    return result;
}

static PyObject *split_rows(RulesObject *self, PyObject *state, int oriented, const char *method) {
    READ_STATE(method)
    Rows out;
    rows_init(&out);
    PyObject *result = NULL;
    int rc = oriented ? family_decompose(self->family, s, n, &out, &sc)
                      : family_components(self->family, s, n, &out, &sc);
    if (rc < 0)
        PyErr_NoMemory();
    else
        result = rows_to_list(&out, oriented);
    rows_free(&out);
    DONE_STATE()
    return result;
}

static PyObject *Rules_components(RulesObject *self, PyObject *state) {
    return split_rows(self, state, 0, "components");
}

static PyObject *Rules_decompose(RulesObject *self, PyObject *state) {
    return split_rows(self, state, 1, "decompose");
}

static PyObject *Rules_key(RulesObject *self, PyObject *state) {
    READ_STATE("key")
    uint8_t *body = NULL;
    size_t cap = 0;
    long len = family_key_body(self->family, s, n, &body, &cap);
    PyObject *result = len < 0 ? PyErr_NoMemory() : make_key(self, body, (size_t)len);
    free(body);
    DONE_STATE()
    return result;
}

static PyObject *Rules_canonical_key(RulesObject *self, PyObject *state) {
    READ_STATE("canonical_key")
    Rows out;
    rows_init(&out);
    uint8_t *body = NULL;
    size_t cap = 0;
    PyObject *result = NULL;
    if (family_normalise(self->family, s, n, &out, &sc) < 0) {
        PyErr_NoMemory();
    } else {
        size_t m;
        const pot_t *row = rows_row(&out, 0, &m);
        long len = family_key_body(self->family, row, m, &body, &cap);
        PyObject *key = len < 0 ? PyErr_NoMemory() : make_key(self, body, (size_t)len);
        if (key) result = Py_BuildValue("(NO)", key, out.flag[0] ? Py_True : Py_False);
    }
    free(body);
    rows_free(&out);
    DONE_STATE()
    return result;
}

static PyObject *Rules_size(RulesObject *self, PyObject *state) {
    READ_STATE("size")
    int64_t pots, seeds;
    family_size(self->family, s, n, &pots, &seeds);
    DONE_STATE()
    return Py_BuildValue("(LL)", (long long)pots, (long long)seeds);
}

static PyObject *Rules_parse(RulesObject *self, PyObject *text) {
    Buf buf = {NULL, 0};
    size_t n;
    int rc = parse_pots(text, self->family == FAM_SOWING, &buf, &n);
    PyObject *result;
    if (rc < 0)
        result = PyErr_NoMemory();
    else if (rc > 0)
        result = fallback(self, "parse", text); /* raises the reference's error */
    else
        result = pots_to_tuple(buf.v, n);
    free(buf.v);
    return result;
}

static int Rules_init(RulesObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"family", "impartial", "code", "version", "reference", NULL};
    int family, impartial, code, version;
    PyObject *reference;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ipiiO", kwlist, &family, &impartial, &code, &version,
                                     &reference))
        return -1;
    if (family < FAM_SOWING || family > FAM_BOARD) {
        PyErr_Format(PyExc_ValueError, "unknown ruleset family %d", family);
        return -1;
    }
    if (code < 0 || code > 255 || version < 0 || version > 255) {
        PyErr_SetString(PyExc_ValueError, "ruleset code and version are bytes (0..255)");
        return -1;
    }
    self->family = family;
    self->impartial = impartial;
    self->code = code;
    self->version = version;
    Py_INCREF(reference);
    Py_XSETREF(self->reference, reference);
    return 0;
}

static int Rules_traverse(RulesObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->reference);
    return 0;
}

static int Rules_clear(RulesObject *self) {
    Py_CLEAR(self->reference);
    return 0;
}

static void Rules_dealloc(RulesObject *self) {
    PyObject_GC_UnTrack(self);
    Rules_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Rules_methods[] = {
    {"parse", (PyCFunction)Rules_parse, METH_O, "parse(text) -> state (the paper's notation)."},
    {"left_options", (PyCFunction)Rules_left_options, METH_O, "left_options(state) -> list of states."},
    {"right_options", (PyCFunction)Rules_right_options, METH_O, "right_options(state) -> list of states."},
    {"options", (PyCFunction)Rules_options, METH_O, "options(state) -> list of states."},
    {"normalise", (PyCFunction)Rules_normalise, METH_O, "normalise(state) -> (canonical state, mirrored)."},
    {"cells", (PyCFunction)Rules_cells, METH_O,
     "cells(states) -> {cell: [state, ...]} (families.order.group: Sowing at DEPTH 1, Atomic Wari), or None."},
    {"classes", (PyCFunction)Rules_classes, METH_VARARGS,
     "classes(seeds_min, seeds_max, pots_min, pots_max, should_cancel, part=0, parts=1) -> [(state, key, raw, "
     "raw_mirrored, representative, representative_mirrored), ...] or None if cancelled (families.classes.enumerate_family's "
     "classes; with parts > 1 those of every parts-th group of stripped rows from the part-th on)."},
    {"class_states", (PyCFunction)Rules_class_states, METH_VARARGS,
     "class_states(seeds_min, seeds_max, pots_min, pots_max, should_cancel, part=0, parts=1) -> (states, keys, raw) "
     "or None if cancelled: the states and keys of classes() in its order, and the raw positions walked (a sweep's walk)."},
    {"class_rows", (PyCFunction)Rules_class_rows, METH_VARARGS,
     "class_rows(seeds_min, seeds_max, pots_min, pots_max, should_cancel, part=0, parts=1) -> (rows, ends, raw) or "
     "None if cancelled: class_states' states packed in two bytes objects (see class_block)."},
    {"class_block", (PyCFunction)Rules_class_block, METH_VARARGS,
     "class_block(rows, ends, indices, states=True) -> (states, keys): the states and keys of class_rows' classes at "
     "indices (states=False: the keys alone)."},
    {"components", (PyCFunction)Rules_components, METH_O, "components(state) -> list of states."},
    {"decompose", (PyCFunction)Rules_decompose, METH_O, "decompose(state) -> list of (state, mirrored)."},
    {"key", (PyCFunction)Rules_key, METH_O, "key(state) -> memo key bytes of a normalised state."},
    {"size", (PyCFunction)Rules_size, METH_O, "size(state) -> (pots, seeds)."},
    {"canonical_key", (PyCFunction)Rules_canonical_key, METH_O,
     "canonical_key(state) -> (key of the normalised state, mirrored), without building the state."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Rules_members[] = {
    {"family", T_INT, offsetof(RulesObject, family), READONLY, "0 Sowing, 1 Atomic Wari, 2 Atomic Wari board"},
    {"impartial", T_BOOL, offsetof(RulesObject, impartial), READONLY, "both players have every option"},
    {"code", T_INT, offsetof(RulesObject, code), READONLY, "first byte of every key"},
    {"version", T_INT, offsetof(RulesObject, version), READONLY, "second byte of every key"},
    {"reference", T_OBJECT, offsetof(RulesObject, reference), READONLY, "the pure-Python ruleset"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject Rules_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.engine.native._core.Rules",
    .tp_basicsize = sizeof(RulesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Rules(family, impartial, code, version, reference): a compiled row-of-pots ruleset.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Rules_init,
    .tp_dealloc = (destructor)Rules_dealloc,
    .tp_traverse = (traverseproc)Rules_traverse,
    .tp_clear = (inquiry)Rules_clear,
    .tp_methods = Rules_methods,
    .tp_members = Rules_members,
};

/* ---------------------------------------------------------------------------------------- */
/* the module                                                                                */

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ruma.engine.native._core",
    .m_doc = "ruma's compiled engine core: row-of-pots rulesets, the search and the game kernel "
             "(the submodule kernel; see engine/native/).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&Rules_Type) < 0 || PyType_Ready(&Search_Type) < 0 || PyType_Ready(&CompactMemo_Type) < 0 ||
        PyType_Ready(&SharedValues_Type) < 0 || PyType_Ready(&SharedGames_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Interrupted = PyErr_NewExceptionWithDoc("ruma.engine.native._core.Interrupted",
                                            "A search stopped: args (kind, state), kind one of 'cancelled', "
                                            "'limit', 'loopy' (the facade raises the engine's error).",
                                            PyExc_Exception, NULL);
    if (!Interrupted) goto fail;
    PyObject *kernel = kernel_module_create();
    if (!kernel || PyModule_AddObject(m, "kernel", kernel) < 0) {
        Py_XDECREF(kernel);
        goto fail;
    }
    Py_INCREF(&Rules_Type);
    Py_INCREF(&Search_Type);
    Py_INCREF(&CompactMemo_Type);
    Py_INCREF(&SharedValues_Type);
    Py_INCREF(&SharedGames_Type);
    if (PyModule_AddObject(m, "Rules", (PyObject *)&Rules_Type) < 0 ||
        PyModule_AddObject(m, "Search", (PyObject *)&Search_Type) < 0 ||
        PyModule_AddObject(m, "CompactMemo", (PyObject *)&CompactMemo_Type) < 0 ||
        PyModule_AddObject(m, "SharedValues", (PyObject *)&SharedValues_Type) < 0 ||
        PyModule_AddObject(m, "SharedGames", (PyObject *)&SharedGames_Type) < 0 ||
        PyModule_AddObject(m, "Interrupted", Interrupted) < 0 ||
        PyModule_AddIntConstant(m, "FAMILY_SOWING", FAM_SOWING) < 0 ||
        PyModule_AddIntConstant(m, "FAMILY_WARI", FAM_WARI) < 0 ||
        PyModule_AddIntConstant(m, "FAMILY_BOARD", FAM_BOARD) < 0 ||
        PyModule_AddIntConstant(m, "FULL", (long)RUMA_FULL) < 0)
        goto fail;
    Py_INCREF(Interrupted);
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
