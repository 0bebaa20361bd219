/* dyadic.h — exact dyadic rationals for the compiled game kernel (dyadic.c).
 *
 * A Num is a dyadic rational x. Nearly every number a game holds is *small*: x * 2^32 is an int64
 * (integer part below 2^31 in magnitude, denominator at most 2^32), kept as that fixed-point
 * integer q, so sums are integer sums and comparisons integer comparisons.
 *
 * The fallback for every other dyadic (a denominator beyond 2^32, as number(Fraction(1, 2**40))
 * or 1/2^40 + 1/2^41 builds): a *wide* value, interned once in a table of (numerator, exponent)
 * pairs of Python ints (x = numerator / 2^exponent, the numerator odd unless the exponent is 0)
 * and computed with CPython's C-level int arithmetic. No Python code runs in that arithmetic (ints
 * are not tracked by the cyclic collector, and their operations never release the GIL), so the
 * kernel stays atomic for other threads. Every result that fits is made small again, so one
 * number has one representation and equality is equality of representations. Wide values are
 * never freed (like the games that hold them; they are rare).
 *
 * Integers beyond 2^31 in magnitude are wide too; the kernel could only hold such a number after
 * building its 2^31 predecessors, so in practice only denominators make numbers wide.
 */
#ifndef RUMA_DYADIC_H
#define RUMA_DYADIC_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define NUM_FRAC_BITS 32
#define NUM_ONE ((int64_t)1 << NUM_FRAC_BITS)

typedef struct {
    int64_t q; /* small: x * 2^32; wide: the index of the value in the wide table */
    int32_t w; /* 1 when wide, 0 when small */
} Num;

static inline Num num_small(int64_t q) {
    Num x = {q, 0};
    return x;
}
/* A small integer (|i| < 2^31). */
static inline Num num_int(int64_t i) { return num_small(i * NUM_ONE); }
static inline int num_eq(Num a, Num b) { return a.q == b.q && a.w == b.w; }
static inline int num_is_zero(Num a) { return !a.w && a.q == 0; }
static inline int num_is_integer_small(Num a) { return !a.w && (a.q & (NUM_ONE - 1)) == 0; }

/* Each returns 0, or -1 with a Python error set (only wide arithmetic can fail: memory). */
int num_cmp(Num a, Num b, int *out); /* -1, 0, 1 */
int num_add(Num a, Num b, Num *out);
int num_neg(Num a, Num *out);
int num_is_integer(Num a);
int num_floor(Num a, Num *out);
/* 1 / 2^j where 2^j is x's denominator (x not an integer). */
int num_step(Num a, Num *out);
/* The simplest dyadic strictly between lo and hi (NULL: unbounded; lo < hi when both given):
 * nus.simplest_between. */
int num_simplest_between(const Num *lo, const Num *hi, Num *out);
/* Python: an int when x is an integer, else a fractions.Fraction (runs Python code: only at the
 * kernel's boundary, never inside an operation on games). */
PyObject *num_to_py(Num a);
/* From a Python int or a number with numerator/denominator (a Fraction; a power-of-two
 * denominator, else ValueError). Reads attributes: only at the kernel's boundary. */
int num_from_py(PyObject *x, Num *out);
/* A hash of the value (equal numbers, equal hashes). */
uint64_t num_hash(Num a);
/* Number of wide values interned (kernel_info). */
size_t num_wide_count(void);

#endif
