/* arena.h — the compiled game kernel's table of canonical forms (arena.c).
 *
 * Every canonical game is one node, named by its id (int32; ZERO is id 0): its Left and Right
 * option ids (sorted, in a pool of int32s), its stops, and — when the game is x + n.up + *k
 * ("NUS") — the triple. Nodes are hash-consed on their option lists, so equal canonical forms are
 * equal ids, and a second index finds a NUS node by its triple.
 *
 * Nodes and option lists live in chunks that never move (a new chunk when one is full): a pointer
 * to a node or to its options stays valid while the kernel adds games, so the recursive
 * operations (kernel.c, canon.c) hold them freely. Nothing is ever removed.
 */
#ifndef RUMA_ARENA_H
#define RUMA_ARENA_H

#include "dyadic.h"

#define G_NUS 1u        /* the game is x + n.up + *k: x is both stops, n is up, k is star */
#define G_WIDE_LS 2u    /* ls holds the index of a wide number (dyadic.h) */
#define G_WIDE_RS 4u
#define G_SMALL_KNOWN 8u /* all_small computed ... */
#define G_ALL_SMALL 16u  /* ... and true */

typedef struct {
    int64_t ls, rs;      /* Left's and Right's stops (a Num's q; wide per the flags) */
    const int32_t *opts; /* nl Left option ids, then nr Right option ids (sorted each) */
    uint32_t nl, nr;
    int32_t neg;         /* the id of -G, or -1 until computed */
    int32_t up;          /* NUS: n */
    uint32_t star;       /* NUS: k */
    uint32_t flags;
} GNode; /* 48 bytes */

#define ARENA_CHUNK_BITS 16
#define ARENA_CHUNK ((uint32_t)1 << ARENA_CHUNK_BITS)

typedef struct {
    GNode **chunks;       /* node i is chunks[i >> 16][i & 0xFFFF] */
    uint32_t count, nchunks, chunks_cap;
    int32_t *pool;        /* the current chunk of option ids */
    size_t pool_used, pool_cap;
    size_t pool_bytes;    /* in all chunks */
    uint64_t *index;      /* hash-consing: the options' hash << 32 | node id + 1, 0 empty; load <= 3/4 */
    uint32_t index_mask;
    uint64_t *nus_index;  /* the NUS nodes by their triple (its hash << 32 | id + 1); load <= 3/4 */
    uint32_t nus_mask, nus_count;
    PyObject **handles;   /* the one Python object of an id once asked for (kernel_handle) */
    size_t handles_cap, nhandles;
    PyObject *factory;    /* id -> a new Python object for it (ruma.engine.cgt.game) */
    PyTypeObject *handle_type; /* or: the class of those objects, made in C (kernel.c) */
    Py_ssize_t handle_slot;    /* the offset of its id slot */
} Arena;

extern Arena A;

static inline GNode *node(int32_t i) { return &A.chunks[(uint32_t)i >> ARENA_CHUNK_BITS][(uint32_t)i & (ARENA_CHUNK - 1)]; }
static inline Num node_ls(const GNode *g) { return (Num){g->ls, (g->flags & G_WIDE_LS) != 0}; }
static inline Num node_rs(const GNode *g) { return (Num){g->rs, (g->flags & G_WIDE_RS) != 0}; }
static inline int node_is_number(const GNode *g) { return (g->flags & G_NUS) && g->up == 0 && g->star == 0; }
static inline int node_is_nimber(const GNode *g) {
    return (g->flags & G_NUS) && g->up == 0 && !(g->flags & G_WIDE_LS) && g->ls == 0;
}
static inline void node_set_stops(GNode *g, Num ls, Num rs) {
    g->ls = ls.q;
    g->rs = rs.q;
    g->flags = (g->flags & ~(G_WIDE_LS | G_WIDE_RS)) | (ls.w ? G_WIDE_LS : 0) | (rs.w ? G_WIDE_RS : 0);
}

uint32_t arena_hash(const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr);
/* The id of the node with these (sorted) options, or -1. */
int32_t arena_find(const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr, uint32_t hash);
/* A new node with these options (absent), stops and flags zero, neg -1; -1 with MemoryError. */
int32_t arena_add(const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr, uint32_t hash);
/* The NUS node x + n.up + *k, or -1. */
int32_t arena_nus_find(Num x, int64_t n, int64_t k);
/* Index a node whose NUS fields are set (a triple already indexed is left alone); -1 MemoryError. */
int arena_nus_add(int32_t id);
/* Bytes the arena holds (nodes, options, indexes). */
size_t arena_bytes(void);

#endif
