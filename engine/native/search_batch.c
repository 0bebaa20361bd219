/* search_batch.c — Search.value_many: evaluator.value_many's loop over states, in C.
 *
 * The reference is the loop of ruma.engine.evaluator.value_many: for each state, its components
 * (Rules.decompose) are valued one after another by the search, and a state that is not a single
 * canonical component gets its own entry too, under the key of its canonical form (evaluate's
 * entry for it): the xor of its components' nim values, or for a partizan ruleset the sum of their
 * Games (mirrored ones negated), negated again when the canonical form is the mirror image — the
 * compiled kernel's sums and negatives (kernel.c, the Python kernel on a miss), as for an option.
 * In Python that loop cost more than the searches themselves when most components are known
 * already (a sweep, whose followers were valued with earlier classes): about 2 µs a state of
 * calls, tuples and lists around a table hit.
 *
 * A state this search does not take (not a tuple of exact ints in 0..RUMA_MAX_COUNT) ends the
 * call: its index is returned, and the caller values it through the reference and goes on. What
 * reaches the memo is what the reference's loop hands it, and positions_valued counts the same (a
 * state's own entry is kept, not counted: search_keep_sum).
 */
#include "search.h"

/* Value one taken state (its pots in `row`): its components, then its own entry if due. */
static int value_state(SearchObject *s, const pot_t *row, size_t n, Rows *pieces, Rows *canon, Scratch *sc) {
    int family = s->rules->family;
    rows_clear(pieces);
    rows_clear(canon);
    if (family_decompose(family, row, n, pieces, sc) < 0 || family_normalise(family, row, n, canon, sc) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    /* evaluator._combine: the xor of nim values, or the sum of Games (mirrored components negated;
     * ZERO is id 0, and 0 + G is G) */
    int impartial = s->rules->impartial;
    int32_t total = 0;
    for (size_t k = 0; k < pieces->count; k++) {
        size_t m;
        const pot_t *piece = rows_row(pieces, k, &m);
        int32_t value;
        if (search_component(s, piece, m, &value) < 0) return -1;
        if (impartial) {
            total ^= value;
        } else if ((pieces->flag[k] && kernel_neg(value, &value) < 0) || kernel_add(total, value, &total) < 0) {
            return -1;
        }
    }
    size_t cn, m = 0;
    const pot_t *canonical = rows_row(canon, 0, &cn);
    const pot_t *single = pieces->count == 1 ? rows_row(pieces, 0, &m) : NULL;
    if (single && m == cn && (cn == 0 || memcmp(single, canonical, cn * sizeof *canonical) == 0))
        return 0; /* the state is its one canonical component: valued under its own key already */
    if (!impartial && canon->flag[0] && kernel_neg(total, &total) < 0) return -1; /* (the canonical orientation's) */
    return search_keep_sum(s, canonical, cn, total);
}

/* Search.value_many(states, start) -> the index of the first state from `start` on that this
 * search does not take, or len(states) when it took them all. */
PyObject *Search_value_many(SearchObject *s, PyObject *args) {
    PyObject *states;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "O!n:value_many", &PyList_Type, &states, &start)) return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Search.value_many re-entered from a callback");
        return NULL;
    }
    if (start < 0 || start > PyList_GET_SIZE(states)) {
        PyErr_Format(PyExc_ValueError, "value_many: start %zd is not an index of the %zd states", start,
                     PyList_GET_SIZE(states));
        return NULL;
    }
    if (search_ready(s) < 0) return NULL;
    Rows pieces, canon;
    Scratch sc;
    Buf row = {NULL, 0};
    rows_init(&pieces);
    rows_init(&canon);
    scratch_init(&sc);
    Py_INCREF(states); /* (the memo's callbacks run meanwhile) */
    s->busy = 1;
    int ok = 1;
    Py_ssize_t k = start;
    for (; k < PyList_GET_SIZE(states); k++) {
        size_t n; /* (state_to_pots calls no Python: the borrowed item stays alive meanwhile) */
        int rc = state_to_pots(PyList_GET_ITEM(states, k), &row, &n);
        if (rc > 0) break; /* not taken: the caller's reference path */
        s->batch_index = k;
        if (rc < 0 || value_state(s, row.v, n, &pieces, &canon, &sc) < 0) {
            ok = 0;
            break;
        }
    }
    if (ok && flush_pending(s) < 0) ok = 0; /* (an interruption flushed them already) */
    s->batch_index = -1;
    search_done(s, ok);
    Py_DECREF(states);
    free(row.v);
    rows_free(&pieces);
    rows_free(&canon);
    scratch_free(&sc);
    return ok ? PyLong_FromSsize_t(k) : NULL;
}
