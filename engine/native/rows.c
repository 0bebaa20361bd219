/* rows.c — moves, normalisation, decomposition and keys of the row-of-pots rulesets.
 *
 * A transcription of the pure-Python reference (ruma/engine/rulesets/sowing.py, atomic_wari.py,
 * atomic_wari_board.py): same loops, same order of options and components, same keys. The rules
 * are stated and argued in those modules' docstrings (N1-N4 and D1-D2 for Sowing, N1-N2 and D1-D2
 * for Atomic Wari, B1-B4 for the board); comments here only explain what differs in form.
 * Python slices become copies into scratch buffers; recursion (Sowing's split) becomes an explicit
 * stack so that a 10,000-pot row cannot overflow the C stack of a server thread.
 */
#include "rows.h"

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
static pot_t *rows_begin(Rows *r, size_t n) {
    if (rows_grow_rows(r) < 0 || rows_grow_data(r, n) < 0) return NULL;
    return r->data + r->len;
}

static void rows_commit(Rows *r, size_t n, int flag) {
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
static int push_oriented(Rows *out, const pot_t *row, size_t n) {
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
static void strip_bounds(const pot_t *s, size_t n, size_t *lo, size_t *hi) {
    size_t a = 0, b = n;
    while (a < b && s[a] == 0) a++;
    while (b > a && s[b - 1] == 0) b--;
    *lo = a;
    *hi = b;
}

/* ---------------------------------------------------------------------------------------- */
/* Sowing (reference: sowing.py)                                                             */

/* sow_right (dir +1) and sow_left (dir -1). */
static int sowing_options(const pot_t *s, size_t n, int dir, Rows *out) {
    if (dir > 0) {
        for (size_t i = 0; i + 1 < n; i++) {
            pot_t v = s[i];
            if (v == 0) continue;
            /* v <= RUMA_MAX_COUNT, so i + v cannot overflow */
            int64_t j = (int64_t)i + v;
            if (j < (int64_t)n && s[j] != 0) {
                pot_t *w = rows_begin(out, n);
                if (!w) return -1;
                memcpy(w, s, n * sizeof *s);
                w[i] = 0;
                for (int64_t k = (int64_t)i + 1; k <= j; k++) w[k] += 1;
                rows_commit(out, n, 0);
            }
        }
    } else {
        for (size_t i = 1; i < n; i++) {
            pot_t v = s[i];
            if (v == 0) continue;
            int64_t j = (int64_t)i - v;
            if (j >= 0 && s[j] != 0) {
                pot_t *w = rows_begin(out, n);
                if (!w) return -1;
                memcpy(w, s, n * sizeof *s);
                for (int64_t k = j; k < (int64_t)i; k++) w[k] += 1;
                w[i] = 0;
                rows_commit(out, n, 0);
            }
        }
    }
    return 0;
}

/* simplify (rules N1-N3): the result is left in out->v; returns its length or -1. */
static long sowing_simplify(const pot_t *s, size_t n, Buf *out) {
    size_t lo, hi;
    strip_bounds(s, n, &lo, &hi);
    size_t m = hi - lo;
    pot_t *t = buf_reserve(out, m ? m : 1);
    if (!t) return -1;
    if (m) memmove(t, s + lo, m * sizeof *t); /* s may alias out->v (re-simplifying in place) */
    for (;;) {
        if (m == 0) return 0;
        int64_t last = (int64_t)m - 1;
        pot_t mx = t[0];
        for (size_t i = 1; i < m; i++)
            if (t[i] > mx) mx = t[i];
        if (mx <= (last >> 1)) return (long)m; /* a full pot needs more than last // 2 seeds */
        int64_t seeds = 0;
        for (size_t i = 0; i < m; i++) {
            /* marking in place is the reference's new tuple: each pot is decided alone */
            if (t[i] > (int64_t)i && t[i] > last - (int64_t)i) t[i] = RUMA_FULL;
            if (t[i] < RUMA_FULL) seeds += t[i];
        }
        if (seeds == 0) return 0;
        size_t a = 0;
        while (t[a] >= RUMA_FULL) a++;
        size_t b = m;
        while (t[b - 1] >= RUMA_FULL) b--;
        int64_t na = (int64_t)a - seeds, nb = (int64_t)b + seeds;
        size_t from = na > 0 ? (size_t)na : 0;
        size_t to = nb < (int64_t)m ? (size_t)nb : m;
        if (from == 0 && to == m) return (long)m;
        memmove(t, t + from, (to - from) * sizeof *t);
        m = to - from;
    }
}

/* _split (rules D1-D2) on a simplified row, appending the components to out. The reference
 * recurses on both halves of the first cut; here the halves wait on an explicit stack
 * (sc->work), the right half pushed first so that the left half's components come out first. */
static int sowing_split(const pot_t *t0, size_t n0, Rows *out, Scratch *sc) {
    Rows *stack = &sc->work;
    rows_clear(stack);
    if (rows_push(stack, t0, n0, 0) < 0) return -1;
    while (stack->count) {
        size_t m;
        const pot_t *top = rows_row(stack, stack->count - 1, &m);
        pot_t *t = buf_reserve(&sc->c, m ? m : 1);
        if (!t) return -1;
        memcpy(t, top, m * sizeof *t);
        stack->count--;
        stack->len = stack->start[stack->count];

        int64_t zeros = 0, fulls = 0, sum = 0;
        for (size_t i = 0; i < m; i++) {
            if (t[i] == 0) zeros++;
            if (t[i] == RUMA_FULL) fulls++;
            sum += t[i];
        }
        int64_t total = sum - fulls * RUMA_FULL; /* every full pot of a simplified row is FULL */
        int64_t widest = zeros > fulls ? zeros : fulls;
        int cut = 0;
        if (!(2 * widest < total)) { /* a cut needs a run at least max(sA, sB) >= total / 2 long */
            int64_t left = 0;
            size_t i = 0;
            while (i < m) {
                pot_t v = t[i];
                if (v == 0 || v >= RUMA_FULL) {
                    int full = v >= RUMA_FULL;
                    size_t j = i;
                    while (j < m && (full ? t[j] >= RUMA_FULL : t[j] == 0)) j++;
                    int64_t width = (int64_t)(j - i), right = total - left;
                    if (0 < left && left <= width && right <= width && j < m) {
                        /* a = t[:j] (full gap) or t[:i]; b = t[i:] (full gap) or t[j:] */
                        size_t a_end = full ? j : i, b_from = full ? i : j;
                        long na = sowing_simplify(t, a_end, &sc->a);
                        if (na < 0) return -1;
                        long nb = sowing_simplify(t + b_from, m - b_from, &sc->b);
                        if (nb < 0) return -1;
                        if (nb > 0 && rows_push(stack, sc->b.v, (size_t)nb, 0) < 0) return -1;
                        if (na > 0 && rows_push(stack, sc->a.v, (size_t)na, 0) < 0) return -1;
                        cut = 1;
                        break;
                    }
                    i = j;
                } else {
                    left += v;
                    i++;
                }
            }
        }
        if (!cut && rows_push(out, t, m, 0) < 0) return -1;
    }
    return 0;
}

/* Whether a simplified row might have a cut (D1-D2): a cut needs an empty or full run at least
 * max(sA, sB) >= total / 2 long. Most rows fail this test and are one component. */
static int sowing_may_split(const pot_t *t, size_t m) {
    int64_t zeros = 0, fulls = 0, sum = 0;
    for (size_t i = 0; i < m; i++) {
        if (t[i] == 0) zeros++;
        if (t[i] == RUMA_FULL) fulls++;
        sum += t[i];
    }
    int64_t total = sum - fulls * RUMA_FULL, widest = zeros > fulls ? zeros : fulls;
    return !(2 * widest < total);
}

static int sowing_components(const pot_t *s, size_t n, Rows *out, Scratch *sc) {
    long m = sowing_simplify(s, n, &sc->d);
    if (m < 0) return -1;
    if (m == 0) return 0;
    if (!sowing_may_split(sc->d.v, (size_t)m)) return rows_push(out, sc->d.v, (size_t)m, 0);
    return sowing_split(sc->d.v, (size_t)m, out, sc);
}

/* ---------------------------------------------------------------------------------------- */
/* Atomic Wari (reference: atomic_wari.py) and its fixed board (atomic_wari_board.py)         */

/* _sow_right_from / _sow_left_from: one sowing of s >= 2 seeds from pot i, with captures. On the
 * unbounded row the result may be longer than the input (grown on the sowing side). */
static int wari_sow(const pot_t *st, size_t n, size_t i, pot_t s, int dir, Rows *out) {
    if (dir > 0) {
        size_t end = i + (size_t)s;
        size_t len = end > n ? end : n;
        pot_t *w = rows_begin(out, len);
        if (!w) return -1;
        memcpy(w, st, n * sizeof *st);
        for (size_t k = n; k < len; k++) w[k] = 0;
        w[i] = 1;
        for (size_t k = i + 1; k < end; k++) w[k] += 1;
        size_t k = end - 1;
        while (w[k] == 2 || w[k] == 3) w[k--] = 0; /* stops at pot i, which holds 1 */
        rows_commit(out, len, 0);
    } else {
        int64_t shift = s - 1 - (int64_t)i;
        size_t pad = shift > 0 ? (size_t)shift : 0;
        size_t len = n + pad;
        pot_t *w = rows_begin(out, len);
        if (!w) return -1;
        for (size_t k = 0; k < pad; k++) w[k] = 0;
        memcpy(w + pad, st, n * sizeof *st);
        size_t at = i + pad;
        size_t start = at - (size_t)s + 1;
        w[at] = 1;
        for (size_t k = start; k < at; k++) w[k] += 1;
        size_t k = start;
        while (w[k] == 2 || w[k] == 3) w[k++] = 0;
        rows_commit(out, len, 0);
    }
    return 0;
}

static int wari_options(const pot_t *s, size_t n, int dir, int bounded, Rows *out) {
    for (size_t i = 0; i < n; i++) {
        pot_t v = s[i];
        if (v < 2) continue;
        if (bounded) {
            if (dir > 0 && (int64_t)i + v > (int64_t)n) continue;
            if (dir < 0 && (int64_t)i - v + 1 < 0) continue;
        }
        if (wari_sow(s, n, i, v, dir, out) < 0) return -1;
    }
    return 0;
}

static int64_t reach_right(const pot_t *s, size_t n) {
    int64_t q = -1, suffix = 0;
    for (size_t k = n; k-- > 0;) {
        suffix += s[k];
        if (suffix && (int64_t)k + suffix - 1 > q) q = (int64_t)k + suffix - 1;
    }
    return q;
}

static int64_t reach_left(const pot_t *s, size_t n) {
    int64_t p = (int64_t)n, prefix = 0;
    for (size_t j = 0; j < n; j++) {
        prefix += s[j];
        if (prefix && (int64_t)j - prefix + 1 < p) p = (int64_t)j - prefix + 1;
    }
    return p;
}

/* trim_margins (B1): the bounds [*lo, *hi) of the pots any sowing can ever reach. */
static void trim_bounds(const pot_t *s, size_t n, size_t *lo, size_t *hi) {
    int64_t l = reach_left(s, n), h = reach_right(s, n);
    if (l < 0) l = 0;
    if (h > (int64_t)n - 1) h = (int64_t)n - 1;
    if (h + 1 <= l) { /* state[lo:hi + 1] is empty (no seeds) */
        *lo = *hi = 0;
        return;
    }
    *lo = (size_t)l;
    *hi = (size_t)(h + 1);
}

/* cuts (D1): every sound cut (a, b, q, p), left to right, into sc->cuts (qs and ps live in the
 * scratch buffers a and b); returns how many, or -1 when out of memory. */
static long wari_cuts(const pot_t *s, size_t n, Scratch *sc, Cut **cuts_out) {
    pot_t *qs = buf_reserve(&sc->a, n ? n : 1);
    pot_t *ps = buf_reserve(&sc->b, n ? n : 1);
    if (!qs || !ps) return -1;
    if (sc->cuts_cap < n) { /* at most n - 1 cuts */
        Cut *grown = realloc(sc->cuts, n * sizeof *grown);
        if (!grown) return -1;
        sc->cuts = grown;
        sc->cuts_cap = n;
    }
    int64_t best = -((int64_t)1 << 62), pre = 0;
    for (size_t a = 0; a < n; a++) {
        if ((int64_t)a - 1 - pre > best) best = (int64_t)a - 1 - pre;
        pre += s[a];
        qs[a] = best + pre;
    }
    int64_t low = (int64_t)1 << 62, pre_to = pre;
    for (size_t b = n; b-- > 0;) {
        if ((int64_t)b + 1 - pre_to < low) low = (int64_t)b + 1 - pre_to;
        pre_to -= s[b];
        ps[b] = low + pre_to;
    }
    Cut *cuts = sc->cuts;
    long count = 0;
    int64_t a = -1;
    for (size_t b = 0; b < n; b++) {
        if (s[b] == 0) continue;
        if (a >= 0 && qs[a] < ps[b]) {
            cuts[count].a = (size_t)a;
            cuts[count].b = b;
            cuts[count].q = qs[a];
            cuts[count].p = ps[b];
            count++;
        }
        a = (int64_t)b;
    }
    *cuts_out = cuts;
    return count;
}

static int live(const pot_t *s, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (s[k] >= 2) return 1;
    return 0;
}

static int wari_components(const pot_t *s, size_t n, Rows *out, Scratch *sc) {
    size_t lo, hi;
    strip_bounds(s, n, &lo, &hi);
    const pot_t *t = s + lo;
    size_t m = hi - lo;
    Cut *cuts;
    long count = wari_cuts(t, m, sc, &cuts);
    if (count < 0) return -1;
    size_t start = 0;
    for (long c = 0; c <= count; c++) {
        size_t end = c < count ? cuts[c].a + 1 : m;
        if (live(t + start, end - start) && rows_push(out, t + start, end - start, 0) < 0) return -1;
        if (c < count) start = cuts[c].b;
    }
    return 0;
}

static int board_components(const pot_t *s, size_t n, Rows *out, Scratch *sc) {
    Cut *cuts;
    long count = wari_cuts(s, n, sc, &cuts);
    if (count < 0) return -1;
    size_t start = 0;
    for (long c = 0; c <= count; c++) {
        /* state[start : q + 1], clipped like a Python slice */
        size_t end = n;
        if (c < count) {
            int64_t q1 = cuts[c].q + 1;
            end = q1 < (int64_t)n ? (size_t)q1 : n;
        }
        if (end < start) end = start;
        const pot_t *piece = s + start;
        size_t len = end - start;
        if (live(piece, len)) {
            size_t lo, hi;
            trim_bounds(piece, len, &lo, &hi);
            if (rows_push(out, piece + lo, hi - lo, 0) < 0) return -1;
        }
        if (c < count) start = cuts[c].p > 0 ? (size_t)cuts[c].p : 0;
        if (start > n) start = n;
    }
    return 0;
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
