/* body_sort.h — sorting key bodies in byte order (body_sort.c): a search's hand-over to the store
 * (search_memo.c) and a sweep's drains of its shared table (shared.c). */
#ifndef RUMA_BODY_SORT_H
#define RUMA_BODY_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t head; /* the body's first 8 bytes, big-endian, zero-padded (body_head): most comparisons end here */
    const uint8_t *body;
    size_t len;
    uint32_t rec; /* the caller's: what the sorted body stands for */
} Sortable;

/* The head of a body. */
static inline uint64_t body_head(const uint8_t *body, size_t len) {
    uint64_t h = 0;
    for (size_t k = 0; k < 8; k++) h = h << 8 | (k < len ? body[k] : 0);
    return h;
}

/* Order v[0..n) by body, bytewise (a shorter body before the longer ones it begins): 0, or -1 when
 * memory is short (v is then left as it was, or partly ordered; no Python error is set). */
int sort_by_body(Sortable *v, size_t n);

#endif
