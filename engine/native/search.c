/* search.c — the compiled evaluator: an iterative depth-first search over a compact hash table.
 *
 * The Python reference is ruma.engine.search.Search: value a normalised component by valuing
 * every unknown component of every option first, then mex (impartial: nim values, xor within an
 * option) or {Left sums | Right sums} canonicalised by the interned Python kernel (partizan: the
 * values are Game ids, sums and negatives come from the kernel too, so Game interning is untouched).
 *
 * Python is called only
 *   - to consult the persistent memo about a component the table has never seen (memo.lookup),
 *   - to hand newly valued (key, value) pairs back in bulk (memo.insert_many, every
 *     FLUSH_FIRST..FLUSH_MOST values and before returning or raising, so everything valued is in
 *     the memo; a plain InMemoryMemo's dict or a CompactMemo's table is read and written
 *     directly; a memo's cache of stored values, `recent`, is read before the memo is asked),
 *   - for partizan canonical forms, sums and negatives not in the compiled kernel's caches
 *     (kernel.c: kernel._canon, _add, _neg on a miss) and Theorem 3.1's ·37 values,
 *   - every POLL_EVERY expansions, for should_cancel and progress.
 *
 * Table values: >= 0 a known value (nim value or Game id); the negative markers of search.h.
 * The memo traffic (batches of inserts and lookups, speculation) is in search_memo.c.
 * The DFS keeps, for each frame on the path, its state and the components of its options (record,
 * option index, mirrored flag, and the component's state while its value is unknown) in LIFO
 * arrays, so memory beyond the table is proportional to the depth of the search.
 */
#include "search.h"

/* ---------------------------------------------------------------------------------------- */
/* values                                                                                    */

static int raise_interrupted(SearchObject *s, const char *kind, const pot_t *state, size_t n) {
    /* everything valued so far goes to the memo first, as in the reference */
    if (flush_pending(s) < 0) return -1;
    PyObject *tuple = state ? pots_to_tuple(state, n) : (Py_INCREF(Py_None), Py_None);
    if (!tuple) return -1;
    /* (in Search.value_many: the index of the state being valued too) */
    PyObject *args = s->batch_index < 0 ? Py_BuildValue("(sN)", kind, tuple)
                                        : Py_BuildValue("(sNn)", kind, tuple, s->batch_index);
    if (!args) return -1;
    PyErr_SetObject(Interrupted, args);
    Py_DECREF(args);
    return -1;
}

/* Theorem 3.1's nim value from the runs of deuces: xor of ·37 at each run length. Returns 0, 1
 * when the values are unavailable (then no direct value applies), -1 on error. */
static int octal_nim(SearchObject *s, const size_t *runs, size_t nruns, int64_t *out) {
    int64_t total = 0;
    for (size_t k = 0; k < nruns; k++) {
        size_t m = runs[k];
        if (m >= s->n_octal) {
            size_t cap = s->n_octal;
            if (GROW(s->octal_values, cap, m + 1) < 0) return -1;
            for (size_t j = s->n_octal; j <= m; j++) {
                PyObject *v = PyObject_CallFunction(s->octal, "n", (Py_ssize_t)j);
                if (!v) return -1;
                s->octal_values[j] = PyLong_AsLongLong(v);
                Py_DECREF(v);
                if (s->octal_values[j] == -1 && PyErr_Occurred()) return -1;
                if (s->octal_values[j] < 0) { /* the octal module is unavailable: no direct values */
                    Py_CLEAR(s->octal);
                    s->octal = Py_NewRef(Py_None);
                    return 1;
                }
            }
            s->n_octal = m + 1;
        }
        total ^= s->octal_values[m];
    }
    *out = total;
    return 0;
}

static int nimber_game_id(SearchObject *s, int64_t k, int64_t *out) {
    if ((size_t)k >= s->n_nimber) {
        size_t cap = s->n_nimber;
        if (GROW(s->nimber_ids, cap, (size_t)k + 1) < 0) return -1;
        for (size_t j = s->n_nimber; j <= (size_t)k; j++) {
            PyObject *v = PyObject_CallFunction(s->nimber_id, "n", (Py_ssize_t)j);
            if (!v) return -1;
            s->nimber_ids[j] = PyLong_AsLongLong(v);
            Py_DECREF(v);
            if (s->nimber_ids[j] == -1 && PyErr_Occurred()) return -1;
        }
        s->n_nimber = (size_t)k + 1;
    }
    *out = s->nimber_ids[k];
    return 0;
}

/* The direct value (Theorem 3.1) of a state, if it applies: 1 and *value, 0 if not, -1 error. */
static int direct_value(SearchObject *s, const pot_t *state, size_t n, int32_t *value) {
    if (s->rules->family == FAM_SOWING || s->octal == Py_None) return 0;
    size_t *runs = (size_t *)buf_reserve(&s->sc.d, n / 2 + 2); /* pot_t and size_t: 8 bytes */
    if (!runs) {
        PyErr_NoMemory();
        return -1;
    }
    size_t nruns;
    if (!family_sparse_runs(s->rules->family, state, n, runs, &nruns)) return 0;
    int64_t nim;
    int rc = octal_nim(s, runs, nruns, &nim);
    if (rc != 0) return rc < 0 ? -1 : 0;
    if (!s->rules->impartial && nimber_game_id(s, nim, &nim) < 0) return -1;
    *value = (int32_t)nim;
    return 1;
}

/* A component's value, or its marker (read from the table until it is a value: a probe of a large
 * table is a cache miss, and a component is looked at when the cursor reaches it and again when
 * its frame is valued). */
static inline int32_t comp_value(SearchObject *s, Comp *c) {
    if (c->value < 0) c->value = table_value(s->t, c->rec);
    return c->value;
}

/* The value of a finished frame from its components' values. */
static int frame_value(SearchObject *s, Frame *f, int32_t *value) {
    size_t nopts = f->nopts;
    if (GROW(s->acc, s->acc_cap, nopts + 1) < 0) return -1;
    int64_t *acc = s->acc;
    for (size_t k = 0; k < nopts; k++) acc[k] = 0; /* an option of no live component is 0 */
    if (s->rules->impartial) {
        for (size_t c = f->comps_begin; c < f->comps_end; c++)
            acc[s->comps[c].opt] ^= comp_value(s, &s->comps[c]);
        /* mex: at most nopts values, so the mex is at most nopts */
        if (GROW(s->seen, s->seen_cap, nopts + 1) < 0) return -1;
        memset(s->seen, 0, nopts + 1);
        for (size_t k = 0; k < nopts; k++)
            if ((size_t)acc[k] <= nopts) s->seen[acc[k]] = 1;
        int32_t mex = 0;
        while (s->seen[mex]) mex++;
        *value = mex;
        return 0;
    }
    /* partizan: acc[k] = sum of the option's components (mirrored ones negated), as Game ids */
    for (size_t c = f->comps_begin; c < f->comps_end; c++) {
        Comp *comp = &s->comps[c];
        int32_t part = comp_value(s, comp), sum;
        if (comp->mirrored && kernel_neg(part, &part) < 0) return -1;
        if (kernel_add((int32_t)acc[comp->opt], part, &sum) < 0) return -1; /* 0 + G = G: ZERO is id 0 */
        acc[comp->opt] = sum;
    }
    if (GROW(s->ids, s->ids_cap, nopts + 1) < 0) return -1;
    for (size_t k = 0; k < nopts; k++) s->ids[k] = (int32_t)acc[k];
    return kernel_canon(s->ids, f->split, s->ids + f->split, nopts - f->split, value);
}

/* Keep a value: table, the sweep's shared table, pending memo inserts. */
static int keep(SearchObject *s, uint32_t rec, int32_t value) {
    if (table_set(s->t, rec, value) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    /* published at once: the sweep's other workers read it before they search it (a claimed
     * frame's value is published in its claim's record when it leaves the path, just after) */
    if (s->shared && !(s->nframes && s->frames[s->nframes - 1].rec == rec && s->frames[s->nframes - 1].claim)) {
        size_t len;
        uint8_t scratch[TABLE_BODY_SCRATCH];
        const uint8_t *body = table_body(s->t, rec, &len, scratch);
        if (shared_add(s->shared, body, len, table_hash(body, len), value) < 0) s->shared_lost++;
    }
    if (s->unified) return 0; /* the memo's table holds it: nothing to hand over */
    if (GROW(s->pending, s->pending_cap, s->npending + 1) < 0) return -1;
    s->pending[s->npending++] = rec;
    return 0;
}

/* Hand the pending values over once there are flush_at of them (doubling it up to FLUSH_MOST). */
static int flush_when_due(SearchObject *s) {
    if (s->npending >= s->flush_at) {
        if (s->flush_at < FLUSH_MOST) s->flush_at *= 2;
        return flush_pending(s);
    }
    return 0;
}

/* Record a computed value: kept, counted, the limit checked. */
static int record(SearchObject *s, uint32_t rec, int32_t value, const pot_t *state, size_t n) {
    if (keep(s, rec, value) < 0) return -1;
    s->valued++;
    if (s->max_positions >= 0 && s->valued > s->max_positions) return raise_interrupted(s, "limit", state, n);
    return flush_when_due(s);
}


/* ---------------------------------------------------------------------------------------- */
/* the depth-first search                                                                    */

/* Push a frame for record rec whose state is path[src_off .. + len): copied to the top of path
 * (copy = 1; the source is a parent's component, which stays where it is until the parent pops),
 * or used in place (copy = 0; the root, alone on the path). The frame holds `claim` (shared_next):
 * given up here if no frame can be pushed, else when the frame pops (an error's pops included). */
static int push_frame(SearchObject *s, uint32_t rec, size_t src_off, size_t len, int copy, uint32_t claim) {
    if (GROW(s->frames, s->frames_cap, s->nframes + 1) < 0) {
        if (claim) shared_abandon(s->shared, claim - 1);
        return -1;
    }
    Frame *f = &s->frames[s->nframes++];
    memset(f, 0, sizeof *f);
    f->rec = rec;
    f->claim = claim;
    f->state_len = len;
    if (copy) {
        if (GROW(s->path, s->path_cap, s->path_len + len) < 0) return -1;
        /* by offset, after growing: path may have moved */
        memcpy(s->path + s->path_len, s->path + src_off, len * sizeof *s->path);
        f->state_off = s->path_len;
        s->path_len += len;
    } else {
        f->state_off = src_off;
    }
    table_set(s->t, rec, table_value(s->t, rec) == LOOKUP ? ACTIVE_LOOKUP : ACTIVE);
    return 0;
}

static void pop_frame(SearchObject *s) {
    Frame *f = &s->frames[--s->nframes];
    if (f->claim) shared_release(s, f);
    s->path_len = f->state_off;
    s->ncomps = f->comps_begin;
}

/* A record just added with the value the cache gave (or LOOKUP): queued for the lookup batch, or,
 * when the table is the memo's, known to be a miss at once. */
static int new_record(SearchObject *s, uint32_t r) {
    int32_t v = table_value(s->t, r);
    if (v != LOOKUP) return 0;
    if (s->unified) {
        s->misses++;
        table_set(s->t, r, UNKNOWN);
        return 0;
    }
    if (GROW(s->batch, s->batch_cap, s->nbatch + 1) < 0) return -1;
    s->batch[s->nbatch++] = r;
    return 0;
}

/* The value a new record starts with: the cache's, or LOOKUP. */
static int first_value(SearchObject *s, const uint8_t *body, size_t len, uint32_t h, int32_t *v) {
    *v = LOOKUP;
    if (s->cache == Py_None) return 0;
    int hit = cache_get(s, body, len, h, v);
    if (hit < 0) return -1;
    if (hit) s->hits++;
    return 0;
}

/* Find or add the record of a key body in the general part; new records go into the lookup batch. */
static int key_record(SearchObject *s, const uint8_t *body, size_t len, uint32_t h, uint32_t *rec) {
    uint32_t r = table_find(s->t, body, len, h);
    if (r == TABLE_NONE) {
        int32_t v;
        if (first_value(s, body, len, h, &v) < 0) return -1;
        r = table_add(s->t, body, len, h, v);
        if (r == TABLE_NONE) {
            PyErr_NoMemory();
            return -1;
        }
        if (new_record(s, r) < 0) return -1;
    }
    *rec = r;
    return 0;
}

/* The same for a packed key (table.h): the cache, when there is one, is asked about its body. */
static int packed_record(SearchObject *s, uint64_t key, uint64_t hash, uint32_t *rec) {
    uint32_t r = table_find_packed(s->t, key, hash);
    if (r == TABLE_NONE) {
        int32_t v = LOOKUP;
        if (s->cache != Py_None) {
            uint8_t body[TABLE_BODY_SCRATCH];
            size_t len = table_unpack(key, body);
            if (first_value(s, body, len, table_hash(body, len), &v) < 0) return -1;
        }
        r = table_add_packed(s->t, key, hash, v);
        if (r == TABLE_NONE) {
            PyErr_NoMemory();
            return -1;
        }
        if (new_record(s, r) < 0) return -1;
    }
    *rec = r;
    return 0;
}

/* The record of a component (its key computed here). */
static int component_record(SearchObject *s, const pot_t *row, size_t n, uint32_t *rec) {
    uint64_t key;
    if (s->t->packed && family_packed_key(s->rules->family, row, n, &key))
        return packed_record(s, key, table_mix(key), rec);
    long len = family_key_body(s->rules->family, row, n, &s->key, &s->key_cap);
    if (len < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return key_record(s, s->key, (size_t)len, table_hash(s->key, (size_t)len), rec);
}

void search_moved(void *ctx, Table *t) {
    SearchObject *s = ctx;
    if (t != s->t) return;
    for (size_t k = 0; k < s->nframes; k++) s->frames[k].rec = table_relocate(t, s->frames[k].rec);
    for (size_t k = 0; k < s->ncomps; k++) s->comps[k].rec = table_relocate(t, s->comps[k].rec);
    for (size_t k = 0; k < s->npending; k++) s->pending[k] = table_relocate(t, s->pending[k]);
    for (size_t k = 0; k < s->nbatch; k++) s->batch[k] = table_relocate(t, s->batch[k]);
    s->root = table_relocate(t, s->root);
}

/* Keep value under the key of state (Search.value_many: a state's own entry when it is not a
 * single canonical component, as evaluate inserts it) unless the table knows the key already. */
int search_keep_sum(SearchObject *s, const pot_t *state, size_t n, int32_t value) {
    uint32_t rec;
    size_t queued = s->nbatch;
    if (component_record(s, state, n, &rec) < 0) return -1;
    if (s->nbatch > queued) s->nbatch = queued; /* (the memo is not asked: as RecordingMemo.insert) */
    if (table_value(s->t, rec) >= 0) return 0; /* known already: kept, as a memo keeps the first value */
    if (keep(s, rec, value) < 0) return -1;
    return flush_when_due(s);
}

/* First visit of a frame: the direct value, or the options' components (memo consulted, or queued
 * for a batch when speculating). Returns 1 when the frame was valued directly, 0 when expanded, 2
 * when a batch of lookups settled frames on the path (look at the top again), -1 on error.
 *
 * Two passes over the components: the first decomposes every option and hashes every component's
 * key, prefetching its index slot; the second probes the table. The probes are cache misses on a
 * big table, and this way they overlap instead of waiting one after the other. */
static int expand(SearchObject *s, Frame *f) {
    f->expanded = 1;
    f->comps_begin = f->comps_end = f->cursor = s->ncomps;
    const pot_t *state = s->path + f->state_off;
    size_t n = f->state_len;
    int32_t direct;
    int found = direct_value(s, state, n, &direct);
    if (found < 0) return -1;
    if (found) return record(s, f->rec, direct, state, n) < 0 ? -1 : 1;

    RulesObject *rules = s->rules;
    rows_clear(&s->opts);
    if (rules_options(rules, state, n, +1, &s->opts) < 0) goto nomem;
    f->split = (uint32_t)s->opts.count;
    if (!rules->impartial && rules_options(rules, state, n, -1, &s->opts) < 0) goto nomem;
    f->nopts = (uint32_t)s->opts.count;

    /* pass 1: every option's components, their keys (packed, or bodies back to back in s->keys)
     * and hashes */
    rows_clear(&s->pieces);
    size_t nkeys = 0, keys_len = 0;
    int packs = s->t->packed;
    for (size_t k = 0; k < s->opts.count; k++) {
        size_t on, first = s->pieces.count;
        const pot_t *option = rows_row(&s->opts, k, &on);
        if (family_decompose(rules->family, option, on, &s->pieces, &s->sc) < 0) goto nomem;
        for (size_t p = first; p < s->pieces.count; p++) {
            size_t pn;
            const pot_t *piece = rows_row(&s->pieces, p, &pn);
            if (GROW(s->pieces_opt, s->pieces_opt_cap, p + 1) < 0) return -1;
            if (GROW(s->key_at, s->key_at_cap, nkeys + 2) < 0) return -1;
            if (GROW(s->key_hash, s->key_hash_cap, nkeys + 1) < 0) return -1;
            if (GROW(s->key_packed, s->key_packed_cap, nkeys + 1) < 0) return -1;
            s->pieces_opt[p] = (uint32_t)k;
            s->key_at[nkeys] = keys_len;
            uint64_t key;
            if (packs && family_packed_key(rules->family, piece, pn, &key)) {
                uint64_t h = table_mix(key);
                s->key_packed[nkeys] = key;
                s->key_hash[nkeys] = h;
                table_prefetch_packed(s->t, h);
            } else {
                long len = family_key_body(rules->family, piece, pn, &s->one_key, &s->one_key_cap);
                if (len < 0) goto nomem;
                if (GROW(s->keys, s->keys_cap, keys_len + (size_t)len) < 0) return -1;
                memcpy(s->keys + keys_len, s->one_key, (size_t)len);
                keys_len += (size_t)len;
                uint32_t h = table_hash(s->keys + s->key_at[nkeys], (size_t)len);
                s->key_packed[nkeys] = 0;
                s->key_hash[nkeys] = h;
                table_prefetch(s->t, h);
            }
            s->key_at[++nkeys] = keys_len;
        }
    }
    /* pass 2: the records, and the states of components whose value is not known yet */
    for (size_t p = 0; p < nkeys; p++) {
        uint32_t rec;
        int rc = s->key_packed[p] ? packed_record(s, s->key_packed[p], s->key_hash[p], &rec)
                                  : key_record(s, s->keys + s->key_at[p], s->key_at[p + 1] - s->key_at[p],
                                               (uint32_t)s->key_hash[p], &rec);
        if (rc < 0) return -1;
        if (GROW(s->comps, s->comps_cap, s->ncomps + 1) < 0) return -1;
        Comp *c = &s->comps[s->ncomps++];
        c->rec = rec;
        c->opt = s->pieces_opt[p];
        c->mirrored = s->pieces.flag[p];
        c->state_len = SIZE_MAX;
        c->value = table_value(s->t, rec);
        if (c->value < 0) { /* keep the state: it may have to be searched */
            size_t pn;
            const pot_t *piece = rows_row(&s->pieces, p, &pn);
            if (GROW(s->path, s->path_cap, s->path_len + pn) < 0) return -1;
            memcpy(s->path + s->path_len, piece, pn * sizeof *piece);
            c->state_off = s->path_len;
            c->state_len = pn;
            s->path_len += pn;
        }
    }
    f->comps_end = s->ncomps;
    if (!s->speculative || s->nbatch >= SPECULATIVE_BATCH) {
        int rc = lookup_batch(s);
        if (rc < 0) return -1;
        if (rc > 0) return 2; /* frames on the path were settled by the memo */
    }
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

static int poll(SearchObject *s) {
    if (s->should_cancel != Py_None) {
        PyObject *r = PyObject_CallNoArgs(s->should_cancel);
        if (!r) return -1;
        int stop = PyObject_IsTrue(r);
        Py_DECREF(r);
        if (stop < 0) return -1;
        if (stop) return raise_interrupted(s, "cancelled", NULL, 0);
    }
    if (s->progress != Py_None) {
        PyObject *r = PyObject_CallFunction(s->progress, "L", s->valued);
        if (!r) return -1;
        Py_DECREF(r);
    }
    return 0;
}

/* Value the frame on top of the stack and everything it needs. */
static int run(SearchObject *s) {
    while (s->nframes) {
        Frame *f = &s->frames[s->nframes - 1];
        if (!f->expanded) {
            if (++s->expansions % POLL_EVERY == 0 && poll(s) < 0) return -1;
            int rc = expand(s, f);
            if (rc < 0) return -1;
            if (rc == 2) continue; /* the stack changed */
            f = &s->frames[s->nframes - 1]; /* arrays may have moved */
            if (rc == 1) {
                pop_frame(s);
                continue;
            }
        }
        int pushed = 0;
        while (f->cursor < f->comps_end) {
            Comp *c = &s->comps[f->cursor];
            int32_t v = comp_value(s, c);
            if (v >= 0) {
                f->cursor++;
                continue;
            }
            if (v == ACTIVE || v == ACTIVE_LOOKUP) /* an unfinished ancestor: play would loop */
                return raise_interrupted(s, "loopy", s->path + c->state_off, c->state_len);
            uint32_t claim = 0;
            if (s->shared) { /* another worker may have valued it since the key was met, or be on it */
                int known = shared_next(s, f, &claim);
                c = &s->comps[f->cursor]; /* (the one to search: maybe a later component, swapped here) */
                if (known) {
                    f->cursor++;
                    continue;
                }
            }
            if (push_frame(s, c->rec, c->state_off, c->state_len, 1, claim) < 0) return -1;
            pushed = 1;
            break;
        }
        if (pushed) continue;
        int32_t value;
        if (frame_value(s, f, &value) < 0) return -1;
        uint32_t rec = f->rec;
        if (record(s, rec, value, s->path + f->state_off, f->state_len) < 0) return -1;
        pop_frame(s);
        if (s->nframes) { /* the parent's component at its cursor is this frame: its value, in hand */
            Frame *parent = &s->frames[s->nframes - 1];
            Comp *c = &s->comps[parent->cursor];
            if (parent->cursor < parent->comps_end && c->rec == rec) c->value = value;
        }
    }
    return 0;
}

int search_ready(SearchObject *s) {
    if (s->broken) {
        PyErr_SetString(PyExc_RuntimeError, "this search was interrupted; start a new one");
        return -1;
    }
    return 0;
}

void search_done(SearchObject *s, int ok) {
    s->busy = 0;
    if (!ok) { /* markers of the interrupted search are left in the table; its claims are given up */
        s->broken = 1;
        while (s->nframes) {
            /* (a memo's table is read on: its frames are "not valued" again, as after unwind_settled) */
            uint32_t rec = s->frames[s->nframes - 1].rec;
            if (s->unified && table_value(s->t, rec) < 0) table_set(s->t, rec, UNKNOWN);
            pop_frame(s);
        }
    }
}

int search_component(SearchObject *s, const pot_t *state, size_t n, int32_t *value) {
    s->nframes = s->ncomps = s->path_len = s->nbatch = 0;
    if (component_record(s, state, n, &s->root) < 0) return -1;
    if (s->nbatch && lookup_batch(s) < 0) return -1; /* the root: always asked about first */
    uint32_t claim = 0;
    if (table_value(s->t, s->root) == UNKNOWN && !(s->shared && shared_root(s, s->root, &claim))) {
        if (push_frame(s, s->root, 0, n, 0, claim) < 0 || GROW(s->path, s->path_cap, n) < 0) return -1;
        memcpy(s->path, state, n * sizeof *s->path); /* the root's state, at offset 0 */
        s->path_len = n;
        if (run(s) < 0) return -1;
    }
    s->nbatch = 0; /* left: only records valued meanwhile (every pushed one has a value now) */
    *value = table_value(s->t, s->root);
    return 0;
}
