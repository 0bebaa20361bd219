/* search_type.c — the Python type of the compiled search (``_core.Search``): its construction from
 * the memo's capabilities record (ruma.engine.memo.capabilities) and the kernel's callables,
 * garbage-collector support, ``value`` and ``stats``.
 * The search itself is search.c; ``value_many`` is search_batch.c.
 */
#include "search.h"

/* Search.value(component) -> the nim value or Game id of a normalised component. */
static PyObject *Search_value(SearchObject *s, PyObject *state) {
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Search.value re-entered from a callback");
        return NULL;
    }
    size_t n;
    int rc = state_to_pots(state, &s->sc.a, &n);
    if (rc < 0) return NULL;
    if (rc > 0) return Py_NewRef(Py_NotImplemented); /* not a tuple of counts it takes: the caller's reference search */
    if (search_ready(s) < 0) return NULL;
    int32_t value;
    PyObject *result = NULL;
    s->busy = 1;
    if (search_component(s, s->sc.a.v, n, &value) == 0 && flush_pending(s) == 0) result = PyLong_FromLong(value);
    search_done(s, result != NULL);
    return result;
}

/* ---------------------------------------------------------------------------------------- */
/* the type                                                                                  */

/* The fields of the memo's capabilities record (ruma.engine.memo.MemoCapabilities) the search keeps. */
static const char *const CAPABILITIES[] = {"lookup", "lookup_many", "insert_many", "entries", "new", "compact",
                                           "recent", "shared", "shared_games", "insert_packed"};
#define N_CAPABILITIES (sizeof CAPABILITIES / sizeof *CAPABILITIES)

/* The work of Search_init (below) on the record's fields (borrowed, in CAPABILITIES' order). The
 * values the search reads before asking the memo (cache) are the sweep's shared table when the
 * memo has one, else its recent values; packed hand-overs are for nim values only, and a shared
 * games table comes with a partizan ruleset's shared table. */
static int search_setup(SearchObject *s, RulesObject *rules, PyObject **got, PyObject *progress,
                        PyObject *should_cancel, long long max_positions, PyObject *octal) {
    PyObject *lookup = got[0], *lookup_many = got[1], *insert_many = got[2], *entries = got[3], *record = got[4];
    PyObject *compact = got[5], *recent = got[6], *shared_values = got[7], *shared_games = got[8];
    PyObject *cache = shared_values != Py_None ? shared_values : recent;
    PyObject *insert_packed = rules->impartial ? got[9] : Py_None;
    PyObject *games = !rules->impartial && shared_values != Py_None ? shared_games : Py_None;
    if (insert_packed != Py_None && !PyCallable_Check(insert_packed)) {
        PyErr_SetString(PyExc_TypeError, "insert_packed must be callable or None");
        return -1;
    }
    if (record != Py_None && (!PyList_CheckExact(record) || entries == Py_None)) {
        PyErr_SetString(PyExc_TypeError, "record must be a list (and entries a dict) or None");
        return -1;
    }
    if (compact != Py_None && !PyObject_TypeCheck(compact, &CompactMemo_Type)) {
        PyErr_SetString(PyExc_TypeError, "compact must be a CompactMemo or None");
        return -1;
    }
    int shared = PyObject_TypeCheck(cache, &SharedValues_Type);
    if (cache != Py_None && !PyDict_CheckExact(cache) && !PyObject_TypeCheck(cache, &CompactMemo_Type) && !shared) {
        PyErr_SetString(PyExc_TypeError, "cache must be a CompactMemo, a dict, a SharedValues or None");
        return -1;
    }
    if (shared && (((SharedValuesObject *)cache)->code != rules->code ||
                   ((SharedValuesObject *)cache)->version != rules->version || !((SharedValuesObject *)cache)->head)) {
        PyErr_SetString(PyExc_ValueError, "a SharedValues cache holds the values of this ruleset only");
        return -1;
    }
    /* a partizan ruleset's shared values are shared game ids: the games table comes with them */
    int with_games = PyObject_TypeCheck(games, &SharedGames_Type);
    if ((games != Py_None && !with_games) || (shared && !rules->impartial) != with_games ||
        (with_games && !((SharedGamesObject *)games)->head)) {
        PyErr_SetString(PyExc_TypeError, "shared_games: the sweep's SharedGames with a SharedValues cache of a "
                                         "partizan ruleset, else None");
        return -1;
    }
    if (entries != Py_None && !PyDict_CheckExact(entries)) {
        PyErr_SetString(PyExc_TypeError, "entries must be a dict or None");
        return -1;
    }
    if (s->rules) {
        PyErr_SetString(PyExc_RuntimeError, "Search is already initialised");
        return -1;
    }
    Py_INCREF(rules);
    s->rules = rules;
#define KEEP(field)   \
    Py_INCREF(field); \
    s->field = field;
    KEEP(lookup)
    KEEP(lookup_many)
    KEEP(insert_many)
    KEEP(entries)
    KEEP(record)
    KEEP(progress)
    KEEP(should_cancel)
    KEEP(octal)
    KEEP(cache)
    KEEP(insert_packed)
#undef KEEP
    s->shared = shared ? (SharedValuesObject *)cache : NULL; /* (held through cache) */
    if (with_games) s->shared_games = (SharedGamesObject *)Py_NewRef(games);
    s->max_positions = max_positions;
    s->flush_at = FLUSH_FIRST;
    s->batch_index = -1;
    if (compact != Py_None) s->compact = (CompactMemoObject *)Py_NewRef(compact);
    /* nim values in a table with packed keys and value bytes; Game ids in wide blocks */
    if ((rules->impartial ? table_init_packed(&s->own) : table_init_wide(&s->own)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    s->t = &s->own;
    Table *adopted = s->compact && !s->shared ? compact_adopt(s->compact, rules->code, rules->version,
                                                              rules->impartial ? MEMO_NIM : MEMO_GAME)
                                              : NULL;
    if (adopted) { /* the memo's table is the search's: each position is held once */
        s->t = adopted;
        s->unified = 1;
    }
    s->t->moved = search_moved;
    s->t->moved_ctx = s;
    scratch_init(&s->sc);
    rows_init(&s->opts);
    rows_init(&s->pieces);
    return 0;
}

static int Search_init(SearchObject *s, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"rules", "memo", "progress", "should_cancel", "max_positions", "octal", NULL};
    RulesObject *rules;
    PyObject *memo, *progress, *should_cancel, *octal, *got[N_CAPABILITIES] = {NULL};
    long long max_positions;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOOLO", kwlist, &Rules_Type, &rules, &memo, &progress,
                                     &should_cancel, &max_positions, &octal))
        return -1;
    for (size_t f = 0; f < N_CAPABILITIES; f++)
        if (!(got[f] = PyObject_GetAttrString(memo, CAPABILITIES[f]))) {
            for (size_t g = 0; g < f; g++) Py_DECREF(got[g]);
            return -1;
        }
    int rc = search_setup(s, rules, got, progress, should_cancel, max_positions, octal);
    for (size_t f = 0; f < N_CAPABILITIES; f++) Py_DECREF(got[f]);
    return rc;
}

static int Search_traverse(SearchObject *s, visitproc visit, void *arg) {
    Py_VISIT(s->rules);
    Py_VISIT(s->lookup);
    Py_VISIT(s->lookup_many);
    Py_VISIT(s->insert_many);
    Py_VISIT(s->entries);
    Py_VISIT(s->record);
    Py_VISIT(s->compact);
    Py_VISIT(s->progress);
    Py_VISIT(s->should_cancel);
    Py_VISIT(s->octal);
    Py_VISIT(s->cache);
    Py_VISIT(s->insert_packed);
    Py_VISIT(s->shared_games);
    return 0;
}

/* Give the memo's table back (before the reference to the memo goes). */
static void release_table(SearchObject *s) {
    if (s->unified && s->compact) compact_release(s->compact, s->t);
    s->unified = 0;
    s->t = &s->own;
}

static int Search_clear(SearchObject *s) {
    release_table(s);
    Py_CLEAR(s->rules);
    Py_CLEAR(s->lookup);
    Py_CLEAR(s->lookup_many);
    Py_CLEAR(s->insert_many);
    Py_CLEAR(s->entries);
    Py_CLEAR(s->record);
    Py_CLEAR(s->compact);
    Py_CLEAR(s->progress);
    Py_CLEAR(s->should_cancel);
    Py_CLEAR(s->octal);
    Py_CLEAR(s->cache);
    Py_CLEAR(s->insert_packed);
    Py_CLEAR(s->shared_games);
    return 0;
}

static void Search_dealloc(SearchObject *s) {
    PyObject_GC_UnTrack(s);
    Search_clear(s);
    table_free(&s->own);
    s->t = NULL;
    scratch_free(&s->sc);
    rows_free(&s->opts);
    rows_free(&s->pieces);
    free(s->key);
    free(s->frames);
    free(s->comps);
    free(s->path);
    free(s->pending);
    free(s->full);
    free(s->batch);
    free(s->acc);
    free(s->ids);
    free(s->pieces_opt);
    free(s->key_hash);
    free(s->key_packed);
    free(s->keys);
    free(s->one_key);
    free(s->key_at);
    free(s->seen);
    free(s->octal_values);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *Search_stats(SearchObject *s, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("{sLsLsLsLsnsnsLsLsLsL}", "positions_valued", s->valued, "memo_hits", s->hits,
                         "memo_misses", s->misses, "expansions", s->expansions, "table_entries",
                         (Py_ssize_t)(s->t ? s->t->count : 0), "table_bytes", (Py_ssize_t)(s->t ? table_bytes(s->t) : 0), "shared_hits",
                         s->shared_hits, "shared_lost", s->shared_lost, "shared_deferred", s->shared_deferred,
                         "shared_overlaps", s->shared_overlaps);
}

static PyMethodDef Search_methods[] = {
    {"value", (PyCFunction)Search_value, METH_O,
     "value(component) -> nim value (impartial) or Game id (partizan) of a normalised component."},
    {"value_many", (PyCFunction)Search_value_many, METH_VARARGS,
     "value_many(states, start) -> index: value states[start:] as evaluator.value_many does, "
     "up to the first state this search does not take (its index; len(states) when none)."},
    {"stats", (PyCFunction)Search_stats, METH_NOARGS,
     "stats() -> counters: positions valued, memo hits and misses, expansions, table entries and bytes."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject Search_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruma.engine.native._core.Search",
    .tp_basicsize = sizeof(SearchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "One evaluation's compiled search (see search.c); made by ruma.engine.native.search.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_traverse = (traverseproc)Search_traverse,
    .tp_clear = (inquiry)Search_clear,
    .tp_methods = Search_methods,
};
