/* core.h — what module.c and search.c share: the Rules object and state conversion. */
#ifndef RUMA_CORE_H
#define RUMA_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "rows.h"

/* A compiled ruleset: which family of moves, whether impartial, its key prefix, and the
 * pure-Python reference ruleset that handles every input the compiled code does not take. */
typedef struct {
    PyObject_HEAD
    int family;
    int impartial;
    int code, version;
    PyObject *reference;
} RulesObject;

extern PyTypeObject Rules_Type;
extern PyTypeObject Search_Type;
extern PyObject *Interrupted; /* ruma.engine.native._core.Interrupted(kind, state) */

/* Read a state (a tuple of ints) into buf: 0 on success, 1 when the compiled code does not take
 * it (not a tuple, an item not an int, negative or beyond RUMA_MAX_COUNT), -1 with an error set. */
int state_to_pots(PyObject *state, Buf *buf, size_t *n);
/* A tuple of ints from a row; NULL with an error set. */
PyObject *pots_to_tuple(const pot_t *row, size_t n);
/* prefix (code, version) + body as a new bytes object. */
PyObject *make_key(const RulesObject *rules, const uint8_t *body, size_t len);
/* Impartial rulesets: both players' options (Left's then Right's); partizan: one side. */
int rules_options(const RulesObject *rules, const pot_t *s, size_t n, int side, Rows *out);
/* Rules.classes (classes.c): the normalisation classes of a family of unbounded rows. */
PyObject *Rules_classes(RulesObject *self, PyObject *args);
PyObject *Rules_class_states(RulesObject *self, PyObject *args);
PyObject *Rules_class_rows(RulesObject *self, PyObject *args);
PyObject *Rules_class_block(RulesObject *self, PyObject *args);
/* Rules.sowing_cells (classes.c): families.order.group of Sowing states at DEPTH 1. */
PyObject *Rules_cells(RulesObject *self, PyObject *states);

#endif
