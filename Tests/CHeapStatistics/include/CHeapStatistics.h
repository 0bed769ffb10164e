// Heap figures for leak tests (glibc's mallinfo2, which the Swift Glibc module does not import; Darwin's
// malloc_zone_statistics).
#ifndef C_HEAP_STATISTICS_H
#define C_HEAP_STATISTICS_H
#include <stddef.h>

/// Bytes of the heap in use by small and medium allocations, over all arenas (mallinfo2's uordblks; large
/// blocks mapped on their own are not counted); on Darwin, malloc_zone_statistics' size_in_use over all zones.
/// 0 where neither exists.
size_t shades_heap_bytes_in_use(void);

#endif
