/* memo.h — CompactMemo (memo.c), as the search (search.c) reads and writes it. */
#ifndef RUMA_MEMO_H
#define RUMA_MEMO_H

#include "core.h"
#include "table.h"

typedef struct {
    PyObject_HEAD
    Table table;         /* whole key (prefix included) -> n >= 0 (nim value) or -(Game id + 1) */
    PyObject *game_type; /* ruma.engine.cgt.Game */
} CompactMemoObject;

extern PyTypeObject CompactMemo_Type;

/* 1 and the stored (encoded) value when key is present, else 0. */
int compact_find(CompactMemoObject *m, const uint8_t *key, size_t len, int32_t *value);
/* Store an encoded value unless the key is present (the first value is kept); -1 out of memory. */
int compact_add(CompactMemoObject *m, const uint8_t *key, size_t len, int32_t value);

/* A Game's `id` attribute (a new reference), NULL on error; the name is interned once. */
PyObject *game_id(PyObject *game);

#endif
