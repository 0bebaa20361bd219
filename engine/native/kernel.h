/* kernel.h — what the rest of the compiled core uses of the compiled game kernel (kernel.c):
 * values by game id, with no Python call. Each returns 0, or -1 with a Python error set. */
#ifndef RUMA_KERNEL_H
#define RUMA_KERNEL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

/* The id of -G_a. */
int kernel_neg(int32_t a, int32_t *out);
/* The id of G_a + G_b. */
int kernel_add(int32_t a, int32_t b, int32_t *out);
/* The canonical id of {lefts | rights}; sorts and dedupes both arrays in place. */
int kernel_canon(int32_t *lefts, size_t nl, int32_t *rights, size_t nr, int32_t *out);
/* The id of *k. */
int kernel_nimber(int64_t k, int32_t *out);
/* The number of games (ids are 0 .. count - 1). */
int32_t kernel_count(void);
/* The one Python object of game id (a new reference; made by game.py's factory once), or NULL. */
PyObject *kernel_handle(int32_t id);
/* The module ``_core.kernel`` (module.c adds it), with ZERO made: NULL with an error set. */
PyObject *kernel_module_create(void);

#endif
