/* classes.c — Rules.classes: the normalisation classes of a family of unbounded rows, in C.
 *
 * The reference is ruma.engine.families.classes.enumerate_family (its docstring defines raw
 * positions, classes, the two orientations' counts and the representatives); this walks the same
 * stripped rows in the same order and keeps the same books, so the two agree class for class
 * (tests/engine/test_family_classes_native.py compares them on every unbounded ruleset). The Python walk
 * costs ~3.5 µs a row (a generator step, a tuple, a dict probe and a call per row); here a row is
 * normalised and keyed in place and looked up in the search's compact table (table.c), and Python
 * objects are made once per class at the end.
 *
 * Rows: for each seed count s (ascending) and each length m (ascending), every row of m counts
 * summing to s with nonzero first and last pots, in lexicographic order, standing for `weight`
 * raw rows (its paddings with empty pots to a length in pots_min..pots_max); the empty row once,
 * as pots_min zeros. A row whose mirror image is smaller is skipped: it is counted with its
 * mirror, which comes first.
 */
#include "core.h"
#include "table.h"

typedef struct {
    long long raw, raw_mirrored;
    int64_t seeds;               /* Ruleset.size's seeds of the canonical state (the sort's first key) */
    size_t state_off, state_len; /* the canonical state in the arena */
    size_t rep_off, rep_m_off;   /* representatives in the arena (SIZE_MAX: none); length = m of its slice */
    size_t rep_len, rep_m_len;
} Class;

typedef struct {
    const RulesObject *rules;
    int partizan;
    Table table;     /* key body -> class index */
    Class *classes;
    size_t nclasses, classes_cap;
    Buf arena;       /* canonical states and representatives, back to back */
    size_t arena_len;
    uint8_t *key;
    size_t key_cap;
    Scratch sc;
    Rows out;
    pot_t *mirror;
    long long walked;
    PyObject *should_cancel;
    int cancelled;
    long long part, parts, turn; /* visit only the rows with turn % parts == part (see Rules_classes) */
    int decided;                 /* the rows visited now are this part's already (their group's turn) */
    int brief;                   /* Rules.class_states: the raw rows counted in `total` only, no books a class */
    long long total;
} Walk;

static int arena_put(Walk *w, const pot_t *row, size_t n, size_t *off) {
    pot_t *at = buf_reserve(&w->arena, w->arena_len + n + 1);
    if (!at) return -1;
    memcpy(w->arena.v + w->arena_len, row, n * sizeof *row);
    *off = w->arena_len;
    w->arena_len += n;
    return 0;
}

static pot_t row_sum(const pot_t *row, size_t n) {
    pot_t total = 0;
    for (size_t k = 0; k < n; k++) total += row[k];
    return total;
}

/* Lexicographic comparison of two rows of equal length. */
static int row_cmp(const pot_t *a, const pot_t *b, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* families.classes._count: add weight raw rows to one orientation, keeping the simplest row (rows come
 * simplest first but for mirrors counted out of turn, of the same seeds and length: a held row is
 * replaced only by a smaller one of its own length; the seed count is the slice's, equal too). */
static int count_row(Walk *w, size_t c, const pot_t *row, size_t n, long long weight, int mirrored) {
    if (w->brief) {
        if (__builtin_add_overflow(w->total, weight, &w->total)) goto overflow;
        return 0;
    }
    Class *k = &w->classes[c];
    long long *raw = mirrored ? &k->raw_mirrored : &k->raw;
    size_t *off = mirrored ? &k->rep_m_off : &k->rep_off, *len = mirrored ? &k->rep_m_len : &k->rep_len;
    if (__builtin_add_overflow(*raw, weight, raw)) goto overflow;
    if (*off == SIZE_MAX ||
        (*len == n && row_cmp(row, w->arena.v + *off, n) < 0 && row_sum(w->arena.v + *off, n) == row_sum(row, n))) {
        if (*off != SIZE_MAX) {
            memcpy(w->arena.v + *off, row, n * sizeof *row); /* a smaller row of the same length: in place */
        } else {
            size_t at;
            if (arena_put(w, row, n, &at) < 0) return -1;
            *off = at;
            *len = n;
        }
    }
    return 0;
overflow:
    PyErr_SetString(PyExc_OverflowError, "raw position count beyond 64 bits");
    return -1;
}

/* One stripped row of the walk (weight raw rows). */
static int visit(Walk *w, const pot_t *row, size_t n, long long weight) {
    if (w->should_cancel != Py_None && (++w->walked & 65535) == 0) {
        PyObject *r = PyObject_CallNoArgs(w->should_cancel);
        if (!r) return -1;
        int stop = PyObject_IsTrue(r);
        Py_DECREF(r);
        if (stop < 0) return -1;
        if (stop) {
            w->cancelled = 1;
            return 1;
        }
    }
    for (size_t k = 0; k < n; k++) w->mirror[k] = row[n - 1 - k];
    int versus = row_cmp(w->mirror, row, n);
    if (versus < 0) return 0; /* counted with its mirror image, which came first */
    if (w->parts > 1 && !w->decided && w->turn++ % w->parts != w->part) return 0; /* another part's row (and mirror) */
    rows_clear(&w->out);
    if (family_normalise(w->rules->family, row, n, &w->out, &w->sc) < 0) goto nomem;
    size_t cn;
    const pot_t *canon = rows_row(&w->out, 0, &cn);
    int mirrored = w->out.flag[0];
    long len = family_key_body(w->rules->family, canon, cn, &w->key, &w->key_cap);
    if (len < 0) goto nomem;
    uint32_t h = table_hash(w->key, (size_t)len);
    uint32_t rec = table_find(&w->table, w->key, (size_t)len, h);
    size_t c;
    if (rec == TABLE_NONE) {
        c = w->nclasses;
        if (c == w->classes_cap) {
            size_t cap = w->classes_cap ? 2 * w->classes_cap : 1024;
            Class *more = realloc(w->classes, cap * sizeof *more);
            if (!more) goto nomem;
            w->classes = more;
            w->classes_cap = cap;
        }
        if (table_add(&w->table, w->key, (size_t)len, h, (int32_t)c) == TABLE_NONE) goto nomem;
        Class *k = &w->classes[c];
        memset(k, 0, sizeof *k);
        k->rep_off = k->rep_m_off = SIZE_MAX;
        k->state_len = cn;
        int64_t pots;
        family_size(w->rules->family, canon, cn, &pots, &k->seeds);
        if (arena_put(w, canon, cn, &k->state_off) < 0) goto nomem;
        w->nclasses++;
    } else {
        c = (size_t)table_value(&w->table, rec);
    }
    if (count_row(w, c, row, n, weight, mirrored && w->partizan) < 0) return -1;
    if (versus != 0) {
        /* the mirror image is the same class, in the other orientation unless the class is its
         * own mirror image (then both rows are in the canonical orientation) */
        const Class *k = &w->classes[c];
        int symmetric = 1; /* (brief: no orientations, so not looked at) */
        for (size_t i = 0; i < cn && symmetric && !w->brief; i++)
            symmetric = w->arena.v[k->state_off + i] == w->arena.v[k->state_off + cn - 1 - i];
        if (count_row(w, c, w->mirror, n, weight, w->partizan && !mirrored && !symmetric) < 0) return -1;
    }
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

/* Rows of m counts summing to `left` from position `pos` on (first >= 1, last >= 1), in
 * lexicographic order. Returns 0, 1 (cancelled) or -1. */
static int compositions(Walk *w, pot_t *row, size_t m, size_t pos, pot_t left, long long weight) {
    if (pos == m - 1) {
        if (left < 1) return 0;
        row[pos] = left;
        return visit(w, row, m, weight);
    }
    /* the rows that differ in their last two pots are one part's, as a group: the other parts
     * skip them without a look at each */
    int group = w->parts > 1 && pos + 2 == m;
    if (group) {
        if (w->turn++ % w->parts != w->part) return 0;
        w->decided = 1;
    }
    int rc = 0;
    for (pot_t v = pos == 0 ? 1 : 0; v <= left - 1 && !rc; v++) {
        row[pos] = v;
        rc = compositions(w, row, m, pos + 1, left - v, weight);
    }
    if (group) w->decided = 0;
    return rc;
}

/* enumerate_family's order: sowable seeds, then length, then the state (lexicographic). */
static const Walk *sorting;
static int by_size(const void *x, const void *y) {
    const Class *a = &sorting->classes[*(const size_t *)x], *b = &sorting->classes[*(const size_t *)y];
    if (a->seeds != b->seeds) return a->seeds < b->seeds ? -1 : 1;
    if (a->state_len != b->state_len) return a->state_len < b->state_len ? -1 : 1;
    return row_cmp(sorting->arena.v + a->state_off, sorting->arena.v + b->state_off, a->state_len);
}

static PyObject *class_tuple(Walk *w, const Class *k) {
    PyObject *state = pots_to_tuple(w->arena.v + k->state_off, k->state_len);
    if (!state) return NULL;
    long kl = family_key_body(w->rules->family, w->arena.v + k->state_off, k->state_len, &w->key, &w->key_cap);
    PyObject *key = kl < 0 ? PyErr_NoMemory() : make_key(w->rules, w->key, (size_t)kl);
    PyObject *rep = k->rep_off == SIZE_MAX ? Py_NewRef(Py_None) : pots_to_tuple(w->arena.v + k->rep_off, k->rep_len);
    PyObject *rep_m = k->rep_m_off == SIZE_MAX ? Py_NewRef(Py_None)
                                               : pots_to_tuple(w->arena.v + k->rep_m_off, k->rep_m_len);
    if (!key || !rep || !rep_m) {
        Py_DECREF(state);
        Py_XDECREF(key);
        Py_XDECREF(rep);
        Py_XDECREF(rep_m);
        return NULL;
    }
    return Py_BuildValue("(NNLLNN)", state, key, k->raw, k->raw_mirrored, rep, rep_m);
}

/* The walk of Rules.classes (brief = 0) and Rules.class_states (brief = 1) over args (seeds_min,
 * seeds_max, pots_min, pots_max, should_cancel, part=0, parts=1) into w, the classes sorted into
 * *order (enumerate_family's order: seeds, pots, state). 0 when walked, 1 when should_cancel
 * answered true, -1 with an exception; walk_free(w, *order) in every case. */
static int walk_family(RulesObject *self, PyObject *args, const char *format, int brief, Walk *w, size_t **order) {
    long long a, b, c, d, part = 0, parts = 1;
    memset(w, 0, sizeof *w);
    w->brief = brief;
    *order = NULL;
    scratch_init(&w->sc);
    rows_init(&w->out);
    if (table_init(&w->table) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (!PyArg_ParseTuple(args, format, &a, &b, &c, &d, &w->should_cancel, &part, &parts)) return -1;
    if (a < 0 || b < a || c < 1 || d < c || b > RUMA_MAX_COUNT || d > 1 << 20) {
        PyErr_Format(PyExc_ValueError, "classes: bad family ranges seeds %lld..%lld pots %lld..%lld", a, b, c, d);
        return -1;
    }
    if (parts < 1 || part < 0 || part >= parts) {
        PyErr_Format(PyExc_ValueError, "classes: part %lld of %lld parts", part, parts);
        return -1;
    }
    w->part = part;
    w->parts = parts;
    w->rules = self;
    w->partizan = !self->impartial;
    int rc = -1;
    pot_t *row = malloc((size_t)(d + 1) * sizeof *row);
    w->mirror = malloc((size_t)(d + 1) * sizeof *row);
    if (!row || !w->mirror) {
        PyErr_NoMemory();
        goto done;
    }
    for (long long s = a; s <= b && !w->cancelled; s++) {
        if (s == 0) { /* the empty row, once per length: the shortest stands for all */
            memset(row, 0, (size_t)c * sizeof *row);
            if (visit(w, row, (size_t)c, d - c + 1) < 0) goto done;
            continue;
        }
        for (long long m = 1; m <= d && !w->cancelled; m++) {
            long long weight = 0;
            for (long long n = m > c ? m : c; n <= d; n++) weight += n - m + 1;
            if (weight == 0 || (m >= 2 && s < 2)) continue; /* (two nonempty ends need two seeds) */
            if (compositions(w, row, (size_t)m, 0, (pot_t)s, weight) < 0) goto done;
        }
    }
    if (w->cancelled) {
        rc = 1;
        goto done;
    }
    *order = malloc((w->nclasses ? w->nclasses : 1) * sizeof **order);
    if (!*order) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t k = 0; k < w->nclasses; k++) (*order)[k] = k;
    sorting = w; /* (qsort has no context argument; the GIL serialises calls) */
    qsort(*order, w->nclasses, sizeof **order, by_size);
    rc = 0;
done:
    free(row);
    return rc;
}

static void walk_free(Walk *w, size_t *order) {
    free(order);
    free(w->mirror);
    free(w->classes);
    free(w->arena.v);
    free(w->key);
    table_free(&w->table);
    rows_free(&w->out);
    scratch_free(&w->sc);
}

/* Rules.classes(seeds_min, seeds_max, pots_min, pots_max, should_cancel, part=0, parts=1) -> list
 * of (state, key, raw, raw_mirrored, representative, representative_mirrored) in
 * enumerate_family's order (seeds, pots, state), or None when should_cancel answered true.
 * With parts > 1, only every parts-th group of stripped rows of the walk (with their mirror images)
 * from the part-th on — rows of one pot one by one, longer ones by the group that differ only in
 * their last two pots, so a part skips the others' rows without a look at each (when each part
 * looked at every row, 16 parts' walks cost five times one walk): the processes of a sweep each
 * walk a part, and the raw counts of the parts add up
 * to the family's. A class reached by rows of several parts (Sowing's full pots) is in each of
 * them, with the counts of that part's rows. */
PyObject *Rules_classes(RulesObject *self, PyObject *args) {
    Walk w;
    size_t *order;
    PyObject *result = NULL;
    int rc = walk_family(self, args, "LLLLO|LL:classes", 0, &w, &order);
    if (rc == 1) result = Py_NewRef(Py_None);
    if (rc != 0) goto done;
    result = PyList_New((Py_ssize_t)w.nclasses);
    if (!result) goto done;
    for (size_t k = 0; k < w.nclasses; k++) {
        PyObject *t = class_tuple(&w, &w.classes[order[k]]);
        if (!t) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)k, t);
    }
done:
    walk_free(&w, order);
    return result;
}

/* Rules.class_states(seeds_min, seeds_max, pots_min, pots_max, should_cancel, part=0, parts=1) ->
 * (states, keys, raw) or None: the classes' canonical states and keys in Rules.classes' order and
 * the raw positions of the rows walked, without the books a class that only a census needs (its
 * counts by orientation and representatives): what a sweep values (families.classes.enumerate_states). */
PyObject *Rules_class_states(RulesObject *self, PyObject *args) {
    Walk w;
    size_t *order;
    PyObject *result = NULL, *states = NULL, *keys = NULL;
    int rc = walk_family(self, args, "LLLLO|LL:class_states", 1, &w, &order);
    if (rc == 1) result = Py_NewRef(Py_None);
    if (rc != 0) goto done;
    states = PyList_New((Py_ssize_t)w.nclasses);
    keys = PyList_New((Py_ssize_t)w.nclasses);
    if (!states || !keys) goto done;
    for (size_t k = 0; k < w.nclasses; k++) {
        const Class *c = &w.classes[order[k]];
        PyObject *state = pots_to_tuple(w.arena.v + c->state_off, c->state_len);
        if (!state) goto done;
        PyList_SET_ITEM(states, (Py_ssize_t)k, state);
        long kl = family_key_body(self->family, w.arena.v + c->state_off, c->state_len, &w.key, &w.key_cap);
        PyObject *key = kl < 0 ? PyErr_NoMemory() : make_key(self, w.key, (size_t)kl);
        if (!key) goto done;
        PyList_SET_ITEM(keys, (Py_ssize_t)k, key);
    }
    result = Py_BuildValue("(OOL)", states, keys, w.total);
done:
    Py_XDECREF(states);
    Py_XDECREF(keys);
    walk_free(&w, order);
    return result;
}

/* A pot in a class row (class_rows): one byte below 255, else 255 and its 8 bytes (little-endian). */
static size_t row_pot_put(uint8_t *out, pot_t p) {
    if (p >= 0 && p < 255) {
        if (out) out[0] = (uint8_t)p;
        return 1;
    }
    if (out) {
        out[0] = 255;
        for (int b = 0; b < 8; b++) out[1 + b] = (uint8_t)((uint64_t)p >> (8 * b));
    }
    return 9;
}

/* Rules.class_rows(seeds_min, seeds_max, pots_min, pots_max, should_cancel, part=0, parts=1) ->
 * (rows, ends, raw) or None: class_states' states as two bytes objects — every state's pots back to
 * back (row_pot_put), and the end of each state in them (uint64, little-endian) — for a sweep's
 * worker, whose part of a large family as Python tuples and keys took 214 bytes a class;
 * class_block turns a block of them into states and keys. */
PyObject *Rules_class_rows(RulesObject *self, PyObject *args) {
    Walk w;
    size_t *order;
    PyObject *result = NULL, *rows = NULL, *ends = NULL;
    int rc = walk_family(self, args, "LLLLO|LL:class_rows", 1, &w, &order);
    if (rc == 1) result = Py_NewRef(Py_None);
    if (rc != 0) goto done;
    size_t size = 0;
    for (size_t k = 0; k < w.nclasses; k++) {
        const Class *c = &w.classes[order[k]];
        for (size_t j = 0; j < c->state_len; j++) size += row_pot_put(NULL, w.arena.v[c->state_off + j]);
    }
    rows = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    ends = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(8 * w.nclasses));
    if (!rows || !ends) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(rows), *end = (uint8_t *)PyBytes_AS_STRING(ends);
    size_t at = 0;
    for (size_t k = 0; k < w.nclasses; k++) {
        const Class *c = &w.classes[order[k]];
        for (size_t j = 0; j < c->state_len; j++) at += row_pot_put(out + at, w.arena.v[c->state_off + j]);
        for (int b = 0; b < 8; b++) end[8 * k + b] = (uint8_t)((uint64_t)at >> (8 * b));
    }
    result = Py_BuildValue("(OOL)", rows, ends, w.total);
done:
    Py_XDECREF(rows);
    Py_XDECREF(ends);
    walk_free(&w, order);
    return result;
}

static uint64_t row_end(const uint8_t *ends, size_t k) {
    uint64_t v = 0;
    for (int b = 7; b >= 0; b--) v = v << 8 | ends[8 * k + b];
    return v;
}

/* Rules.class_block(rows, ends, indices, states=True) -> (states, keys): the states of class_rows'
 * classes at indices (in that order) and their keys, as class_states gives them (states=False:
 * the keys alone, and an empty list of states). */
PyObject *Rules_class_block(RulesObject *self, PyObject *args) {
    Py_buffer rows = {0}, ends = {0};
    PyObject *indices, *seq = NULL, *states = NULL, *keys = NULL, *result = NULL;
    pot_t *pots = NULL;
    size_t cap = 0;
    uint8_t *key = NULL;
    size_t key_cap = 0;
    int with_states = 1;
    if (!PyArg_ParseTuple(args, "y*y*O|p:class_block", &rows, &ends, &indices, &with_states)) return NULL;
    size_t n = (size_t)ends.len / 8;
    if (!(seq = PySequence_Fast(indices, "class_block: indices must be a sequence"))) goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    states = PyList_New(with_states ? count : 0);
    keys = PyList_New(count);
    if (!states || !keys) goto done;
    const uint8_t *r = rows.buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        size_t k = PyLong_AsSize_t(PySequence_Fast_GET_ITEM(seq, i));
        if (k == (size_t)-1 && PyErr_Occurred()) goto done;
        if (k >= n) {
            PyErr_Format(PyExc_IndexError, "class_block: class %zu of %zu", k, n);
            goto done;
        }
        uint64_t from = k ? row_end(ends.buf, k - 1) : 0, to = row_end(ends.buf, k);
        if (from > to || to > (uint64_t)rows.len) {
            PyErr_SetString(PyExc_ValueError, "class_block: ends do not fit the rows");
            goto done;
        }
        size_t m = 0;
        for (uint64_t at = from; at < to; m++) {
            if (m == cap) {
                cap = cap ? 2 * cap : 64;
                pot_t *more = realloc(pots, cap * sizeof *pots);
                if (!more) {
                    PyErr_NoMemory();
                    goto done;
                }
                pots = more;
            }
            if (r[at] < 255) {
                pots[m] = r[at++];
            } else if (at + 9 <= to) {
                uint64_t v = 0;
                for (int b = 8; b >= 1; b--) v = v << 8 | r[at + b];
                pots[m] = (pot_t)v;
                at += 9;
            } else {
                PyErr_SetString(PyExc_ValueError, "class_block: a pot runs past its row");
                goto done;
            }
        }
        if (with_states) {
            PyObject *state = pots_to_tuple(pots, m);
            if (!state) goto done;
            PyList_SET_ITEM(states, i, state);
        }
        long kl = family_key_body(self->family, pots, m, &key, &key_cap);
        PyObject *made = kl < 0 ? PyErr_NoMemory() : make_key(self, key, (size_t)kl);
        if (!made) goto done;
        PyList_SET_ITEM(keys, i, made);
    }
    result = PyTuple_Pack(2, states, keys);
done:
    Py_XDECREF(seq);
    Py_XDECREF(states);
    Py_XDECREF(keys);
    free(pots);
    free(key);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&ends);
    return result;
}

/* Sowing's sweep cell of a canonical state at depth 1 (SowingRuleset.sweep_cell_of, unrolled there too):
 * ((sowable seeds, pots),) and, for a nonempty row, the sorted end pots, and, when an interior
 * pot is nonempty, the sorted gaps between the ends and the interior's nonempty span. Computed
 * as numbers (levels = how many pairs); the tuple is built once per distinct cell. */
typedef struct {
    long long v[6];
    long long levels; /* (a long long: no padding, so the struct's bytes are exactly its numbers) */
} CellKey;

static void sowing_cell_key(const pot_t *v, size_t n, CellKey *c) {
    memset(c, 0, sizeof *c);
    long long seeds = 0;
    for (size_t k = 0; k < n; k++) seeds += v[k] == RUMA_FULL ? 0 : v[k];
    c->v[0] = seeds;
    c->v[1] = (long long)n;
    c->levels = 1;
    if (n == 0) return;
    c->v[2] = v[0] <= v[n - 1] ? v[0] : v[n - 1];
    c->v[3] = v[0] <= v[n - 1] ? v[n - 1] : v[0];
    c->levels = 2;
    if (n < 3) return;
    size_t i = 1, j = n - 2;
    while (i <= j && v[i] == 0) i++;
    if (i > j) return;
    while (v[j] == 0) j--;
    long long a = (long long)(i - 1), b = (long long)(n - 2 - j);
    c->v[4] = a <= b ? a : b;
    c->v[5] = a <= b ? b : a;
    c->levels = 3;
}

/* Atomic Wari's sweep cell of a canonical state (AtomicWariRuleset.sweep_cell): ((seeds, Q - P),),
 * Q and P the reach bounds of rulesets/atomic_wari.py (reach_right, reach_left; 0 for the empty
 * row); on a board, ((seeds, pots),) (Ruleset.size). */
static void wari_cell_key(const pot_t *v, size_t n, int board, CellKey *c) {
    memset(c, 0, sizeof *c);
    long long seeds = 0;
    for (size_t k = 0; k < n; k++) seeds += v[k];
    c->v[0] = seeds;
    c->levels = 1;
    if (board || n == 0) {
        c->v[1] = board ? (long long)n : 0;
        return;
    }
    long long q = -1, p = (long long)n, sum = 0;
    for (size_t j = n; j-- > 0;) { /* Q: the furthest pot a rightward sowing of a suffix reaches */
        sum += v[j];
        if (sum && (long long)j + sum - 1 > q) q = (long long)j + sum - 1;
    }
    sum = 0;
    for (size_t j = 0; j < n; j++) { /* P: the furthest pot a leftward sowing of a prefix reaches */
        sum += v[j];
        if (sum && (long long)j - sum + 1 < p) p = (long long)j - sum + 1;
    }
    c->v[1] = q - p;
}

static PyObject *cell_tuple(const CellKey *c) {
    if (c->levels == 1) return Py_BuildValue("((LL))", c->v[0], c->v[1]);
    if (c->levels == 2) return Py_BuildValue("((LL)(LL))", c->v[0], c->v[1], c->v[2], c->v[3]);
    return Py_BuildValue("((LL)(LL)(LL))", c->v[0], c->v[1], c->v[2], c->v[3], c->v[4], c->v[5]);
}

/* Rules.cells(states) -> {cell: [state, ...]} (families.order.group: Sowing at depth 1, Atomic Wari,
 * each cell's states in the given order), or None when a state is not a tuple of counts the
 * compiled code takes (the caller groups in Python then). A cell is found by its numbers (the
 * CellKey's bytes) in the search's compact table (table.c), whose value is the cell's index in
 * `members`: a state costs no tuple and no dict probe. */
PyObject *Rules_cells(RulesObject *self, PyObject *states) {
    PyObject *seq = PySequence_Fast(states, "cells takes a sequence of states");
    if (!seq) return NULL;
    PyObject *cells = PyDict_New(), *members = PyList_New(0), *result = NULL;
    Buf buf = {NULL, 0};
    Table table;
    int table_ok = table_init(&table) == 0;
    if (!cells || !members || !table_ok) {
        if (!table_ok) PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *state = PySequence_Fast_GET_ITEM(seq, k);
        size_t n;
        int rc = state_to_pots(state, &buf, &n);
        if (rc < 0) goto done;
        if (rc > 0) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        CellKey c; /* (zeroed whole by *_cell_key: its bytes are the table's key) */
        if (self->family == FAM_SOWING)
            sowing_cell_key(buf.v, n, &c);
        else
            wari_cell_key(buf.v, n, self->family == FAM_BOARD, &c);
        const uint8_t *body = (const uint8_t *)&c;
        uint32_t h = table_hash(body, sizeof c);
        uint32_t rec = table_find(&table, body, sizeof c, h);
        PyObject *list;
        if (rec == TABLE_NONE) {
            PyObject *cell = cell_tuple(&c);
            list = PyList_New(0);
            int bad = !cell || !list || PyDict_SetItem(cells, cell, list) < 0 || PyList_Append(members, list) < 0 ||
                      table_add(&table, body, sizeof c, h, (int32_t)(PyList_GET_SIZE(members) - 1)) == TABLE_NONE;
            Py_XDECREF(cell);
            Py_XDECREF(list); /* (the dict and `members` hold it) */
            if (bad) {
                if (!PyErr_Occurred()) PyErr_NoMemory();
                goto done;
            }
        } else {
            list = PyList_GET_ITEM(members, table_value(&table, rec));
        }
        if (PyList_Append(list, state) < 0) goto done;
    }
    result = Py_NewRef(cells);
done:
    Py_XDECREF(cells);
    Py_XDECREF(members);
    Py_DECREF(seq);
    free(buf.v);
    if (table_ok) table_free(&table);
    return result;
}
