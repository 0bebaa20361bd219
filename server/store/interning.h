/* store/interning.h — the writer process's interning of a sweep's shared games (interning.c).
 *
 * A partizan sweep's driver sends its drains as *shared frames* (ruma.engine.frame.pack_shared): the
 * values are ids of nodes in the sweep's SharedGames table, preceded by the nodes they need that
 * were not sent before in the session. The writer process interns each node into `games` and
 * `game_index` as store.games.put_exported does in Python (the same records, byte for byte) and
 * keeps the session's shared id -> store id, so the driver makes no Game and writes no game.
 */
#ifndef RUMA_STORE_INTERNING_H
#define RUMA_STORE_INTERNING_H

#include <stddef.h>
#include <stdint.h>

#include "lmdb.h"
#include "records.h"

/* A session's shared id -> store id, in open addressing; the entries a transaction added are
 * `fresh` until it commits (settled) or aborts (dropped). */
typedef struct {
    uint32_t *keys; /* shared id + 1, 0 empty */
    uint64_t *vals;
    uint8_t *fresh;
    size_t mask, count, fresh_count;
    uint64_t session;
    int has_session;
} SharedIds;

/* The store id of shared id sid: 1 and *out, or 0 when the session has none. */
STORE_INTERNAL int shared_ids_get(const SharedIds *ids, uint32_t sid, uint64_t *out);
/* Enter session (forgetting another one's ids); 0, or -1 on no memory. */
STORE_INTERNAL int shared_ids_session(SharedIds *ids, uint64_t session);
/* The transaction committed: its ids are kept. */
STORE_INTERNAL void shared_ids_settle(SharedIds *ids);
/* The transaction aborted: its ids are dropped. */
STORE_INTERNAL void shared_ids_undo(SharedIds *ids);
STORE_INTERNAL void shared_ids_free(SharedIds *ids);

/* Intern the nodes of n_words little-endian u32 words ([shared id][nl][nr][options]...) in txn;
 * *next_game: the next free store game id, or -1 when not yet read in this transaction. 0, an
 * LMDB error, or -1 with error set (a malformed node, one naming a node never sent, an index
 * collision, no memory). */
STORE_INTERNAL int intern_nodes(MDB_txn *txn, MDB_dbi games, MDB_dbi index, size_t max_key, SharedIds *ids,
                                const uint8_t *words, size_t n_words, int64_t *next_game, char *error, size_t room);

/* Put key -> payload + crc32c(key + payload) in txn (store.codec.seal); 0 or an LMDB error. */
STORE_INTERNAL int store_put_sealed(MDB_txn *txn, MDB_dbi dbi, const void *key, size_t nk, const void *payload, size_t np);

/* The SHA-256 digest of data (FIPS 180-4) into out (32 bytes): a long game index key. */
STORE_INTERNAL void store_sha256(const uint8_t *data, size_t n, uint8_t out[32]);

#endif
