/* tpmtrace predict --profile all / --vendor V: the trace on every shipped
 * profile (model/predict_population.h), one table per policy: the TPM time's
 * p50 and p95 over sampled boots on each profile, sorted, and how many
 * profiles put it above --over (docs/profiles.md, "The population"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_predict.h"
#include "common.h"
#include "db/db.h"
#include "db/json.h"
#include "model/predict_population.h"
#include "replayer/hostcrypto.h"

int predict_population_run(const struct pcfg *c)
{
	struct policy pols[PREDICT_MAX_POLICIES];
	int show[PREDICT_MAX_POLICIES], rc = 1;
	unsigned npol, base;
	char err[1024], desc[512] = "";
	struct pred_population pp;
	struct pred_host host;
	sqlite3 *db = NULL;
	struct pred_pop_row *rows = NULL;
	memset(&pp, 0, sizeof pp);
	if (predict_policies(c->pol_args, c->npol_args, pols, show, &npol, &base, err, sizeof err))
		return cli_usage_error(&subcmd_predict, "%s", err);
	predict_host_estimate(&host);
	if (c->measure_host && rp_host_crypto_measure(&host))
		predict_host_estimate(&host);
	int r = predict_population_init(&pp, c->vendor, pols, npol, &host, err, sizeof err);
	if (r) {
		cli_error("predict", "%s", err);
		goto out;
	}
	if (c->synth) {
		r = predict_population_synthetic(&pp, c->synth, c->gap_ms, desc, sizeof desc, err,
						 sizeof err);
		if (r == -EINVAL) {
			rc = cli_usage_error(&subcmd_predict, "--synthetic: %s", err);
			goto out;
		}
	} else {
		uint64_t n = 0;
		if (db_open(c->dbpath, DB_READ, &db, err, sizeof err)) {
			cli_error("predict", "%s", err);
			goto out;
		}
		int64_t id = cli_pick_trace("predict", db, c->trace);
		if (!id)
			goto out;
		r = predict_population_trace(&pp, db, id, &n, err, sizeof err);
		snprintf(desc, sizeof desc, "%s trace %lld: %llu commands", c->dbpath,
			 (long long)id, (unsigned long long)n);
		if (!r && !n) {
			cli_error("predict", "%s: trace %lld is empty (no commands to expand)",
				  c->dbpath, (long long)id);
			goto out;
		}
	}
	if (r) {
		cli_error("predict", "%s", err);
		goto out;
	}
	if (!(rows = calloc(pp.n, sizeof *rows))) {
		cli_error("predict", "out of memory");
		goto out;
	}
	struct json_w w;
	if (c->json) {
		json_init_file(&w, stdout, JSON_COMPACT);
		json_begin_object(&w);
		json_kint(&w, "version", 1);
		json_kstr(&w, "trace", desc);
		json_kstr(&w, "vendor", c->vendor);
		json_kuint(&w, "profiles", pp.n);
		json_kuint(&w, "boots", c->boots);
		json_kuint(&w, "seed", c->seed);
		if (c->over_ms >= 0)
			json_kdouble(&w, "over_ms", c->over_ms, 3);
		else
			json_knull(&w, "over_ms");
		json_key(&w, "population");
		json_begin_array(&w);
	} else {
		char d[600];
		db_text_safe(desc, d, sizeof d);
		printf("population: %u shipped profiles%s%s (docs/profiles.md)\n", pp.n,
		       c->vendor ? " of vendor " : "", c->vendor ? c->vendor : "");
		db_text_wrap(stdout, "trace: ", 7, d, strlen(d), DB_TEXT_WIDTH);
	}
	for (unsigned k = 0; k < npol; k++) {
		if (!show[k])
			continue;
		if (predict_population_rows(&pp, k, c->boots, c->seed, rows)) {
			cli_error("predict", "out of memory");
			goto out;
		}
		if (c->json)
			predict_population_json(&w, &pp, pols[k].name, rows, c->over_ms);
		else
			predict_population_text(stdout, &pp, &pols[k], rows, c->boots, c->seed,
						c->over_ms);
	}
	if (c->json) {
		json_end_array(&w);
		json_end_object(&w);
		json_newline(&w);
	}
	rc = fflush(stdout) || ferror(stdout) ? cli_error("predict", "write error") : 0;
out:
	free(rows);
	predict_population_free(&pp);
	db_close(db);
	return rc;
}
