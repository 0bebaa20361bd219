/* shared.h — SharedValues (shared.c): nim values in memory that the processes of a sweep share. */
#ifndef RUMA_SHARED_H
#define RUMA_SHARED_H

#include "core.h"

typedef struct SvHeader SvHeader;

typedef struct {
    PyObject_HEAD
    Py_buffer view; /* the shared memory (held until the object goes) */
    SvHeader *head;
    uint64_t *slots;
    uint32_t *arena;
    uint64_t mask;
    int code, version;
} SharedValuesObject;

extern PyTypeObject SharedValues_Type;

/* 1 and *value when the key body is present and published, else 0 (never an error). */
int shared_find(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t *value);
/* Publish a nim value: 1 added, 0 the key was there (the first value is kept), -1 no room (the
 * table is full; nothing is set in Python: the caller keeps the value some other way). */
int shared_add(SharedValuesObject *t, const uint8_t *body, size_t len, uint32_t hash, int32_t value);

#endif
