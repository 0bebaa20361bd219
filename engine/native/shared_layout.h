/* shared_layout.h — the layout of SharedValues' shared memory (shared.c tells the design), for
 * shared.c (the table's operations) and shared_type.c (the Python type). Private to those two. */
#ifndef RUMA_SHARED_LAYOUT_H
#define RUMA_SHARED_LAYOUT_H

#include "shared.h"

#define SV_MAGIC 0x33305653414d5552ULL /* "RUMASV03" little-endian (02: no packed part; 01: no chunks) */
#define SV_DEAD UINT32_MAX             /* a record that lost to the same key (values are stored + 1 <= INT32_MAX) */
#define SV_SKIP (UINT32_MAX - 1)       /* where a record would start: the rest of the chunk is empty */
#define SV_CLAIM (UINT32_MAX - 2)      /* a claimed key: a process is searching it, its value comes later */
#define SV_GONE (UINT32_MAX - 3)       /* a claim given up unvalued: skipped, as if its slot held no key */
#define SV_LOST (UINT32_MAX - 4)       /* a one-word log record whose packed key lost to the same key */
#define SV_LOG 0x80000000u             /* a log record: SV_LOG | the packed slot it names (below 2^30) */
#define SV_LOG_END 0xC0000000u         /* (log records are below it; value words below SV_LOG) */
#define SV_PACKED_MAX (1ull << 30)     /* the most packed slots */
#define SV_ARENA_MAX (SV_LOG - 1)      /* arena offsets (and claim handles of general keys) stay below SV_LOG */
#define SV_COUNT_BATCH 64              /* keys a process publishes between two adds to the header's count */
#define SV_CHUNKS 64                   /* the arena's chunks (C = its words / 64, in 128..4096, see init) */

struct SvHeader {
    uint64_t magic;
    uint32_t code, version;
    uint64_t nslots;      /* a power of two */
    uint64_t arena_words; /* words after the slots */
    uint64_t next;        /* atomic: arena words reserved so far */
    uint64_t count;       /* atomic: keys published */
    uint64_t full;        /* atomic: 1 once an add found no room */
    uint64_t claimed;     /* atomic: work items handed out by claim() (a sweep's blocks of classes) */
    uint64_t cancelled;   /* atomic: 1 once cancel() was called (the workers stop at their next claim) */
    uint64_t total;       /* atomic: the work items there are (added to by add_total) */
    uint64_t chunk_words; /* C: the words of a chunk (a multiple of 16, at least the largest record) */
    uint64_t npacked;     /* packed slots (a power of two, or 0: every key general) */
    uint64_t pcount;      /* atomic: packed keys published */
    uint64_t unused[3];   /* (the header is 128 bytes) */
};

/* A packed slot: a packable key (table.h's table_pack; 0: empty) and its value word. */
struct SvPacked {
    uint64_t key;
    uint32_t word;
    uint32_t spare;
};

static inline uint64_t load(uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* forks this process is the child of (counted by pthread_atfork, see SharedValues_init) */
extern unsigned shared_forks;
void shared_forked(void);

/* A chunk and pending keys taken before a fork are the parent's: the child starts afresh. */
static inline void own(SharedValuesObject *t) {
    if (__builtin_expect(t->forks != shared_forks, 0)) {
        t->chunk_at = t->chunk_end = t->pending = t->ppending = 0;
        t->own_n = t->own_next = 0, t->own_at = 0, t->own_lost = 0; /* (the list itself: the child's copy) */
        t->forks = shared_forks;
    }
}


#endif
