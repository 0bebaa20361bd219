/* hugemem.h — large arrays read at random, on huge pages where the kernel gives them on advice.
 *
 * A probe of a big hash table is a random access into the whole array; with 4 KiB pages nearly
 * every one also misses the TLB, and the page walk costs as much as the cache miss itself. Linux's
 * transparent huge pages back a region with 2 MiB pages when asked (madvise, the setting most
 * systems ship): an array of at least a huge page is aligned to one and advised. The advice is
 * only advice: elsewhere, or where the kernel declines, the arrays are ordinary memory.
 */
#ifndef RUMA_HUGEMEM_H
#define RUMA_HUGEMEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* Advise the whole huge pages inside [p, p + bytes) (a block realloc may have moved). */
static inline void huge_advise(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* bytes of zeroed memory (free() releases it), 64-byte aligned; from a huge page on, aligned to
 * huge pages and advised. NULL when out of memory. */
static inline void *huge_zalloc(size_t bytes) {
    void *p = NULL;
    size_t align = bytes >= HUGE_PAGE_BYTES ? HUGE_PAGE_BYTES : 64;
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0) return NULL;
    if (align == HUGE_PAGE_BYTES) huge_advise(p, bytes);
    memset(p, 0, bytes);
    return p;
}

#endif
