/* Statistics per origin (model/origin_stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/stats.h"
#include "model/origin_stats.h"
#include "model/trace_stream.h"

int model_origin_stats_load(sqlite3 *db, int64_t id, struct origin_stats out[POL_ORIGIN__COUNT],
			    char *err, size_t errlen)
{
	struct origin_stats org[POL_ORIGIN__COUNT];
	uint8_t *o = NULL;
	sqlite3_stmt *st = NULL;
	int rc = trace_origins_load(db, id, &o);
	memset(org, 0, sizeof org);
	if (rc || sqlite3_prepare_v2(db,
				     "SELECT client_id, count(*), coalesce(sum(latency_ns),0),"
				     " coalesce(max(latency_ns),0), count(latency_ns) FROM command"
				     " WHERE trace_id=? AND " DB_CLIENT_CMDS " GROUP BY client_id",
				     -1, &st, NULL)) {
		free(o);
		snprintf(err, errlen, "%s", rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
		return rc < 0 ? rc : -EIO;
	}
	sqlite3_bind_int64(st, 1, id);
	int src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t cl = sqlite3_column_int64(st, 0);
		int k = POL_ORIGIN_UNKNOWN, hw = 0;
		if (sqlite3_column_type(st, 0) != SQLITE_NULL && cl >= 0 &&
		    cl < TRACE_MAX_CLIENTS) {
			k = o[cl] & ~TRACE_ORIGIN_HWRNG;
			hw = !!(o[cl] & TRACE_ORIGIN_HWRNG);
		}
		org[k].n += sqlite3_column_int64(st, 1);
		org[k].total += sqlite3_column_double(st, 2);
		if (sqlite3_column_double(st, 3) > org[k].max)
			org[k].max = sqlite3_column_double(st, 3);
		org[k].n_lat += sqlite3_column_int64(st, 4);
		if (hw)
			org[k].hwrng += sqlite3_column_int64(st, 1);
	}
	if (src != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		free(o);
		return -EIO;
	}
	sqlite3_finalize(st);
	free(o);
	/* In boot order: firmware, kernel, user space, then what is not known. */
	static const int order[] = {POL_ORIGIN_FIRMWARE, POL_ORIGIN_KERNEL, POL_ORIGIN_USER,
				    POL_ORIGIN_UNKNOWN};
	int n = 0;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		int k = order[i];
		if (!org[k].n)
			continue;
		out[n] = org[k];
		out[n].origin = k;
		out[n].mean = org[k].n_lat ? org[k].total / (double)org[k].n_lat : 0;
		n++;
	}
	return n;
}
