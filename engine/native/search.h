/* search.h — what the compiled search's two files share: the search object and its markers.
 * search.c is the depth-first search; search_memo.c its traffic with the memo. */
#ifndef RUMA_SEARCH_H
#define RUMA_SEARCH_H

#include "core.h"
#include "kernel.h"
#include "memo.h"
#include "shared.h"
#include "table.h"

#define UNKNOWN (-1)       /* not in the memo, not yet valued */
#define ACTIVE (-2)        /* on the search path: meeting it again means the game is loopy */
#define LOOKUP (-3)        /* the memo not consulted yet (the key waits in the lookup batch) */
#define ACTIVE_LOOKUP (-4) /* on the search path, the memo not consulted yet (speculative) */

/* Batched lookups. A memo that offers lookup_many (the LMDB store, where one call costs about ten
 * microseconds of Python whatever it holds) is consulted in batches. The search keeps a score of
 * the memo's answers (misses_in_row): +1 a miss (up to 2 * SPECULATE_AFTER), -HIT_WEIGHT a hit (never below 0). At
 * SPECULATE_AFTER it stops waiting for the memo before descending — a component not consulted yet
 * is searched as if it had missed ("speculative") — and consults it SPECULATIVE_BATCH keys at a
 * time; below SPECULATE_AFTER / 2 it goes back to asking before each descent. So it speculates
 * while hits are rarer than about one answer in HIT_WEIGHT + 1: a cold store with a few scattered
 * hits (positions an earlier evaluation stored) no longer costs one call per descent. (Resetting
 * on every hit did: impartial Atomic Wari 44444 after 333333 made 169,544 calls; this makes 29,568
 * and values 30 % more positions, the cheaper trade by far.) A key found in a batch settles its
 * frame on the path at once (the frames above it are dropped, the values they found so far stay
 * valid: values are facts). Valuing a position the memo also holds wastes work, never
 * correctness. Memos without lookup_many (a plain dict) are asked before each descent, as in the
 * reference. */
#define SPECULATE_AFTER 64
#define SPECULATIVE_BATCH 512
#define HIT_WEIGHT 4

#define POLL_EVERY 4096  /* expansions between two calls of should_cancel / progress */
/* Values handed to memo.insert_many at once: FLUSH_FIRST, doubling after each hand-over up to
 * FLUSH_MOST. For the LMDB store each hand-over is one write transaction of random keys: once the
 * B-trees are large nearly every entry dirties its own leaf page, so a commit costs about as much
 * again as the puts, and fewer, larger batches share pages and commits (replaying a cold run's
 * batches: 1.75 s written 16,384 a transaction, 0.90-1.17 s four at a time, 0.74 s all in one);
 * but the last hand-over of an evaluation is what the store's writer still has to write when the
 * evaluation ends, so it is kept at 32,768 (64k measured no better over the store's suites).
 * Starting small lets the store's writer process begin early. */
#define FLUSH_FIRST 16384
#define FLUSH_MOST 32768

typedef struct {
    uint32_t rec;
    uint32_t opt;
    int32_t value; /* its value once known (values never change: read from the table no more), else < 0 */
    uint8_t mirrored;
    size_t state_off, state_len; /* in path; state_len == SIZE_MAX when not kept (value known) */
} Comp;

typedef struct {
    uint32_t rec;
    size_t state_off, state_len; /* the frame's own state in path */
    size_t comps_begin, comps_end, cursor;
    uint32_t nopts, split; /* options; Left's are the first split (partizan) */
    int expanded;
    uint32_t claim; /* its record in the sweep's shared table + 1 when this search claimed it, or 0 */
} Frame;

typedef struct {
    PyObject_HEAD
    RulesObject *rules;
    PyObject *lookup, *lookup_many, *insert_many, *progress, *should_cancel;
    PyObject *insert_packed; /* impartial: memo.insert_packed(frame, cache), called instead of insert_many
                              * (search_memo.c, pack_pending), or None */
    PyObject *entries; /* the dict of a plain InMemoryMemo (read and written directly), or None */
    PyObject *record;  /* with entries: a list that new (key, value) pairs are appended to, as
                        * RecordingMemo.insert_many does (a key already in entries is not), or None */
    CompactMemoObject *compact; /* a CompactMemo (its table read and written in C), or NULL */
    PyObject *cache; /* values known to be stored (the store's ``recent``: a CompactMemo, or a dict),
                      * read before the memo is asked about a new key (never written here), or None;
                      * or a sweep's SharedValues, read then and again before a descent, and given
                      * every value this search finds (impartial rulesets) */
    SharedValuesObject *shared; /* cache when it is a SharedValues, else NULL */
    long long shared_hits, shared_lost; /* read from it before a descent; values it had no room for */
    /* claims met (search_shared.c): a later component searched first; a component searched though
     * another process had claimed it */
    long long shared_deferred, shared_overlaps;
    uint8_t *full;              /* a whole key (prefix + body) for the CompactMemo */
    size_t full_cap;
    PyObject *games;                     /* partizan: kernel._OBJ, id -> Game (None if impartial) */
    PyObject *octal, *nimber_id;         /* Theorem 3.1 (Atomic Wari families) */
    long long max_positions;             /* -1: no limit */
    size_t flush_at;                     /* pending values that make a hand-over (FLUSH_FIRST..FLUSH_MOST) */
    long long valued, hits, misses, expansions;
    long long misses_in_row; /* the memo's score: +1 a miss, -HIT_WEIGHT a hit (see above) */
    int speculative;          /* descend into components the memo has not been asked about yet */
    int busy, broken;
    Py_ssize_t batch_index; /* Search.value_many: the index of the state being valued, else -1 */
    Table own;   /* the search's table, unless it uses its memo's (`unified`) */
    Table *t;    /* the table: &own, or the CompactMemo's table of this ruleset (compact_adopt) */
    int unified; /* t is the memo's: a key it does not hold is a memo miss, a value in it is stored */
    uint8_t scratch[TABLE_BODY_SCRATCH]; /* a packed record's body (table_body), used at once */
    uint32_t root; /* the record of the component search_component values (relocated as frames are) */
    Scratch sc;
    Rows opts, pieces;
    uint8_t *key;
    size_t key_cap;
    Frame *frames;
    size_t nframes, frames_cap;
    Comp *comps;
    size_t ncomps, comps_cap;
    pot_t *path;
    size_t path_len, path_cap;
    uint32_t *pending, *batch;
    size_t npending, pending_cap, nbatch, batch_cap;
    int64_t *acc; /* per option: xor (impartial) or sum id (partizan) */
    size_t acc_cap;
    int32_t *ids; /* partizan: the options' values for kernel_canon */
    size_t ids_cap;
    /* expand's pass 1: per component its option, packed key (0: the body is in keys) and hash */
    uint32_t *pieces_opt;
    uint64_t *key_packed, *key_hash;
    size_t pieces_opt_cap, key_packed_cap, key_hash_cap;
    uint8_t *keys, *one_key;
    size_t keys_cap, one_key_cap;
    size_t *key_at;
    size_t key_at_cap;
    uint8_t *seen;
    size_t seen_cap;
    int64_t *octal_values, *nimber_ids;
    size_t n_octal, n_nimber;
} SearchObject;

/* ---------------------------------------------------------------------------------------- */
/* growable arrays                                                                           */

static inline int grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * size);
    if (!q) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}

#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof *(arr))

/* search_memo.c */
/* search.c: a search ready to value (not interrupted before), or -1 with RuntimeError; the value of
 * one normalised component (the table's entries and the memo's traffic as Search.value, the pending
 * values not handed over yet); the end of a call (busy cleared; after a failure the search is
 * broken and its frames, and claims, are given up); a state's own entry (search_keep_sum). */
int search_ready(SearchObject *s);
int search_component(SearchObject *s, const pot_t *state, size_t n, int32_t *value);
void search_done(SearchObject *s, int ok);
int search_keep_sum(SearchObject *s, const pot_t *state, size_t n, int32_t value);
/* The table's `moved` for a search: its records held in frames, components, batches relocated. */
void search_moved(void *ctx, Table *t);
/* search_batch.c: Search.value_many */
PyObject *Search_value_many(SearchObject *s, PyObject *args);

int flush_pending(SearchObject *s);
int lookup_batch(SearchObject *s);
/* search_shared.c. The next component of the top frame f to descend into, at f->cursor (f's
 * components may be reordered): 1 when its value was published meanwhile (now in the table), 0 to
 * search it with *claim for its frame (0: unclaimed). */
int shared_next(SearchObject *s, Frame *f, uint32_t *claim);
/* The same for the root's record: 1 when another process published its value, 0 to search it
 * (*claim: 0 when another process has it claimed). */
int shared_root(SearchObject *s, uint32_t rec, uint32_t *claim);
/* A frame leaving the path gives its claim up: settled with its value, or abandoned. */
void shared_release(SearchObject *s, Frame *f);
int cache_get(SearchObject *s, const uint8_t *body, size_t len, uint32_t hash, int32_t *v);

#endif
