/* rows.c — the row-of-pots rulesets' shared part: row buffers, the mirror, the dispatch by family,
 * keys; the families themselves are in sowing.c and wari.c.
 *
 * A transcription of the pure-Python reference (ruma/engine/rulesets/sowing.py, atomic_wari.py,
 * atomic_wari_board.py): same loops, same order of options and components, same keys. The rules
 * are stated and argued in those modules' docstrings (N1-N4 and D1-D2 for Sowing, N1-N2 and D1-D2
 * for Atomic Wari, B1-B4 for the board); comments here only explain what differs in form.
 * Python slices become copies into scratch buffers; recursion (Sowing's split) becomes an explicit
 * stack so that a 10,000-pot row cannot overflow the C stack of a server thread.
 */
#include "rows_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------- */
/* buffers                                                                                   */

void rows_init(Rows *r) { memset(r, 0, sizeof *r); }

void rows_free(Rows *r) {
    free(r->data);
    free(r->start);
    free(r->flag);
    rows_init(r);
}

void rows_clear(Rows *r) {
    r->len = 0;
    r->count = 0;
    if (r->start) r->start[0] = 0;
}

static int rows_grow_rows(Rows *r) {
    if (r->count + 2 <= r->rows_cap) return 0;
    size_t cap = r->rows_cap ? r->rows_cap * 2 : 16;
    size_t *start = realloc(r->start, cap * sizeof *start);
    if (!start) return -1;
    r->start = start;
    uint8_t *flag = realloc(r->flag, cap);
    if (!flag) return -1;
    r->flag = flag;
    if (r->rows_cap == 0) r->start[0] = 0;
    r->rows_cap = cap;
    return 0;
}

static int rows_grow_data(Rows *r, size_t extra) {
    if (r->len + extra <= r->cap && r->data) return 0; /* (data is never NULL: an empty row needs a place too) */
    size_t cap = r->cap ? r->cap : 64;
    while (cap < r->len + extra) cap *= 2;
    pot_t *data = realloc(r->data, cap * sizeof *data);
    if (!data) return -1;
    r->data = data;
    r->cap = cap;
    return 0;
}

/* Reserve room for a new row of n pots and return where to write it (then rows_commit). */
pot_t *rows_begin(Rows *r, size_t n) {
    if (rows_grow_rows(r) < 0 || rows_grow_data(r, n) < 0) return NULL;
    return r->data + r->len;
}

void rows_commit(Rows *r, size_t n, int flag) {
    r->len += n;
    r->flag[r->count] = (uint8_t)flag;
    r->count++;
    r->start[r->count] = r->len;
}

int rows_push(Rows *r, const pot_t *row, size_t n, int flag) {
    pot_t *w = rows_begin(r, n);
    if (!w) return -1;
    if (n) memcpy(w, row, n * sizeof *row);
    rows_commit(r, n, flag);
    return 0;
}

void scratch_init(Scratch *s) {
    memset(s, 0, sizeof *s);
    rows_init(&s->work);
}

void scratch_free(Scratch *s) {
    free(s->a.v);
    free(s->b.v);
    free(s->c.v);
    free(s->d.v);
    free(s->cuts);
    rows_free(&s->work);
    memset(s, 0, sizeof *s);
}

pot_t *buf_reserve(Buf *b, size_t n) {
    if (n <= b->cap && b->v) return b->v;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < n) cap *= 2;
    pot_t *v = realloc(b->v, cap * sizeof *v);
    if (!v) return NULL;
    b->v = v;
    b->cap = cap;
    return v;
}

/* ---------------------------------------------------------------------------------------- */
/* shared helpers                                                                            */

/* The lexicographically smaller of row and its mirror image (reference: PotRowRuleset.oriented):
 * appends it to out with the flag 1 when it is the mirror. Tuples of equal length compare
 * element by element, so comparing row[n-1-k] with row[k] decides mirror < row. */
int push_oriented(Rows *out, const pot_t *row, size_t n) {
    int mirrored = 0;
    for (size_t k = 0; k < n; k++) {
        pot_t m = row[n - 1 - k], v = row[k];
        if (m != v) {
            mirrored = m < v;
            break;
        }
    }
    pot_t *w = rows_begin(out, n);
    if (!w) return -1;
    if (mirrored)
        for (size_t k = 0; k < n; k++) w[k] = row[n - 1 - k];
    else if (n)
        memcpy(w, row, n * sizeof *row);
    rows_commit(out, n, mirrored);
    return 0;
}

/* Empty end pots dropped: the bounds [*lo, *hi) of the nonempty span. */
void strip_bounds(const pot_t *s, size_t n, size_t *lo, size_t *hi) {
    size_t a = 0, b = n;
    while (a < b && s[a] == 0) a++;
    while (b > a && s[b - 1] == 0) b--;
    *lo = a;
    *hi = b;
}

/* ---------------------------------------------------------------------------------------- */
/* dispatch                                                                                  */

int family_options(int family, const pot_t *s, size_t n, int dir, Rows *out) {
    switch (family) {
    case FAM_SOWING:
        return sowing_options(s, n, dir, out);
    case FAM_WARI:
        return wari_options(s, n, dir, 0, out);
    default:
        return wari_options(s, n, dir, 1, out);
    }
}

int family_normalise(int family, const pot_t *s, size_t n, Rows *out, Scratch *sc) {
    size_t lo, hi;
    switch (family) {
    case FAM_SOWING: {
        long m = sowing_simplify(s, n, &sc->d);
        if (m < 0) return -1;
        return push_oriented(out, sc->d.v, (size_t)m);
    }
    case FAM_WARI:
        strip_bounds(s, n, &lo, &hi);
        return push_oriented(out, s + lo, hi - lo);
    default:
        trim_bounds(s, n, &lo, &hi);
        return push_oriented(out, s + lo, hi - lo);
    }
}

int family_components(int family, const pot_t *s, size_t n, Rows *out, Scratch *sc) {
    switch (family) {
    case FAM_SOWING:
        return sowing_components(s, n, out, sc);
    case FAM_WARI:
        return wari_components(s, n, out, sc);
    default:
        return board_components(s, n, out, sc);
    }
}

/* Orient rows first .. out->count in place (each replaced by its canonical orientation). */
static void orient_from(Rows *out, size_t first) {
    for (size_t k = first; k < out->count; k++) {
        pot_t *row = out->data + out->start[k];
        size_t m = out->start[k + 1] - out->start[k];
        int mirrored = 0;
        for (size_t j = 0; j < m; j++) {
            pot_t a = row[m - 1 - j], b = row[j];
            if (a != b) {
                mirrored = a < b;
                break;
            }
        }
        if (mirrored)
            for (size_t j = 0; j < m / 2; j++) {
                pot_t x = row[j];
                row[j] = row[m - 1 - j];
                row[m - 1 - j] = x;
            }
        out->flag[k] = (uint8_t)mirrored;
    }
}

int family_decompose(int family, const pot_t *s, size_t n, Rows *out, Scratch *sc) {
    size_t first = out->count;
    int rc;
    if (family == FAM_WARI) {
        size_t lo, hi;
        strip_bounds(s, n, &lo, &hi);
        int64_t sum = 0;
        for (size_t k = lo; k < hi; k++) sum += s[k];
        /* fast path of the reference: a stripped row holding more seeds than pots has no cut
         * and a pot of 2 or more, so it is one live component */
        if (sum > (int64_t)(hi - lo)) return push_oriented(out, s + lo, hi - lo);
        rc = wari_components(s, n, out, sc);
    } else if (family == FAM_SOWING) {
        rc = sowing_decompose_common(s, n, out);
        if (rc) return rc < 0 ? -1 : 0; /* (oriented already) */
        rc = sowing_components(s, n, out, sc);
    } else {
        rc = board_components(s, n, out, sc);
    }
    if (rc < 0) return -1;
    orient_from(out, first);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* keys                                                                                      */

static int grow_bytes(uint8_t **out, size_t *cap, size_t need) {
    if (need <= *cap && *out) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    uint8_t *p = realloc(*out, c);
    if (!p) return -1;
    *out = p;
    *cap = c;
    return 0;
}

long family_key_body(int family, const pot_t *s, size_t n, uint8_t **out, size_t *cap) {
    int sowing = family == FAM_SOWING;
    int binary = 1;
    for (size_t k = 0; k < n; k++) {
        pot_t v = s[k];
        /* Sowing: one byte when every count is below 255 or full (255); others: 0..255 */
        if (sowing ? !(v < 255 || v >= RUMA_FULL) : v > 255) {
            binary = 0;
            break;
        }
    }
    if (binary) {
        if (grow_bytes(out, cap, n + 1) < 0) return -1;
        uint8_t *w = *out;
        w[0] = 0;
        for (size_t k = 0; k < n; k++) w[k + 1] = (uint8_t)(sowing && s[k] >= RUMA_FULL ? 255 : s[k]);
        return (long)(n + 1);
    }
    /* 0x01 + the counts as comma-separated decimal text (Sowing: "F" for a full pot) */
    if (grow_bytes(out, cap, 1 + n * 21) < 0) return -1;
    uint8_t *w = *out;
    size_t len = 0;
    w[len++] = 1;
    for (size_t k = 0; k < n; k++) {
        if (k) w[len++] = ',';
        if (sowing && s[k] >= RUMA_FULL)
            w[len++] = 'F';
        else
            len += (size_t)sprintf((char *)w + len, "%lld", (long long)s[k]);
    }
    return (long)len;
}

int family_sparse_runs(int family, const pot_t *s, size_t n, size_t *runs, size_t *nruns) {
    if (family == FAM_SOWING) return 0;
    if (family == FAM_BOARD && (reach_left(s, n) < 0 || reach_right(s, n) > (int64_t)n - 1)) return 0;
    size_t m = 0, count = 0;
    for (size_t k = 0; k < n; k++) {
        pot_t v = s[k];
        if (v > 2) return 0;
        if (v == 2)
            m++;
        else if (m) {
            runs[count++] = m;
            m = 0;
        }
    }
    if (m) runs[count++] = m;
    *nruns = count;
    return 1;
}

void family_size(int family, const pot_t *s, size_t n, int64_t *pots, int64_t *seeds) {
    int64_t total = 0;
    for (size_t k = 0; k < n; k++) {
        pot_t v = s[k];
        if (family == FAM_SOWING ? (0 < v && v < RUMA_FULL) : v > 0) total += v;
    }
    *pots = (int64_t)n;
    *seeds = total;
}
