/* kernel.h — what the search (search.c) uses of the compiled kernel (kernel.c): values by Game id.
 * Each returns 0, or -1 with a Python error set; they call the Python kernel on a cache miss. */
#ifndef RUMA_KERNEL_H
#define RUMA_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* Whether kernel_bind has given the compiled kernel the Python kernel's tables. */
int kernel_bound(void);
/* The id of -G_a (kernel._NEG, else kernel._neg). */
int kernel_neg(int32_t a, int32_t *out);
/* The id of G_a + G_b (cached in C; kernel._add on a miss). */
int kernel_add(int32_t a, int32_t b, int32_t *out);
/* The canonical id of {lefts | rights} (cached in C by sorted option lists; kernel._canon on a
 * miss). Sorts and dedupes both arrays in place. */
int kernel_canon(int32_t *lefts, size_t nl, int32_t *rights, size_t nr, int32_t *out);

#endif
