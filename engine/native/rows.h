/* rows.h — the row-of-pots rulesets in C: moves, normalisation, decomposition, keys
 * (rows.c, sowing.c, wari.c).
 *
 * Each function here is a line-by-line transcription of the pure-Python reference in
 * ruma/engine/rulesets/{sowing,atomic_wari,atomic_wari_board}.py (the docstrings there state and
 * argue every rule); tests/engine/test_native_differential.py checks that both give identical results.
 * Nothing here touches Python objects, so the search (search.c) can call it without the GIL
 * overhead of building tuples.
 */
#ifndef RUMA_ROWS_H
#define RUMA_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* A pot count. 64 bits: a full Sowing pot is FULL = 10^9 and seeds sown onto it make it
 * FULL + k (the reference keeps those counts until normalisation marks the pot FULL again). */
typedef int64_t pot_t;

#define RUMA_FULL 1000000000LL

/* The largest count the compiled engine accepts from Python; anything else (negative, larger,
 * not an int) is handed to the pure-Python reference, so odd inputs behave exactly as there. */
#define RUMA_MAX_COUNT (RUMA_FULL * 1000LL)

enum family {
    FAM_SOWING = 0,
    FAM_WARI = 1,
    FAM_BOARD = 2
};

/* A list of rows stored back to back: row k is data[start[k] .. start[k+1]), flag[k] its
 * mirrored flag (components) — one allocation per buffer however many rows, reused across calls. */
typedef struct {
    pot_t *data;
    size_t len, cap;
    size_t *start; /* count + 1 entries */
    uint8_t *flag;
    size_t count, rows_cap;
} Rows;

/* A growable scratch vector of pots. */
typedef struct {
    pot_t *v;
    size_t cap;
} Buf;

/* A sound Atomic Wari cut (reference: atomic_wari.cuts): pots <= a and >= b are independent; the
 * left part never touches a pot after q, the right part none before p. */
typedef struct {
    size_t a, b;
    int64_t q, p;
} Cut;

/* Scratch space for one caller (each search owns one; the Python-facing functions make their own),
 * so concurrent threads never share buffers. */
typedef struct {
    Buf a, b, c, d;
    Cut *cuts;
    size_t cuts_cap;
    Rows work;
} Scratch;

void rows_init(Rows *r);
void rows_free(Rows *r);
void rows_clear(Rows *r);
/* Append a row (copied); returns 0, or -1 when out of memory. */
int rows_push(Rows *r, const pot_t *row, size_t n, int flag);
static inline const pot_t *rows_row(const Rows *r, size_t k, size_t *n) {
    *n = r->start[k + 1] - r->start[k];
    return r->data + r->start[k];
}

void scratch_init(Scratch *s);
void scratch_free(Scratch *s);
/* Make buf hold at least n pots; returns the storage or NULL when out of memory. */
pot_t *buf_reserve(Buf *b, size_t n);

/* Options: dir = +1 for Left (rightward sowing), -1 for Right (leftward). Appends to out.
 * Returns 0, or -1 when out of memory. */
int family_options(int family, const pot_t *s, size_t n, int dir, Rows *out);

/* normalise: the canonical row (appended to out with its mirrored flag). */
int family_normalise(int family, const pot_t *s, size_t n, Rows *out, Scratch *sc);
/* components: the independent components, not mirrored (flags 0), appended to out. */
int family_components(int family, const pot_t *s, size_t n, Rows *out, Scratch *sc);
/* decompose: components each in its canonical orientation, with mirrored flags. */
int family_decompose(int family, const pot_t *s, size_t n, Rows *out, Scratch *sc);

/* The key body (the memo key without its two-byte ruleset prefix): 0x00 + one byte a pot, or
 * 0x01 + comma-separated decimal text (Sowing: 255 / "F" for a full pot). Writes into *out
 * (grown with realloc as needed, *cap its capacity); returns the length or -1 (out of memory). */
long family_key_body(int family, const pot_t *s, size_t n, uint8_t **out, size_t *cap);

/* The key body's packed form (table.h, table_pack) straight from the pots: 1 and *key when the
 * body is packable, else 0 (then family_key_body makes the body for the general part). */
static inline int family_packed_key(int family, const pot_t *s, size_t n, uint64_t *key) {
    if (n == 0 || n > 16 || s[0] == 0) return 0;
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) {
        pot_t v = s[i];
        /* the body's byte is v, or 255 for a full Sowing pot (a Wari pot of 255 seeds too) */
        if (v < 15) k = k << 4 | (uint64_t)v;
        else if (family == FAM_SOWING ? v >= RUMA_FULL : v == 255) k = k << 4 | 15u;
        else return 0;
    }
    *key = k;
    return 1;
}

/* Theorem 3.1 applies (Atomic Wari sparse rows; board: also wide margins): returns 1 and the run
 * lengths of deuces in *runs (count in *nruns; caller provides room for n/2 + 1), else 0. */
int family_sparse_runs(int family, const pot_t *s, size_t n, size_t *runs, size_t *nruns);

/* (pots, seeds) as Ruleset.size reports them. */
void family_size(int family, const pot_t *s, size_t n, int64_t *pots, int64_t *seeds);

#endif
