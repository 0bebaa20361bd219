/* store/records.h — what store/native.c (the records of a bulk write) shares with store/lmdb.c (the
 * writer process's transactions): CRC32C, varints, the byte order of keys. (The batch frames they
 * read are the engine's: engine/native/frame.h.) */
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

/* Whether a comes strictly before b in byte order. */
STORE_INTERNAL int bytes_less(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

#ifdef Py_PYTHON_H
/* Both arguments are lists of bytes of one length (the caller's batch); else TypeError and -1. */
STORE_INTERNAL int check_lists(PyObject *a, PyObject *b);
#endif

#endif
