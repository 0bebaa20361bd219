/* rows_internal.h — what rows.c (buffers, dispatch, keys), sowing.c and wari.c share. */
#ifndef RUMA_ROWS_INTERNAL_H
#define RUMA_ROWS_INTERNAL_H

#include "rows.h"

/* rows.c */
pot_t *rows_begin(Rows *r, size_t n); /* room for a new row of n pots (then rows_commit) */
void rows_commit(Rows *r, size_t n, int flag);
int push_oriented(Rows *out, const pot_t *row, size_t n); /* the smaller of row and its mirror */
void strip_bounds(const pot_t *s, size_t n, size_t *lo, size_t *hi); /* the nonempty span */

/* sowing.c (reference: ruma/engine/rulesets/sowing.py) */
int sowing_options(const pot_t *s, size_t n, int dir, Rows *out);
long sowing_simplify(const pot_t *s, size_t n, Buf *out);
int sowing_components(const pot_t *s, size_t n, Rows *out, Scratch *sc);
/* decompose for the common row: no pot of its stripped span is full (N1), so the span is already
 * simplified, and the span has no cut (D1-D2): that span in its canonical orientation. 1 when it
 * took the row (none for an empty row), 0 when the row needs sowing_components, -1 out of memory. */
int sowing_decompose_common(const pot_t *s, size_t n, Rows *out);

/* wari.c (reference: atomic_wari.py, atomic_wari_board.py) */
int wari_options(const pot_t *s, size_t n, int dir, int bounded, Rows *out);
int64_t reach_right(const pot_t *s, size_t n);
int64_t reach_left(const pot_t *s, size_t n);
void trim_bounds(const pot_t *s, size_t n, size_t *lo, size_t *hi);
int wari_components(const pot_t *s, size_t n, Rows *out, Scratch *sc);
int board_components(const pot_t *s, size_t n, Rows *out, Scratch *sc);

#endif
