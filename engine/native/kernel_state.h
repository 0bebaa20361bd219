/* kernel_state.h — what order.c (the game order, canonicalisation) and kernel.c (binding, the
 * search's caches, the Python functions) share: the mirror of the Python kernel's tables. */
#ifndef RUMA_KERNEL_STATE_H
#define RUMA_KERNEL_STATE_H

#include "core.h"
#include "table.h"

typedef struct {
    int32_t *opts; /* Left option ids, then Right's */
    uint32_t nl, nr;
    double ls, rs;
    int64_t nus_n, nus_k;
    uint8_t loaded, stops_ok, nus;
} Info;

typedef struct {
    /* the kernel's tables ... */
    PyObject *lo, *ro, *ls, *rs, *nusv, *nim, *num, *negs;
    /* ... and functions */
    PyObject *fast, *finish, *canon, *add, *neg;
    Info *info;
    size_t ninfo;
    uint64_t *cache; /* le results: slot = (a << 32 | b) + 1, top bit = the answer; 0 = empty */
    size_t cache_mask, cache_count;
    Table raw;       /* sorted option id lists -> canonical id (kernel._RAW, for the search) */
    uint64_t *sums;  /* (a << 32 | b) + 1 -> id of a + b, in pairs of slots (key, value) */
    size_t sums_mask, sums_count;
    int raw_ready;
} KernelState;

extern KernelState K;


#define CACHE_LIMIT (1u << 23) /* entries before the comparison cache is dropped (64 MiB of slots) */
#define RAW_LIMIT (1u << 21)   /* entries before the option-list cache is dropped */
#define SUMS_LIMIT (1u << 21)  /* entries before the sum cache is dropped */

/* order.c */
PyObject *array_set(const int32_t *v, size_t n); /* a Python set of ids */
PyObject *kernel_canonicalise(PyObject *self, PyObject *args);
PyObject *kernel_le(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
