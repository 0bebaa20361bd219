/* body_sort.c — key bodies in byte order (see body_sort.h). */
#include "body_sort.h"

#include <stdlib.h>
#include <string.h>

/* Byte order of bodies. Comparing heads first is the same order: heads that differ do so at a
 * byte both bodies have, or where the shorter one (a prefix so far) has padding — lower than, or
 * equal to (then the heads do not differ there), the longer one's byte. */
static int by_body(const void *a, const void *b) {
    const Sortable *x = a, *y = b;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    int c = memcmp(x->body, y->body, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* by_body's order: a least-significant-byte-first radix sort on the heads (a pass is skipped
 * where every head has the same byte), then each run of equal heads (bodies longer than 8 bytes
 * that agree so far) by by_body. qsort's ~15 calls of by_body a record were a tenth of a cold
 * evaluation's main process (py-spy: impartial Atomic Wari 4444 333333 into a fresh store), and
 * most of a sweep's drains. */
int sort_by_body(Sortable *v, size_t n) {
    if (n < 2) return 0;
    Sortable *spare = malloc(n * sizeof *spare);
    size_t (*counts)[256] = calloc(8, sizeof *counts);
    if (!spare || !counts) {
        free(spare);
        free(counts);
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        for (int b = 0; b < 8; b++) counts[b][(v[k].head >> (8 * b)) & 0xFF]++;
    Sortable *from = v, *to = spare;
    for (int b = 0; b < 8; b++) {
        size_t *count = counts[b];
        if (count[(v[0].head >> (8 * b)) & 0xFF] == n) continue; /* one byte value: the order stays */
        size_t at = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t k = 0; k < n; k++) to[count[(from[k].head >> (8 * b)) & 0xFF]++] = from[k];
        Sortable *t = from;
        from = to;
        to = t;
    }
    if (from != v) memcpy(v, from, n * sizeof *v);
    free(spare);
    free(counts);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j].head == v[i].head;) j++;
        if (j - i > 1) qsort(v + i, j - i, sizeof *v, by_body);
    }
    return 0;
}
