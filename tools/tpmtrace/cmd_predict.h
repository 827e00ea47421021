/* tpmtrace predict's command line, shared by its population mode
 * (predict_population.c). */
#ifndef TPMTRACE_CMD_PREDICT_H
#define TPMTRACE_CMD_PREDICT_H

#include <stdint.h>

#include "cli.h"
#include "model/predict.h"

struct pcfg {
	const char *dbpath, *trace, *profname, *synth, *vendor;
	const char *pol_args[PREDICT_MAX_POLICIES];
	unsigned npol_args;
	int json, measure_host, wide, verbose;
	double gap_ms; /* < 0: not given */
	unsigned boots;
	uint64_t seed;
	int population; /* --profile all or --vendor */
	double over_ms; /* --over, < 0: not given */
};

/* A time as predict prints it: "12.2 s", "8.579 s", "231.00 ms". */
void predict_fmt_time(char *b, size_t l, double ms);
/* "10s", "500ms", "1.5min", a bare number in ms: 0, or -1. */
int predict_parse_time(const char *s, double *ms);
struct json_w;
struct pred_population;
struct pred_pop_row;
/* One policy's population table as JSON: {"policy","profiles":[...],
 * "above_p50","above_p95"} (null without over_ms >= 0). report --json too. */
void predict_population_json(struct json_w *w, const struct pred_population *pp, const char *policy,
			     const struct pred_pop_row *rows, double over_ms);
/* predict on the population of shipped profiles: the exit status. */
int predict_population_run(const struct pcfg *c);

SUBCOMMAND(predict);

#endif
