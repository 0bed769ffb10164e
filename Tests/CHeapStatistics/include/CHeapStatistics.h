// Heap figures for leak tests (glibc's mallinfo2, which the Swift Glibc module does not import).
#ifndef C_HEAP_STATISTICS_H
#define C_HEAP_STATISTICS_H
#include <stddef.h>

/// Bytes of the heap in use by small and medium allocations, over all arenas (mallinfo2's uordblks; large
/// blocks mapped on their own are not counted). 0 where mallinfo2 is missing.
size_t shades_heap_bytes_in_use(void);

#endif
