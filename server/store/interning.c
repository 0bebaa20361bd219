/* store/interning.c — a sweep's shared games interned by the writer process (interning.h). */
#include "interning.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAME_ID_BYTES 8 /* store.codec.GAME_ID_BYTES: big-endian store ids */

/* ---------------------------------------------------------------------------------------- */
/* a session's ids                                                                           */

static size_t slot_of(uint32_t key, size_t mask) { return (size_t)(key * 0x9E3779B97F4A7C15ULL >> 24) & mask; }

int shared_ids_get(const SharedIds *ids, uint32_t sid, uint64_t *out) {
    if (!ids->keys) return 0;
    uint32_t key = sid + 1;
    for (size_t i = slot_of(key, ids->mask);; i = (i + 1) & ids->mask) {
        if (!ids->keys[i]) return 0;
        if (ids->keys[i] == key) {
            *out = ids->vals[i];
            return 1;
        }
    }
}

/* Rebuild the table with room for `size` slots, keeping the entries `keep` accepts. */
static int rebuild(SharedIds *ids, size_t size, int drop_fresh) {
    uint32_t *keys = calloc(size, sizeof *keys);
    uint64_t *vals = malloc(size * sizeof *vals);
    uint8_t *fresh = calloc(size, 1);
    if (!keys || !vals || !fresh) {
        free(keys), free(vals), free(fresh);
        return -1;
    }
    size_t count = 0, fresh_count = 0;
    for (size_t j = 0; ids->keys && j <= ids->mask; j++) {
        if (!ids->keys[j] || (drop_fresh && ids->fresh[j])) continue;
        size_t at = slot_of(ids->keys[j], size - 1);
        while (keys[at]) at = (at + 1) & (size - 1);
        keys[at] = ids->keys[j], vals[at] = ids->vals[j], fresh[at] = ids->fresh[j];
        count++, fresh_count += fresh[at];
    }
    free(ids->keys), free(ids->vals), free(ids->fresh);
    ids->keys = keys, ids->vals = vals, ids->fresh = fresh;
    ids->mask = size - 1, ids->count = count, ids->fresh_count = fresh_count;
    return 0;
}

static int shared_ids_put(SharedIds *ids, uint32_t sid, uint64_t store_id) {
    if ((!ids->keys || (ids->count + 1) * 2 > ids->mask + 1) && rebuild(ids, ids->keys ? 2 * (ids->mask + 1) : 4096, 0) < 0)
        return -1;
    uint32_t key = sid + 1;
    size_t i = slot_of(key, ids->mask);
    while (ids->keys[i] && ids->keys[i] != key) i = (i + 1) & ids->mask;
    if (!ids->keys[i]) {
        ids->keys[i] = key, ids->vals[i] = store_id, ids->fresh[i] = 1;
        ids->count++, ids->fresh_count++;
    }
    return 0;
}

void shared_ids_free(SharedIds *ids) {
    free(ids->keys), free(ids->vals), free(ids->fresh);
    ids->keys = NULL, ids->vals = NULL, ids->fresh = NULL;
    ids->mask = ids->count = ids->fresh_count = 0;
}

int shared_ids_session(SharedIds *ids, uint64_t session) {
    if (ids->has_session && ids->session == session) return 0;
    shared_ids_free(ids);
    ids->session = session, ids->has_session = 1;
    return 0;
}

void shared_ids_settle(SharedIds *ids) {
    if (ids->fresh_count && ids->fresh) memset(ids->fresh, 0, ids->mask + 1);
    ids->fresh_count = 0;
}

void shared_ids_undo(SharedIds *ids) {
    if (!ids->fresh_count) return;
    if (rebuild(ids, ids->mask + 1, 1) < 0) { /* (no memory for a copy: forget the session instead) */
        shared_ids_free(ids);
        ids->has_session = 0;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* nodes                                                                                     */

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int sealed_ok(const uint8_t *key, size_t nk, const MDB_val *v) {
    if (v->mv_size < 4) return 0;
    const uint8_t *p = v->mv_data;
    return crc32c_two(key, nk, p, v->mv_size - 4) == le32(p + v->mv_size - 4);
}

static int put_sealed(MDB_txn *txn, MDB_dbi dbi, const void *key, size_t nk, const void *payload, size_t np,
                      unsigned flags) {
    uint8_t small[512], *buf = np + 4 <= sizeof small ? small : malloc(np + 4);
    if (!buf) return ENOMEM;
    memcpy(buf, payload, np);
    put_le32(buf + np, crc32c_two(key, nk, payload, np));
    MDB_val k = {nk, (void *)key}, v = {np + 4, buf};
    int rc = mdb_put(txn, dbi, &k, &v, flags);
    if (buf != small) free(buf);
    return rc;
}

int store_put_sealed(MDB_txn *txn, MDB_dbi dbi, const void *key, size_t nk, const void *payload, size_t np) {
    return put_sealed(txn, dbi, key, nk, payload, np, 0);
}

/* The id after the last of games (0 when it is empty) into *next_game; 0, an LMDB error or -1. */
static int next_id(MDB_txn *txn, MDB_dbi games, int64_t *next_game, char *error, size_t room) {
    MDB_cursor *cursor;
    int rc = mdb_cursor_open(txn, games, &cursor);
    if (rc) return rc;
    MDB_val lk, lv;
    rc = mdb_cursor_get(cursor, &lk, &lv, MDB_LAST);
    mdb_cursor_close(cursor);
    if (rc == MDB_NOTFOUND) {
        *next_game = 0;
        return 0;
    }
    if (rc) return rc;
    if (lk.mv_size != GAME_ID_BYTES) {
        snprintf(error, room, "a games key of %zu bytes", lk.mv_size);
        return -1;
    }
    uint64_t last = 0;
    for (int b = 0; b < GAME_ID_BYTES; b++) last = last << 8 | ((const uint8_t *)lk.mv_data)[b];
    *next_game = (int64_t)last + 1;
    return 0;
}

/* The store id of the game with encoded options opt (n bytes), written if new (store.games.put_game):
 * the index entry is put with the next id unless the index has the options already (one search
 * of the index for both), and a new game's record goes through LMDB's append path (its id is
 * past the last). */
static int put_game(MDB_txn *txn, MDB_dbi games, MDB_dbi index, size_t max_key, const uint8_t *opt, size_t n,
                    int64_t *next_game, uint64_t *out, char *error, size_t room) {
    uint8_t hashed[33];
    const uint8_t *ikey = opt;
    size_t nk = n;
    if (n >= max_key || opt[0] == 0xFF) { /* store.codec.index_key */
        hashed[0] = 0xFF;
        store_sha256(opt, n, hashed + 1);
        ikey = hashed, nk = sizeof hashed;
    }
    int rc = *next_game < 0 ? next_id(txn, games, next_game, error, room) : 0;
    if (rc) return rc;
    uint64_t sid = (uint64_t)*next_game;
    uint8_t entry[GAME_ID_BYTES + 4];
    for (int b = 0; b < GAME_ID_BYTES; b++) entry[b] = (uint8_t)(sid >> (8 * (GAME_ID_BYTES - 1 - b)));
    put_le32(entry + GAME_ID_BYTES, crc32c_two(ikey, nk, entry, GAME_ID_BYTES));
    MDB_val k = {nk, (void *)ikey}, v = {sizeof entry, entry};
    rc = mdb_put(txn, index, &k, &v, MDB_NOOVERWRITE);
    if (rc == MDB_KEYEXIST) { /* (v: the record there) */
        if (!sealed_ok(ikey, nk, &v) || v.mv_size != GAME_ID_BYTES + 4) {
            snprintf(error, room, "a damaged game_index record (checksum or size)");
            return -1;
        }
        uint8_t record_id[GAME_ID_BYTES];
        memcpy(record_id, v.mv_data, GAME_ID_BYTES);
        uint64_t found = 0;
        for (int b = 0; b < GAME_ID_BYTES; b++) found = found << 8 | record_id[b];
        if (ikey != opt) { /* a hashed key: the game must hold these options */
            MDB_val gk = {GAME_ID_BYTES, record_id}, gv;
            rc = mdb_get(txn, games, &gk, &gv);
            if (rc && rc != MDB_NOTFOUND) return rc;
            if (rc || !sealed_ok(record_id, GAME_ID_BYTES, &gv) || gv.mv_size - 4 != n || memcmp(gv.mv_data, opt, n)) {
                snprintf(error, room, "game index collision for id %llu", (unsigned long long)found);
                return -1;
            }
        }
        *out = found;
        return 0;
    }
    if (rc) return rc;
    (*next_game)++;
    *out = sid;
    return put_sealed(txn, games, entry, GAME_ID_BYTES, opt, n, MDB_APPEND);
}

int intern_nodes(MDB_txn *txn, MDB_dbi games, MDB_dbi index, size_t max_key, SharedIds *ids, const uint8_t *words,
                 size_t n_words, int64_t *next_game, char *error, size_t room) {
    uint64_t small_ids[128], *opts = small_ids;
    uint8_t small_enc[1300], *enc = small_enc;
    size_t opts_cap = 128, enc_cap = sizeof small_enc;
    int rc = 0;
    for (size_t at = 0; !rc && at < n_words;) {
        if (at + 3 > n_words) {
            snprintf(error, room, "a shared node cut short at word %zu of %zu", at, n_words);
            rc = -1;
            break;
        }
        uint32_t sid = le32(words + 4 * at), nl = le32(words + 4 * (at + 1)), nr = le32(words + 4 * (at + 2));
        size_t m = (size_t)nl + nr;
        if (m > n_words - at - 3) {
            snprintf(error, room, "a shared node cut short at word %zu of %zu", at, n_words);
            rc = -1;
            break;
        }
        uint64_t known;
        if (shared_ids_get(ids, sid, &known)) { /* (sent before in the session: a shared id is one node) */
            at += 3 + m;
            continue;
        }
        if (m > opts_cap || 20 + 10 * m > enc_cap) { /* (a wide node: room on the heap) */
            if (opts != small_ids) free(opts);
            if (enc != small_enc) free(enc);
            opts = malloc(m * sizeof *opts), enc = malloc(20 + 10 * m);
            opts_cap = m, enc_cap = 20 + 10 * m;
            if (!opts || !enc) {
                snprintf(error, room, "no memory for a node of %zu options", m);
                rc = -1;
                break;
            }
        }
        for (size_t k = 0; k < m; k++) {
            uint32_t o = le32(words + 4 * (at + 3 + k));
            if (!shared_ids_get(ids, o, &opts[k])) {
                snprintf(error, room, "shared node %u names node %u that was never sent", sid, o);
                rc = -1;
                break;
            }
        }
        if (rc) break;
        qsort(opts, nl, sizeof *opts, cmp_u64);
        qsort(opts + nl, nr, sizeof *opts, cmp_u64);
        size_t n = put_varint(enc, nl); /* store.codec.encode_options */
        n += put_varint(enc + n, nr);
        for (size_t k = 0; k < m; k++) n += put_varint(enc + n, opts[k]);
        uint64_t store_id;
        rc = put_game(txn, games, index, max_key, enc, n, next_game, &store_id, error, room);
        if (!rc && shared_ids_put(ids, sid, store_id) < 0) {
            snprintf(error, room, "no memory for the session's ids");
            rc = -1;
        }
        at += 3 + m;
    }
    if (opts != small_ids) free(opts);
    if (enc != small_enc) free(enc);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* SHA-256 (FIPS 180-4)                                                                      */

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
    0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
    0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
    0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void block(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++) w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void store_sha256(const uint8_t *data, size_t n, uint8_t out[32]) {
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t full = n / 64 * 64;
    for (size_t at = 0; at < full; at += 64) block(h, data + at);
    uint8_t tail[128] = {0};
    size_t rest = n - full, len = rest + 9 <= 64 ? 64 : 128;
    memcpy(tail, data + full, rest);
    tail[rest] = 0x80;
    uint64_t bits = (uint64_t)n * 8;
    for (int b = 0; b < 8; b++) tail[len - 1 - b] = (uint8_t)(bits >> (8 * b));
    for (size_t at = 0; at < len; at += 64) block(h, tail + at);
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++) out[4 * i + b] = (uint8_t)(h[i] >> (24 - 8 * b));
}
