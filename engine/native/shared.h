/* shared.h — SharedValues (shared.c): nim values in memory that the processes of a sweep share. */
#ifndef RUMA_SHARED_H
#define RUMA_SHARED_H

#include "body_sort.h"
#include "core.h"

typedef struct SvHeader SvHeader;
typedef struct SvPacked SvPacked;

typedef struct {
    PyObject_HEAD
    Py_buffer view; /* the shared memory (held until the object goes) */
    SvHeader *head;
    uint64_t *slots;
    SvPacked *packed; /* the packed slots (pmask + 1 of them; none when pmask is 0 and packed NULL) */
    uint32_t *arena;
    uint64_t mask, pmask;
    int code, version;
    /* This process's own state (shared.c, "Concurrency"): its chunk of the arena, the next record
     * going at chunk_at (arena words; chunk_at == chunk_end: none), and the keys it published that
     * the header's count does not hold yet. */
    uint64_t chunk_at, chunk_end, pending, ppending;
    /* copied from the header at init: read on every add, so kept off its shared cache line */
    uint64_t chunk_words, arena_end, limit, plimit;
    unsigned forks; /* the process's fork count when this state was its own (see own()) */
    /* the chunks this process reserved, in order (own_n of them, room for own_cap; own_lost: one
     * could not be listed), and where its own drain goes on: chunk own_next, word own_at of it */
    uint64_t *own_chunks;
    size_t own_n, own_cap, own_next;
    uint64_t own_at;
    int own_lost;
    uint8_t *bodies; /* a drain's unpacked bodies of packed keys (shared_type.c), kept between drains */
    size_t bodies_cap;
} SharedValuesObject;

extern PyTypeObject SharedValues_Type;

/* The writable, 8-byte aligned buffer of a shared table (SharedValues, SharedGames), taken into
 * `view` once (`type`: the table's name, for the errors); -1 with an error set. */
int shared_buffer_take(Py_buffer *view, PyObject *buffer, const char *type);
/* Give the buffer back when the table in it is refused (ValueError `bad`); returns -1. */
int shared_buffer_refuse(Py_buffer *view, const char *bad);

/* 1 and *value when the key body is present and published, else 0 (never an error). */
int shared_find(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t *value);
/* Publish a nim value: 1 added, 0 the key was there (the first value is kept), -1 no room (the
 * table is full; nothing is set in Python: the caller keeps the value some other way). */
int shared_add(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value);
/* What shared_claim found. */
enum {
    SV_KNOWN = 0,
    SV_MINE = 1,
    SV_THEIRS = 2
};
/* Claim a key this process is about to search: SV_MINE and *at (its record: settle or abandon it)
 * when no other process has it; SV_KNOWN and *value when its value is published; SV_THEIRS when
 * another process is searching it (or publishing it); -1 when the table has no room. */
int shared_claim(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t *value, uint32_t *at);
/* Publish the value of a key this process claimed (its handle at: an arena record, or SV_LOG | a
 * packed slot). */
void shared_settle(SharedValuesObject *t, uint32_t at, int32_t value);
/* The value word of a claim handle (in the arena, or in a packed slot). */
uint32_t *shared_word(SharedValuesObject *t, uint32_t at);
/* Give up a claim unvalued (an interrupted search): readers and the drain skip the record, and the
 * key may be claimed or added again. */
void shared_abandon(SharedValuesObject *t, uint32_t at);
/* Seal this process's chunk (the drain skips its empty rest) and count its keys in the header. */
void shared_seal(SharedValuesObject *t);

/* The drains (shared_drain.c): the values published from arena word *at on (*at becomes where the
 * next drain starts), or those this process published since its last own drain, sorted by body,
 * n of them in an array the caller frees; NULL with an exception (no memory), or with *n = 0. */
Sortable *shared_collect(SharedValuesObject *t, unsigned long long *at, size_t *n);
Sortable *shared_collect_own(SharedValuesObject *t, size_t *n);

#endif
