/* memo.h — CompactMemo (memo.c), as the search (search.c) reads and writes it. */
#ifndef RUMA_MEMO_H
#define RUMA_MEMO_H

#include "core.h"
#include "table.h"

/* The keys of one ruleset (prefix code, version): body -> nim value (kind MEMO_NIM: packed keys
 * with value bytes) or Game id (MEMO_GAME: packed keys in wide blocks, table.h). Negative values in `table` are markers a
 * search left (see search.h): such a key is absent. */
enum {
    MEMO_NONE = 0,
    MEMO_NIM = 1,
    MEMO_GAME = 2
};
typedef struct {
    uint8_t code, version;
    int kind;
    int adopted; /* a search uses `table` as its own (compact_adopt) */
    Table table;
} MemoPart;

typedef struct {
    PyObject_HEAD
    MemoPart **parts; /* each allocated once: a search may hold on to its table */
    size_t nparts;
    Table odd;           /* keys shorter than a prefix: whole key -> n >= 0 (nim value) or -(Game id + 1) */
    PyObject *game_type; /* ruma.engine.cgt.Game */
} CompactMemoObject;

extern PyTypeObject CompactMemo_Type;

/* Values pass in and out encoded: a nim value n >= 0 as n, a Game as -(id + 1). */
/* 1 and the stored (encoded) value when key is present, else 0. */
int compact_find(CompactMemoObject *m, const uint8_t *key, size_t len, int32_t *value);
/* Store an encoded value unless the key is present (the first value is kept); -1 with an error
 * (no memory; TypeError when the ruleset's keys hold values of the other kind). */
int compact_add(CompactMemoObject *m, const uint8_t *key, size_t len, int32_t value);
/* The keys holding a value. */
size_t compact_count(const CompactMemoObject *m);
/* The table of a ruleset's values (kind: MEMO_NIM for an impartial search, MEMO_GAME for a
 * partizan one) for a search to use as its own, when the memo holds no key of that ruleset yet and
 * no other search uses it; else NULL. compact_release gives it back (the search's markers left in
 * it count as absent keys). */
Table *compact_adopt(CompactMemoObject *m, int code, int version, int kind);
void compact_release(CompactMemoObject *m, Table *t);

/* A Game's `id` attribute (a new reference), NULL on error; the name is interned once. */
PyObject *game_id(PyObject *game);

#endif
