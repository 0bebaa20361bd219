/* shared_drain.c — the drains of a SharedValues table (shared.c): its published values, sorted.
 *
 * Two ways, never both on one table (each key is drained once by the one that drains it):
 *   - shared_collect (the driver's drain): the whole arena in order from where the last drain
 *     stopped, stopping at the first record still being written or searched, or at the open rest
 *     of a chunk its process has not sealed (shared.c, "drain");
 *   - shared_collect_own (a worker's own drain): the chunks this process reserved (take_words
 *     lists them), in the order it took them, from where its last own drain stopped, up to its
 *     own next record. A worker drains between its searches, when no claim of its own is open, so
 *     it stops only at a record of its current search (never met there) — and every live record
 *     of a key lies in the chunk of the one process whose add won its slot, so the workers' own
 *     drains together give every key once, with no process reading another's chunks. That takes
 *     the drains (their reads and sort, a sixth of an impartial sweep's CPU outside the workers)
 *     off the driver.
 * Both give (body, value word) pairs sorted by body (body_sort.c: the store takes them sorted).
 */
#include "shared_layout.h"
#include "body_sort.h"
#include "table.h"

/* Room for `need` bytes of unpacked bodies in self->bodies (kept between drains); -1 with an error. */
static int grow_bodies(SharedValuesObject *self, size_t *room, size_t need) {
    size_t want = self->bodies_cap > *room ? self->bodies_cap : *room;
    if (want < need) {
        want = want ? want : 1 << 16;
        while (want < need) want *= 2;
        uint8_t *more = realloc(self->bodies, want);
        if (!more) {
            PyErr_NoMemory();
            return -1;
        }
        self->bodies = more;
        self->bodies_cap = want;
    }
    *room = want;
    return 0;
}

/* A drain's findings so far: the pairs, and the bytes of packed keys' bodies unpacked. */
typedef struct {
    Sortable *found;
    size_t n, cap, unpacked, room;
} Findings;

enum {
    REC_STOP = 0,
    REC_END_OF_CHUNK = 1,
    REC_NEXT = 2,
    REC_ERROR = -1
};

/* Read the record at arena word `at` into f: REC_NEXT (and the words it takes in *words), REC_STOP
 * at a record still being written or searched, REC_END_OF_CHUNK at the empty rest of a chunk, or
 * REC_ERROR with an exception (no memory). */
static int read_record(SharedValuesObject *self, uint64_t at, uint64_t end, Findings *f, uint64_t *words) {
    if (at + 16 < end) { /* (a log record's slot is a random access: fetched ahead) */
        uint32_t ahead = __atomic_load_n(&self->arena[at + 16], __ATOMIC_RELAXED);
        if (ahead >= SV_LOG && ahead < SV_LOG_END) __builtin_prefetch(&self->packed[ahead & ~SV_LOG]);
    }
    uint32_t w = __atomic_load_n(&self->arena[at], __ATOMIC_ACQUIRE);
    if (w == 0 || w == SV_CLAIM) return REC_STOP;
    if (w == SV_SKIP) return REC_END_OF_CHUNK;
    *words = 1;
    if (w == SV_LOST) return REC_NEXT;
    const uint8_t *p = (const uint8_t *)(self->arena + at + 1);
    const uint8_t *body = p + 1;
    size_t len = p[0];
    if (w >= SV_LOG && w < SV_LOG_END) { /* a log record: the key and value word are in its packed slot */
        SvPacked *slot = &self->packed[w & ~SV_LOG];
        w = __atomic_load_n(&slot->word, __ATOMIC_ACQUIRE);
        if (w == 0 || w == SV_CLAIM) return REC_STOP;
        if (w != SV_GONE) {
            if (f->unpacked + TABLE_BODY_SCRATCH > f->room &&
                grow_bodies(self, &f->room, f->unpacked + TABLE_BODY_SCRATCH) < 0)
                return REC_ERROR;
            body = (const uint8_t *)(uintptr_t)f->unpacked; /* (an offset into the bodies until they stop moving) */
            len = table_unpack(load(&slot->key), self->bodies + f->unpacked);
            f->unpacked += len;
            w |= SV_LOG; /* (marks the offset: value words are below SV_LOG) */
        }
    } else {
        *words = table_record_words(p[0]);
    }
    if (w != SV_DEAD && w != SV_GONE) {
        if (f->n == f->cap) {
            size_t cap = f->cap ? 2 * f->cap : 4096;
            Sortable *more = realloc(f->found, cap * sizeof *more);
            if (!more) {
                PyErr_NoMemory();
                return REC_ERROR;
            }
            f->found = more, f->cap = cap;
        }
        f->found[f->n++] = (Sortable){0, body, len, w};
    }
    return REC_NEXT;
}

/* The findings' pairs with their bodies in place, sorted; NULL with an exception (no memory), or
 * with *n = 0. */
static Sortable *finish(SharedValuesObject *self, Findings *f, size_t *n) {
    for (size_t k = 0; k < f->n; k++) {
        if (f->found[k].rec >= SV_LOG) {
            f->found[k].body = self->bodies + (uintptr_t)f->found[k].body;
            f->found[k].rec &= ~SV_LOG;
        }
        f->found[k].head = body_head(f->found[k].body, f->found[k].len);
    }
    if (sort_by_body(f->found, f->n) < 0) {
        free(f->found);
        PyErr_NoMemory();
        return NULL;
    }
    *n = f->n;
    return f->found;
}

Sortable *shared_collect(SharedValuesObject *self, unsigned long long *at_, size_t *n) {
    unsigned long long at = *at_;
    uint64_t end = load(&self->head->next);
    if (end > self->arena_end) end = self->arena_end; /* (a failed reservation passes it) */
    Findings f = {0};
    while (at < end) {
        uint64_t words = 0;
        int rc = read_record(self, at, end, &f, &words);
        if (rc == REC_ERROR) {
            free(f.found);
            return NULL;
        }
        if (rc == REC_STOP) break; /* the next drain resumes here */
        at = rc == REC_END_OF_CHUNK ? (at / self->chunk_words + 1) * self->chunk_words : at + words;
    }
    *at_ = at;
    return finish(self, &f, n);
}

Sortable *shared_collect_own(SharedValuesObject *self, size_t *n) {
    own(self);
    if (self->own_lost) {
        PyErr_SetString(PyExc_MemoryError, "this process lost the list of its chunks of the table (no memory)");
        return NULL;
    }
    Findings f = {0};
    while (self->own_next < self->own_n) {
        uint64_t chunk = self->own_chunks[self->own_next];
        uint64_t end = chunk + self->chunk_words < self->arena_end ? chunk + self->chunk_words : self->arena_end;
        int current = self->own_next + 1 == self->own_n && self->chunk_at < self->chunk_end; /* (still open) */
        if (current) end = self->chunk_at; /* (its own next record goes there) */
        uint64_t at = chunk + self->own_at;
        int rc = REC_NEXT;
        while (at < end && rc == REC_NEXT) {
            uint64_t words = 0;
            rc = read_record(self, at, end, &f, &words);
            if (rc == REC_ERROR) {
                free(f.found);
                return NULL;
            }
            if (rc == REC_NEXT) at += words;
        }
        self->own_at = at - chunk;
        if (rc == REC_STOP || current) break; /* (resumed here) */
        self->own_next++, self->own_at = 0; /* (a chunk sealed or filled: wholly drained) */
    }
    return finish(self, &f, n);
}
