/* arena.c — nodes, option lists and the two indexes of the compiled game kernel (arena.h). */
#include "arena.h"
#include "hugemem.h"

Arena A;
_Static_assert(sizeof(GNode) == 48, "a game node is 48 bytes");

#define POOL_CHUNK ((size_t)1 << 20) /* option ids a pool chunk holds (a longer list gets its own) */

static inline uint32_t mix32(uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

uint32_t arena_hash(const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr) {
    uint64_t h = 0x243F6A8885A308D3ULL ^ ((uint64_t)nl << 32 | nr);
    for (uint32_t k = 0; k < nl; k++) h = (h ^ (uint32_t)l[k]) * 0x100000001B3ULL + 0x9E37;
    h = h * 0x9E3779B97F4A7C15ULL;
    for (uint32_t k = 0; k < nr; k++) h = (h ^ (uint32_t)r[k]) * 0x100000001B3ULL + 0x7F4A;
    return mix32(h);
}

static int same(const GNode *g, const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr) {
    return g->nl == nl && g->nr == nr && memcmp(g->opts, l, nl * sizeof *l) == 0 &&
           memcmp(g->opts + nl, r, nr * sizeof *r) == 0;
}

/* The index keeps each node's hash beside its id: a probe reads a node (and its options, two more
 * cache misses) only when the hashes agree, and growing never rehashes a node. Most probes are
 * for games not there (a canonicalisation's raw options, a new canonical form). */
int32_t arena_find(const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr, uint32_t hash) {
    if (!A.index) return -1;
    for (uint32_t i = hash & A.index_mask;; i = (i + 1) & A.index_mask) {
        uint64_t slot = A.index[i];
        if (!slot) return -1;
        int32_t id = (int32_t)((uint32_t)slot - 1);
        if ((uint32_t)(slot >> 32) == hash && same(node(id), l, nl, r, nr)) return id;
    }
}

/* Room in an index (of either kind) for one more of its count entries: doubled at three
 * quarters full (a probe that meets other nodes compares their hashes, not the nodes), the
 * entries placed by the hashes they keep. */
static int grow_index(uint64_t **index, uint32_t *mask, uint32_t count) {
    if (*index && (size_t)(count + 1) * 4 <= ((size_t)*mask + 1) * 3) return 0;
    size_t size = *index ? ((size_t)*mask + 1) * 2 : 1024;
    if (size > ((size_t)1 << 32)) {
        PyErr_SetString(PyExc_MemoryError, "the game kernel's index is full");
        return -1;
    }
    uint64_t *fresh = huge_zalloc(size * sizeof *fresh);
    if (!fresh) {
        PyErr_NoMemory();
        return -1;
    }
    uint32_t m = (uint32_t)(size - 1);
    for (size_t j = 0; *index && j <= *mask; j++) {
        uint64_t slot = (*index)[j];
        if (!slot) continue;
        uint32_t at = (uint32_t)(slot >> 32) & m;
        while (fresh[at]) at = (at + 1) & m;
        fresh[at] = slot;
    }
    free(*index);
    *index = fresh;
    *mask = m;
    return 0;
}

/* Enter a node under its hash (room made by grow_index). */
static void index_put(uint64_t *index, uint32_t mask, uint32_t hash, int32_t id) {
    uint32_t i = hash & mask;
    while (index[i]) i = (i + 1) & mask;
    index[i] = (uint64_t)hash << 32 | ((uint32_t)id + 1);
}

static const int32_t *pool_put(const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr) {
    size_t n = (size_t)nl + nr;
    static const int32_t none[1] = {0};
    if (!n) return none;
    int32_t *at;
    if (n > POOL_CHUNK / 4) { /* a long list: a chunk of its own */
        at = malloc(n * sizeof *at);
        if (!at) return NULL;
    } else {
        if (!A.pool || A.pool_used + n > A.pool_cap) {
            int32_t *chunk = malloc(POOL_CHUNK * sizeof *chunk); /* the old chunk stays: its lists are in use */
            if (!chunk) return NULL;
            A.pool = chunk;
            A.pool_used = 0;
            A.pool_cap = POOL_CHUNK;
            A.pool_bytes += POOL_CHUNK * sizeof *chunk;
        }
        at = A.pool + A.pool_used;
        A.pool_used += n;
    }
    memcpy(at, l, nl * sizeof *l);
    memcpy(at + nl, r, nr * sizeof *r);
    if (n > POOL_CHUNK / 4) A.pool_bytes += n * sizeof *at;
    return at;
}

int32_t arena_add(const int32_t *l, uint32_t nl, const int32_t *r, uint32_t nr, uint32_t hash) {
    if (A.count >= (uint32_t)INT32_MAX) {
        PyErr_SetString(PyExc_MemoryError, "the game kernel holds 2^31 games already");
        return -1;
    }
    if (grow_index(&A.index, &A.index_mask, A.count) < 0) return -1;
    if ((A.count >> ARENA_CHUNK_BITS) >= A.nchunks) {
        if (A.nchunks == A.chunks_cap) {
            uint32_t cap = A.chunks_cap ? A.chunks_cap * 2 : 16;
            GNode **chunks = realloc(A.chunks, cap * sizeof *chunks);
            if (!chunks) goto nomem;
            A.chunks = chunks;
            A.chunks_cap = cap;
        }
        GNode *chunk = huge_zalloc(ARENA_CHUNK * sizeof *chunk);
        if (!chunk) goto nomem;
        A.chunks[A.nchunks++] = chunk;
    }
    const int32_t *opts = pool_put(l, nl, r, nr);
    if (!opts) goto nomem;
    int32_t id = (int32_t)A.count++;
    GNode *g = node(id);
    memset(g, 0, sizeof *g);
    g->opts = opts;
    g->nl = nl;
    g->nr = nr;
    g->neg = -1;
    index_put(A.index, A.index_mask, hash, id);
    return id;
nomem:
    PyErr_NoMemory();
    return -1;
}

static uint32_t nus_key(Num x, int64_t n, int64_t k) {
    return mix32(num_hash(x) ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)k << 17));
}

int32_t arena_nus_find(Num x, int64_t n, int64_t k) {
    if (!A.nus_index) return -1;
    uint32_t hash = nus_key(x, n, k);
    for (uint32_t i = hash & A.nus_mask;; i = (i + 1) & A.nus_mask) {
        uint64_t slot = A.nus_index[i];
        if (!slot) return -1;
        int32_t id = (int32_t)((uint32_t)slot - 1);
        if ((uint32_t)(slot >> 32) != hash) continue;
        GNode *g = node(id);
        if (g->up == n && g->star == k && num_eq(node_ls(g), x)) return id;
    }
}

int arena_nus_add(int32_t id) {
    GNode *g = node(id);
    if (arena_nus_find(node_ls(g), g->up, g->star) >= 0) return 0;
    if (grow_index(&A.nus_index, &A.nus_mask, A.nus_count) < 0) return -1;
    index_put(A.nus_index, A.nus_mask, nus_key(node_ls(g), g->up, g->star), id);
    A.nus_count++;
    return 0;
}

size_t arena_bytes(void) {
    return (size_t)A.nchunks * ARENA_CHUNK * sizeof(GNode) + A.pool_bytes +
           (A.index ? (size_t)A.index_mask + 1 : 0) * sizeof *A.index +
           (A.nus_index ? (size_t)A.nus_mask + 1 : 0) * sizeof *A.nus_index +
           A.handles_cap * sizeof(PyObject *);
}
