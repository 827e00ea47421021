/* A profile entry's latency distribution (model/profile_dist.h). */
#include "model/profile_dist.h"

#include <math.h>
#include <string.h>

void profile_dist_of(const struct prof_entry *e, double fallback, struct prof_dist *d)
{
	memset(d, 0, sizeof *d);
	d->scale = 1;
	if (!e) {
		d->n = 1;
		d->x[0] = d->mean = fallback;
		return;
	}
	const double u[6] = {0, 0.5, 0.9, 0.95, 0.99, 1};
	const double x[6] = {e->min_ms, e->p50_ms, e->p90_ms, e->p95_ms, e->p99_ms, e->max_ms};
	for (unsigned i = 0; i < 6; i++)
		if (!isnan(x[i]) && (!d->n || x[i] >= d->x[d->n - 1])) {
			d->u[d->n] = u[i];
			d->x[d->n++] = x[i];
		}
	/* the joined quantiles, when there is one between min and max (min and
	 * max alone say nothing of the shape: a skewed kind is not uniform) */
	if (d->n >= 3 && d->u[0] == 0 && d->u[d->n - 1] == 1) {
		/* The joined points' mean and second moment, exactly. */
		double m = 0, m2 = 0;
		for (unsigned i = 1; i < d->n; i++) {
			double w = d->u[i] - d->u[i - 1], a = d->x[i - 1], b = d->x[i];
			m += w * (a + b) / 2;
			m2 += w * (a * a + a * b + b * b) / 3;
		}
		d->scale = m > 0 ? e->mean_ms / m : 1;
		d->mean = e->mean_ms;
		d->sd = sqrt(fmax(0, m2 - m * m)) * d->scale;
		return;
	}
	if (!isnan(e->stdev_ms) && e->stdev_ms > 0 && e->mean_ms > 0) {
		/* Log-normal with mean m and standard deviation s: sigma^2 =
		 * ln(1 + s^2/m^2), mu = ln m - sigma^2/2. */
		double cv = e->stdev_ms / e->mean_ms, s2 = log1p(cv * cv);
		d->n = 0;
		d->mean = e->mean_ms;
		d->sd = e->stdev_ms;
		d->sigma = sqrt(s2);
		d->mu = log(e->mean_ms) - s2 / 2;
		return;
	}
	d->n = 1;
	d->x[0] = d->mean = e->mean_ms;
}

double profile_dist_draw(const struct prof_dist *d, double u, double z)
{
	if (d->n == 1)
		return d->x[0];
	if (d->n == 0)
		return exp(d->mu + d->sigma * z);
	unsigned i = 1;
	while (i < d->n - 1 && u > d->u[i])
		i++;
	double w = d->u[i] - d->u[i - 1];
	double t = w > 0 ? (u - d->u[i - 1]) / w : 0;
	return (d->x[i - 1] + t * (d->x[i] - d->x[i - 1])) * d->scale;
}

double profile_dist_exceed(const struct prof_dist *d, double t)
{
	if (d->n == 1)
		return d->x[0] > t;
	if (d->n == 0)
		return t <= 0 ? 1 : 0.5 * erfc((log(t) - d->mu) / (d->sigma * M_SQRT2));
	for (unsigned i = 1; i < d->n; i++) {
		double a = d->x[i - 1] * d->scale, b = d->x[i] * d->scale;
		if (t < b)
			return 1 - (d->u[i - 1] +
				    (t <= a ? 0 : (t - a) / (b - a)) * (d->u[i] - d->u[i - 1]));
	}
	return 0;
}
