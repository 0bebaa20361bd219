/* shared.c — SharedValues: a table of nim values in memory shared by the processes of a sweep.
 *
 * Why. Two worker processes valuing one family each keep their own table, so a position one of
 * them valued is known to the other only when the driver forwards it with a later shard, and the
 * sweep must hand out whole cells in dependency order (ruma.engine.families.order) — which leaves a
 * worker idle or duplicating a cell whenever the cells' order is a chain. With one table in shared
 * memory a worker publishes every value the moment it has it and reads every value the other
 * published before it searches a position, so dependencies resolve per position: the only work
 * done twice is a position both searched at the same moment.
 *
 * Layout (in a buffer the caller maps into every process, see ruma.client.sweep.shared):
 *     header (128 bytes), then slots (uint64 each, a power of two of them), then the packed
 *     slots (16 bytes each, a power of two of them, or none), then the arena (4-byte words, to
 *     the end of the buffer), cut into chunks of C words (the header's `chunk_words`: chunk k is
 *     words [kC, (k+1)C), the last one cut short by the arena's end).
 * Two parts, as in table.h; which one holds a key is a function of its body alone:
 *   - packed: a body table_pack packs (the canonical rows of small games: most keys of a sweep)
 *     lives in a packed slot, [64-bit key][value word][spare]: a lookup reads one cache line.
 *     The arena holds a one-word *log record* for it, SV_LOG | its slot's index, so the drain
 *     still meets every key in the order of the arena.
 *   - general: every other body. A slot holds 32 bits of the key's hash (high half) and the
 *     record's word offset + 1 (low half; 0 = empty); a record is [value word][length byte][key
 *     body][padding], wholly in one chunk.
 * A word SV_SKIP where a record would start means "the rest of this chunk is empty". Records and
 * packed slots are never moved nor removed.
 *
 * Concurrency, lock-free (GCC/Clang atomics):
 *   - chunks: each process (each SharedValues object: one per process) writes its records one
 *     after the other in a chunk of its own, reserved with ONE fetch-add of C words on the
 *     header's `next`. Why: with a fetch-add per record, every add of two workers wrote the one
 *     header cache line, and records of the two were interleaved in the arena so that lines
 *     holding both were written by both cores (false sharing) — two workers spent ~20 % more
 *     CPU per position than one. Chunks are whole cache lines (C is a multiple of 16 words; the
 *     arena is 64-byte aligned when the buffer is and it has 8 slots or more), so the lines two
 *     processes both write are the slots' and, once a chunk or SV_COUNT_BATCH keys, the
 *     header's. A record that does not fit the rest of the chunk makes the process seal it
 *     (store SV_SKIP, release, at its next word) and reserve the next one; seal() does so when
 *     a process stops adding, and so does the dealloc. (An object's own state is touched under
 *     the GIL only: no search releases it.)
 *   - add: once an empty slot is met in the probe sequence, take the record's words in the
 *     process's chunk and write length and body, then claim the slot with a compare-and-swap
 *     (release); only then store the value word (value + 1, release). A lost CAS shows the winner:
 *     the same key (our record is marked dead, the first value stays) or another key (probe on).
 *     A dead record keeps its words. A packed key likewise takes its log record's word first,
 *     claims its packed slot by a CAS of the key, stores the slot's value word, and only then its
 *     log record (release); a log record that lost to the same key becomes SV_LOST.
 *   - count: each process counts the keys it published locally and adds them to the header's
 *     `count` every SV_COUNT_BATCH adds and when it seals (the same cache line as `next`); the
 *     "3/4 of the slots" check reads count + its own pending keys — the other processes' last
 *     few are missed, which the slots' room (at least twice the keys) covers.
 *   - claim (search_shared.c): a search about to descend into a key adds it as add does, with the
 *     value word SV_CLAIM; the frame's value is stored into that word (release) when the frame
 *     leaves the search's path, or SV_GONE when the search is interrupted first. A claim found by
 *     another process tells it that the key is being searched (it searches something else first).
 *     A gone record keeps its slot but stands for no key: readers and adders probe past it.
 *   - find: acquire-load a slot, compare hash and body, acquire-load the value word; a record
 *     whose value word is still 0 (being published) or SV_CLAIM counts as absent (the reader may
 *     search the position itself: duplicated work, never a wrong value).
 *   - drain (the driver): walks the arena from where it stopped, in order, up to `next`; skips
 *     dead and gone records by their length (lost log records: one word) and jumps from SV_SKIP to
 *     the next chunk; reads a log record's value word in its packed slot; stops at the first value
 *     word 0 or SV_CLAIM (a record still being written or searched, or the unwritten
 *     rest of a chunk its process has not sealed: the next drain resumes there). So records after
 *     a chunk still open are drained only once its process fills or seals it: a process must
 *     seal() when it stops adding (ruma.client.sweep.shared.value_blocks does, and the dealloc
 *     does) before the last drain; and the drain waits for every claim before it to be settled or
 *     given up (a search holds claims only on its path). Each key is drained once.
 *   - own drains (a worker's, instead of the driver's: shared_drain.c): each process lists the
 *     chunks it takes (take_words) and drains only those, in order, up to its own next record;
 *     every live record of a key is in the chunk of the process whose add won its slot, so the
 *     processes' own drains together give each key once.
 *   - fork: a child process must not write in its parent's chunk (both would place records at
 *     one offset): an object whose chunk was taken before a fork gives it up, unsealed and
 *     uncounted, in the child (own(); the parent seals and counts it).
 * Values are facts: two processes that value one key find the same nim value, so whichever is
 * kept is right. The table never grows: an add that finds no room (arena spent, or slots 3/4
 * full) returns -1 and sets `full`; the sweep worker then sends its values the old way.
 */
#include "shared_layout.h"
#include "body_sort.h"
#include "frame.h"
#include "table.h"

#include <pthread.h>

unsigned shared_forks;
void shared_forked(void) { shared_forks++; }

static void count_pending(SharedValuesObject *t) {
    if (t->pending) __atomic_fetch_add(&t->head->count, t->pending, __ATOMIC_RELAXED);
    if (t->ppending) __atomic_fetch_add(&t->head->pcount, t->ppending, __ATOMIC_RELAXED);
    t->pending = t->ppending = 0;
}

static void seal_chunk(SharedValuesObject *t) {
    if (t->chunk_at < t->chunk_end) __atomic_store_n(&t->arena[t->chunk_at], SV_SKIP, __ATOMIC_RELEASE);
    t->chunk_at = t->chunk_end = 0;
}

void shared_seal(SharedValuesObject *t) {
    own(t);
    seal_chunk(t);
    count_pending(t);
}

/* Add the chunk at `start` to this process's list (its own drains walk it: shared_drain.c). */
static void list_chunk(SharedValuesObject *t, uint64_t start) {
    if (t->own_n == t->own_cap) {
        size_t cap = t->own_cap ? 2 * t->own_cap : 64;
        uint64_t *more = realloc(t->own_chunks, cap * sizeof *more);
        if (!more) {
            t->own_lost = 1; /* (an own drain then fails: it cannot know where this process wrote) */
            return;
        }
        t->own_chunks = more, t->own_cap = cap;
    }
    t->own_chunks[t->own_n++] = start;
}

/* The offset of `words` words for a record, in this process's chunk (sealed and replaced by the
 * next one when they do not fit), or UINT32_MAX when the arena has no room for them. */
static uint32_t take_words(SharedValuesObject *t, uint64_t words) {
    if (t->chunk_at + words > t->chunk_end) {
        seal_chunk(t);
        if (__atomic_load_n(&t->head->next, __ATOMIC_RELAXED) >= t->arena_end) return UINT32_MAX; /* (spent) */
        uint64_t start = __atomic_fetch_add(&t->head->next, t->chunk_words, __ATOMIC_RELAXED);
        if (start >= t->arena_end) return UINT32_MAX;
        t->chunk_at = start;
        t->chunk_end = start + t->chunk_words < t->arena_end ? start + t->chunk_words : t->arena_end;
        list_chunk(t, start);
        if (t->chunk_at + words > t->chunk_end) return UINT32_MAX; /* (the last chunk, short: kept for smaller records) */
    }
    uint64_t at = t->chunk_at;
    t->chunk_at += words;
    return (uint32_t)at;
}

static int same_body(const SharedValuesObject *t, uint32_t rec, const uint8_t *body, size_t len) {
    const uint8_t *p = (const uint8_t *)(t->arena + rec + 1);
    return p[0] == len && memcmp(p + 1, body, len) == 0;
}

/* The packed part: one 16-byte slot a key, key and value word in one cache line. */
static inline uint64_t packed_home(const SharedValuesObject *t, uint64_t key) { return table_mix(key) & t->pmask; }

static int find_packed(SharedValuesObject *t, uint64_t key, int32_t *value) {
    uint64_t mask = t->pmask;
    for (uint64_t i = packed_home(t, key), probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
        uint64_t k = load(&t->packed[i].key);
        if (!k) return 0;
        if (k != key) continue;
        uint32_t w = __atomic_load_n(&t->packed[i].word, __ATOMIC_ACQUIRE);
        if (w == SV_GONE) continue;
        if (w == 0 || w == SV_CLAIM) return 0;
        *value = (int32_t)(w - 1);
        return 1;
    }
    return 0;
}

int shared_find(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t *value) {
    uint64_t key;
    if (t->packed && table_pack(body, len, &key)) return find_packed(t, key, value);
    if (len >= 255) return 0;
    uint64_t mask = t->mask;
    for (uint64_t i = hash & mask, probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
        uint64_t s = load(&t->slots[i]);
        if (!s) return 0;
        uint32_t rec = (uint32_t)s - 1;
        if ((uint32_t)(s >> 32) == hash && same_body(t, rec, body, len)) {
            uint32_t w = __atomic_load_n(&t->arena[rec], __ATOMIC_ACQUIRE);
            if (w == SV_GONE) continue; /* a claim given up: the key may have a live record further on */
            if (w == 0 || w == SV_CLAIM) return 0; /* being published, or searched by its claimant */
            *value = (int32_t)(w - 1);
            return 1;
        }
    }
    return 0;
}

static int no_room(SharedValuesObject *t, uint32_t rec) {
    if (rec != UINT32_MAX) __atomic_store_n(&t->arena[rec], SV_DEAD, __ATOMIC_RELEASE);
    if (!__atomic_load_n(&t->head->full, __ATOMIC_RELAXED)) __atomic_store_n(&t->head->full, 1, __ATOMIC_RELAXED);
    return -1;
}

/* Insert the key with value word `word` (value + 1, or SV_CLAIM): 1 and *at when inserted; 0 and
 * *seen (its value word: 0 while being written) when a live record of the key is there; -1 no room. */
static int insert_packed(SharedValuesObject *t, uint64_t key, uint32_t word, uint32_t *seen, uint32_t *at) {
    if (__atomic_load_n(&t->head->pcount, __ATOMIC_RELAXED) + t->ppending >= t->plimit) return no_room(t, UINT32_MAX);
    uint32_t log = UINT32_MAX;
    uint64_t mask = t->pmask;
    for (uint64_t i = packed_home(t, key), probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
        uint64_t k = load(&t->packed[i].key);
        if (!k) {
            if (log == UINT32_MAX && (log = take_words(t, 1)) == UINT32_MAX) return no_room(t, UINT32_MAX);
            if (__atomic_compare_exchange_n(&t->packed[i].key, &k, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&t->packed[i].word, word, __ATOMIC_RELEASE);
                __atomic_store_n(&t->arena[log], SV_LOG | (uint32_t)i, __ATOMIC_RELEASE);
                if (++t->ppending >= SV_COUNT_BATCH) count_pending(t);
                *at = SV_LOG | (uint32_t)i;
                return 1;
            }
            /* lost the slot: k is the winner's key, compared below */
        }
        if (k != key) continue;
        uint32_t w = __atomic_load_n(&t->packed[i].word, __ATOMIC_ACQUIRE);
        if (w == SV_GONE) continue; /* (a claim given up: probe on for a live slot, or room) */
        if (log != UINT32_MAX) __atomic_store_n(&t->arena[log], SV_LOST, __ATOMIC_RELEASE);
        *seen = w;
        return 0;
    }
    if (log != UINT32_MAX) __atomic_store_n(&t->arena[log], SV_LOST, __ATOMIC_RELEASE);
    return no_room(t, UINT32_MAX);
}

static int insert(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, uint32_t word, uint32_t *seen,
                  uint32_t *at) {
    SvHeader *h = t->head;
    own(t);
    uint64_t key;
    if (t->packed && table_pack(body, len, &key)) return insert_packed(t, key, word, seen, at);
    if (__atomic_load_n(&h->count, __ATOMIC_RELAXED) + t->pending >= t->limit) return no_room(t, UINT32_MAX);
    uint64_t mask = t->mask;
    uint32_t rec = UINT32_MAX;
    for (uint64_t i = hash & mask, probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
        uint64_t s = load(&t->slots[i]);
        if (!s) {
            if (rec == UINT32_MAX) { /* reserve and write the record once, before claiming a slot */
                rec = take_words(t, table_record_words(len));
                if (rec == UINT32_MAX) return no_room(t, UINT32_MAX);
                uint8_t *p = (uint8_t *)(t->arena + rec + 1);
                p[0] = (uint8_t)len;
                memcpy(p + 1, body, len);
            }
            uint64_t want = (uint64_t)hash << 32 | ((uint64_t)rec + 1);
            if (__atomic_compare_exchange_n(&t->slots[i], &s, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&t->arena[rec], word, __ATOMIC_RELEASE);
                if (++t->pending >= SV_COUNT_BATCH) count_pending(t);
                *at = rec;
                return 1;
            }
            /* lost the slot: s is the winner's, compared below */
        }
        if ((uint32_t)(s >> 32) == hash && same_body(t, (uint32_t)s - 1, body, len)) {
            uint32_t w = __atomic_load_n(&t->arena[(uint32_t)s - 1], __ATOMIC_ACQUIRE);
            if (w == SV_GONE) continue; /* (a claim given up: probe on for a live record, or room) */
            if (rec != UINT32_MAX) __atomic_store_n(&t->arena[rec], SV_DEAD, __ATOMIC_RELEASE);
            *seen = w;
            return 0;
        }
    }
    return no_room(t, rec);
}

int shared_add(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value) {
    if (len >= 255 || value < 0 || value == INT32_MAX) return no_room(t, UINT32_MAX); /* (not for this table) */
    uint32_t seen, at;
    return insert(t, body, len, hash, (uint32_t)value + 1, &seen, &at);
}

int shared_claim(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t *value,
                 uint32_t *at) {
    if (len >= 255) return -1;
    uint32_t seen;
    int rc = insert(t, body, len, hash, SV_CLAIM, &seen, at);
    if (rc != 0) return rc < 0 ? -1 : SV_MINE;
    if (seen == 0 || seen == SV_CLAIM) return SV_THEIRS;
    *value = (int32_t)(seen - 1);
    return SV_KNOWN;
}

uint32_t *shared_word(SharedValuesObject *t, uint32_t at) {
    return at >= SV_LOG ? &t->packed[at & ~SV_LOG].word : &t->arena[at];
}

void shared_settle(SharedValuesObject *t, uint32_t at, int32_t value) {
    __atomic_store_n(shared_word(t, at), (uint32_t)value + 1, __ATOMIC_RELEASE);
}

void shared_abandon(SharedValuesObject *t, uint32_t at) { __atomic_store_n(shared_word(t, at), SV_GONE, __ATOMIC_RELEASE); }
