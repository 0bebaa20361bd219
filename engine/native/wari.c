/* wari.c — Atomic Wari on the unbounded row and on a fixed board: moves with captures, the reach
 * bounds and cuts (D1, B1, B3), transcribed from ruma/engine/rulesets/atomic_wari.py and
 * atomic_wari_board.py, whose docstrings state and argue every rule. */
#include <stdlib.h>
#include <string.h>

#include "rows_internal.h"

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

int wari_options(const pot_t *s, size_t n, int dir, int bounded, Rows *out) {
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

int64_t reach_right(const pot_t *s, size_t n) {
    int64_t q = -1, suffix = 0;
    for (size_t k = n; k-- > 0;) {
        suffix += s[k];
        if (suffix && (int64_t)k + suffix - 1 > q) q = (int64_t)k + suffix - 1;
    }
    return q;
}

int64_t reach_left(const pot_t *s, size_t n) {
    int64_t p = (int64_t)n, prefix = 0;
    for (size_t j = 0; j < n; j++) {
        prefix += s[j];
        if (prefix && (int64_t)j - prefix + 1 < p) p = (int64_t)j - prefix + 1;
    }
    return p;
}

/* trim_margins (B1): the bounds [*lo, *hi) of the pots any sowing can ever reach. */
void trim_bounds(const pot_t *s, size_t n, size_t *lo, size_t *hi) {
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

int wari_components(const pot_t *s, size_t n, Rows *out, Scratch *sc) {
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

int board_components(const pot_t *s, size_t n, Rows *out, Scratch *sc) {
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
