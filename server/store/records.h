/* store/records.h — what store/native.c (the records of a bulk write) shares with store/lmdb.c (the
 * writer process's transactions): CRC32C, varints and the order of by_value records. */
#ifndef RUMA_STORE_RECORDS_H
#define RUMA_STORE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define STORE_INTERNAL __attribute__((visibility("hidden")))

/* The CRC32C of two pieces one after the other (a record's key, then its payload). */
STORE_INTERNAL uint32_t crc32c_two(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);
STORE_INTERNAL void put_le32(uint8_t *out, uint32_t v);
/* n as an unsigned LEB128 varint at out (at most 10 bytes); returns its length. */
STORE_INTERNAL size_t put_varint(uint8_t *out, uint64_t n);

/* The by_value key of a tag-0 key (one byte a pot: seeds = the sum of its pots) with its encoded
 * value, written at out (2 + nv + 6 + nk bytes); returns its length. */
STORE_INTERNAL size_t index_key_of(uint8_t *out, const uint8_t *key, size_t nk, const uint8_t *value, size_t nv);
/* A frame's (store.writer.pack) count of keys, or SIZE_MAX when it is too short to hold them. */
STORE_INTERNAL size_t frame_count(const uint8_t *frame, size_t size);
/* The i-th value code of a frame whose codes start at codes. */
STORE_INTERNAL uint64_t frame_code(const uint8_t *codes, size_t i);

/* A by_value index key inside a buffer, with what sorting it needs. */
typedef struct {
    uint64_t head;      /* the key's first 8 bytes, big-endian, zero-padded (most comparisons end here) */
    uint64_t tail;      /* its next 8 bytes, likewise */
    const uint8_t *at;
    size_t len;
    size_t seq;         /* its position in the batch */
    int short_group;    /* its group — prefix, value, seeds, key length — lies within head and tail */
    unsigned group_len; /* the group's length in bytes */
} Span;

/* Whether a comes strictly before b in byte order. */
STORE_INTERNAL int bytes_less(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);
/* Sort spans into their keys' byte order; sorted: whether the batch's position keys came in
 * strictly increasing order (then cheaper comparisons, or none, give that order). */
STORE_INTERNAL void sort_spans(Span *spans, size_t n, int sorted);
/* The Span of the index key e (len bytes; its group's length group_len), seq-th of its batch. */
STORE_INTERNAL Span span_of(const uint8_t *e, size_t len, size_t seq, unsigned group_len);

#ifdef Py_PYTHON_H
/* Both arguments are lists of bytes of one length (the caller's batch); else TypeError and -1. */
STORE_INTERNAL int check_lists(PyObject *a, PyObject *b);
#endif

#endif
