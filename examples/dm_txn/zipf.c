/* SPDX-License-Identifier: BSD-3-Clause */
/* dm_txn's key choice (zipf.h). */
#include <math.h>

#include "zipf.h"

static double
zeta(uint64_t n, double theta)
{
	double s = 0;

	for (uint64_t i = 1; i <= n; i++)
		s += 1.0 / pow((double)i, theta);
	return s;
}

void
zipf_init(struct zipf *z, uint64_t n, double theta)
{
	double zeta2 = zeta(2, theta);

	z->n = n;
	z->theta = theta;
	z->zetan = zeta(n, theta);
	z->alpha = 1.0 / (1.0 - theta);
	z->eta = (1 - pow(2.0 / (double)n, 1 - theta)) / (1 - zeta2 / z->zetan);
}

/* Gray et al.'s Zipfian generator (YCSB's), rank 0 the hottest, scattered over the table. */
uint64_t
zipf_next(const struct zipf *z, uint64_t *s)
{
	double u = unif(s), uz = u * z->zetan;
	uint64_t r;

	if (z->hot_n) /* "1 of 40 warehouses gets 95% of accesses" */
		return unif(s) < z->hot_p ? rnd(s) % z->hot_n : z->hot_n + rnd(s) % (z->n - z->hot_n);
	if (z->theta == 0)
		return rnd(s) % z->n;
	if (uz < 1.0)
		r = 0;
	else if (uz < 1.0 + pow(0.5, z->theta))
		r = 1;
	else
		r = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1, z->alpha));
	if (r >= z->n)
		r = z->n - 1;
	return (r * 0x9E3779B97F4A7C15ull) % z->n; /* the hot keys are not neighbours */
}
