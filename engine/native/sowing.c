/* sowing.c — Conway's Sowing and its impartial version: moves, rules N1-N3 (simplify) and D1-D2
 * (split), transcribed from ruma/engine/rulesets/sowing.py, whose docstring states and argues
 * every rule. The reference's recursive split becomes an explicit stack here. */
#include <stdlib.h>
#include <string.h>

#include "rows_internal.h"

/* sow_right (dir +1) and sow_left (dir -1). */
int sowing_options(const pot_t *s, size_t n, int dir, Rows *out) {
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
long sowing_simplify(const pot_t *s, size_t n, Buf *out) {
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

int sowing_decompose_common(const pot_t *s, size_t n, Rows *out) {
    size_t lo, hi;
    strip_bounds(s, n, &lo, &hi);
    if (lo == hi) return 1; /* no seeds: no component */
    const pot_t *t = s + lo;
    size_t m = hi - lo;
    pot_t mx = 0;
    int64_t zeros = 0, sum = 0;
    for (size_t i = 0; i < m; i++) {
        pot_t v = t[i];
        if (v > mx) mx = v;
        zeros += v == 0;
        sum += v;
    }
    if (mx > (pot_t)((m - 1) >> 1)) /* simplify (N1): a pot above both its distances to the ends is full */
        for (size_t i = 0; i < m; i++)
            if (t[i] > (pot_t)i && t[i] > (pot_t)(m - 1 - i)) return 0;
    /* no pot is full, so the span is its own simplification; _split's test and scan (D1-D2): a
     * cut needs an empty run at least as long as the seeds on either side of it */
    if (!(2 * zeros < sum)) {
        int64_t left = 0;
        for (size_t i = 0; i < m;) {
            if (t[i]) {
                left += t[i++];
                continue;
            }
            size_t j = i;
            while (j < m && t[j] == 0) j++;
            int64_t width = (int64_t)(j - i);
            if (0 < left && left <= width && sum - left <= width && j < m) return 0;
            i = j;
        }
    }
    return push_oriented(out, t, m) < 0 ? -1 : 1;
}

int sowing_components(const pot_t *s, size_t n, Rows *out, Scratch *sc) {
    long m = sowing_simplify(s, n, &sc->d);
    if (m < 0) return -1;
    if (m == 0) return 0;
    if (!sowing_may_split(sc->d.v, (size_t)m)) return rows_push(out, sc->d.v, (size_t)m, 0);
    return sowing_split(sc->d.v, (size_t)m, out, sc);
}
