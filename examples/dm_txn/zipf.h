/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dm_txn's key choice: Gray et al.'s Zipfian generator (YCSB's), or a hot
 * set ("1 of 40 warehouses gets 95% of accesses"), over a xorshift stream.
 */
#ifndef DM_TXN_ZIPF_H
#define DM_TXN_ZIPF_H

#include <stdint.h>

struct zipf {
	uint64_t n;
	double theta, alpha, zetan, eta;
	uint64_t hot_n;	  /* hot-set regime: hot_n keys get hot_p of the accesses */
	double hot_p;
};

static inline uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline double
unif(uint64_t *s)
{
	return (double)(rnd(s) >> 11) / (double)(1ull << 53);
}

void zipf_init(struct zipf *z, uint64_t n, double theta);
/* A key in [0, n): rank 0 the hottest, scattered over the table. */
uint64_t zipf_next(const struct zipf *z, uint64_t *s);

#endif /* DM_TXN_ZIPF_H */
