// Counting of allocations, frees and mutex locks made by one thread (the real-time tests of the player's
// render path). glibc lets a program replace malloc and its family (the manual's "Replacing malloc"): the
// replacements here forward to glibc's own allocator (__libc_malloc …, exported for this purpose), so every
// pointer stays glibc's whoever frees it, and count the calls of a thread that has counting on. Not built
// under the address or thread sanitizers, which replace the allocator themselves, nor off glibc.
#include "CHeapStatistics.h"
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) \
    && !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer)
#define SHADES_COUNTING 1

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
// glibc's own mutex lock under its versioned name (pthread_mutex_lock is replaced below).
extern int shades_glibc_mutex_lock(pthread_mutex_t *mutex);
__asm__(".symver shades_glibc_mutex_lock,__pthread_mutex_lock@GLIBC_2.2.5");

#define THREAD_STATE static __thread __attribute__((tls_model("initial-exec")))
THREAD_STATE int counting;
THREAD_STATE long allocations, releases, locks;

void *malloc(size_t size) {
    if (counting) allocations++;
    return __libc_malloc(size);
}

void free(void *pointer) {
    if (counting && pointer) releases++;
    __libc_free(pointer);
}

void *calloc(size_t count, size_t size) {
    if (counting) allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (counting) allocations++;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    if (counting) allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (counting) allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    if (counting) allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) {
    if (counting) locks++;
    return shades_glibc_mutex_lock(mutex);
}
#endif

int shades_heap_counting_available(void) {
#ifdef SHADES_COUNTING
    return 1;
#else
    return 0;
#endif
}

void shades_heap_counting_start(void) {
#ifdef SHADES_COUNTING
    allocations = 0;
    releases = 0;
    locks = 0;
    counting = 1;
#endif
}

shades_heap_counts shades_heap_counting_stop(void) {
    shades_heap_counts counts = {0, 0, 0};
#ifdef SHADES_COUNTING
    counting = 0;
    counts.allocations = allocations;
    counts.releases = releases;
    counts.locks = locks;
#endif
    return counts;
}
