/* parse.h — the paper's position notation, compiled (see parse.c). */
#ifndef RUMA_PARSE_H
#define RUMA_PARSE_H

#include <Python.h>

#include "rows.h"

/* Parse text (a str) into out->v[0 .. *n). Returns 0 on success, 1 when the pure-Python parser
 * must decide (an error to report, or input outside the compiled happy path), -1 out of memory. */
int parse_pots(PyObject *text, int allow_full, Buf *out, size_t *n);

#endif
