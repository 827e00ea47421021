/* The writer queue's memory (db/queue_mem.h). */
#include "db/queue_mem.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void *db_queue_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* Where THP is built out, there is nothing to turn off (EINVAL). */
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

uint64_t db_queue_resident(void *base, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (len + page - 1) / page;
	unsigned char *vec = malloc(pages ? pages : 1);
	uint64_t n = 0;
	if (vec && mincore(base, len, vec) == 0)
		for (size_t i = 0; i < pages; i++)
			n += vec[i] & 1;
	free(vec);
	return n * page;
}
