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

/* predict on the population of shipped profiles: the exit status. */
int predict_population_run(const struct pcfg *c);

SUBCOMMAND(predict);

#endif
