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

/* A least-significant-byte-first radix sort of v[0..n) on the heads (a pass is skipped where
 * every head has the same byte), through spare (n records) and counts (8 x 256, zeroed). */
static void radix_heads(Sortable *v, Sortable *spare, size_t n, size_t (*counts)[256]) {
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
}

/* Runs of at least this many equal heads are radix-sorted on their bodies' next 8 bytes before
 * by_body orders what still ties. */
#define SECOND_PASS 32

/* by_body's order: the radix sort on the heads, then each run of equal heads (bodies longer than
 * 8 bytes that agree so far) — a long one radix-sorted first on bytes 8..15 (zero-padded as the
 * heads are, so the same order by the argument above), its head put back after — by by_body.
 * qsort's ~15 calls of by_body a record were a tenth of a cold evaluation's main process (py-spy:
 * impartial Atomic Wari 4444 333333 into a fresh store), and most of a sweep's drains; with the
 * heads alone, a sweep's drain of impartial Sowing <= 13 (rows of up to 14 bytes, most agreeing
 * in their first 8) still spent 0.5 s of the driver's CPU in qsort on the runs. */
int sort_by_body(Sortable *v, size_t n) {
    if (n < 2) return 0;
    Sortable *spare = malloc(n * sizeof *spare);
    size_t (*counts)[256] = calloc(8, sizeof *counts);
    if (!spare || !counts) {
        free(spare);
        free(counts);
        return -1;
    }
    radix_heads(v, spare, n, counts);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j].head == v[i].head;) j++;
        if (j - i >= SECOND_PASS) {
            uint64_t head = v[i].head;
            for (size_t k = i; k < j; k++)
                v[k].head = v[k].len > 8 ? body_head(v[k].body + 8, v[k].len - 8) : 0;
            memset(counts, 0, 8 * sizeof *counts);
            radix_heads(v + i, spare, j - i, counts);
            for (size_t a = i, b; a < j; a = b) {
                for (b = a + 1; b < j && v[b].head == v[a].head;) b++;
                for (size_t k = a; k < b; k++) v[k].head = head;
                if (b - a > 1) qsort(v + a, b - a, sizeof *v, by_body);
            }
        } else if (j - i > 1) {
            qsort(v + i, j - i, sizeof *v, by_body);
        }
    }
    free(spare);
    free(counts);
    return 0;
}
