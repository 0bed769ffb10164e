// Heap figures for leak tests (glibc's mallinfo2, which the Swift Glibc module does not import; Darwin's
// malloc_zone_statistics), and counts of one thread's allocations and locks for the real-time tests.
#ifndef C_HEAP_STATISTICS_H
#define C_HEAP_STATISTICS_H
#include <stddef.h>

/// Bytes of the heap in use by small and medium allocations, over all arenas (mallinfo2's uordblks; large
/// blocks mapped on their own are not counted); on Darwin, malloc_zone_statistics' size_in_use over all zones.
/// 0 where neither exists.
size_t shades_heap_bytes_in_use(void);

/// Calls counted on one thread between start and stop (counting.c).
typedef struct {
    long allocations;   ///< malloc, calloc, realloc, memalign, aligned_alloc, posix_memalign
    long releases;      ///< free of a non-null pointer
    long locks;         ///< pthread_mutex_lock
} shades_heap_counts;

/// 1 where the counting replacements are built (glibc, no sanitizer), else 0 (the counts stay 0).
int shades_heap_counting_available(void);
/// Starts counting the calling thread's allocations, frees and mutex locks (from 0).
void shades_heap_counting_start(void);
/// Stops counting on the calling thread; what it counted.
shades_heap_counts shades_heap_counting_stop(void);

#endif
