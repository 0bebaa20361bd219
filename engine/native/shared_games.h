/* shared_games.h — SharedGames (shared_games.c): the canonical forms a sweep's processes share.
 *
 * A partizan value in a sweep's SharedValues table is a *shared id*: the offset of a node in this
 * table, in memory every worker process maps. A process translates its own game ids (the compiled
 * kernel's, arena.h) to shared ids when it publishes a value and back when it reads one; both
 * ways are remembered, so each game crosses once per process, and no game read is
 * re-canonicalised (a node's options are canonical and it is canonical: it is adopted as it is).
 */
#ifndef RUMA_SHARED_GAMES_H
#define RUMA_SHARED_GAMES_H

#include "core.h"

typedef struct SgHeader SgHeader;

typedef struct {
    PyObject_HEAD
    Py_buffer view; /* the shared memory (held until the object goes) */
    SgHeader *head;
    uint64_t *slots;
    uint32_t *arena;
    uint64_t mask, arena_end, chunk_words;
    /* this process's own state: its chunk of the arena, keys not yet counted in the header */
    uint64_t chunk_at, chunk_end, pending;
    unsigned forks;
    /* this process's translations: local id -> shared id + 1 (0 unknown); shared -> local in an
     * open-addressing set of (shared id + 1) << 32 | local id */
    uint32_t *to_shared;
    size_t to_shared_cap;
    uint64_t *to_local;
    size_t local_mask, local_count;
    int32_t *stack;
    size_t stack_cap;
    long long published, adopted;
    /* the nodes export() has given (a driver's: their records went to the store's writer), an
     * open-addressing set of shared id + 1 */
    uint32_t *exported;
    size_t exported_mask, exported_count;
} SharedGamesObject;

extern PyTypeObject SharedGames_Type;

/* The shared id of a game of this process (publishing it and its followers as needed): 0, 1 when
 * the table has no room (nothing is published; the caller keeps the value some other way), -1
 * with a Python error set. */
int games_to_shared(SharedGamesObject *g, int32_t local, int32_t *sid);
/* This process's id of the game with a shared id (adopting it and its followers): 0, or -1 with a
 * Python error set (a shared id that names no node). */
int games_to_local(SharedGamesObject *g, int32_t sid, int32_t *local);

#endif
