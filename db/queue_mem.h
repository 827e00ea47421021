/* The memory of the writer's queue (db/writer.c): anonymous mappings whose
 * pages the writer hands back to the kernel once the records on them are
 * stored, so that a queue sized for a long burst costs nothing between
 * bursts. */
#ifndef TPMTRACE_DB_QUEUE_MEM_H
#define TPMTRACE_DB_QUEUE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* len bytes of zeroed memory, reserved without swap (MAP_NORESERVE) and never
 * backed by transparent huge pages: with the kernel's THP "always" (Debian's
 * kernels) a 2 MiB page backed the queue, a page handed back split it, and
 * khugepaged collapsed the rest into huge pages again; 5.6 MB of a recorder's
 * queue stayed resident in a Debian guest after 30,000 commands, all stored.
 * NULL when out of memory. */
void *db_queue_map(size_t len);

/* Bytes of [base, base + len) the kernel holds now (mincore(2); 0 when that
 * fails). */
uint64_t db_queue_resident(void *base, size_t len);

#endif
