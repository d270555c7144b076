/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: one table (ORDK_STATS in ordk_verbs.h) gives the struct, the
 * names and the device totals. A driver counts an event once: on the QP it
 * concerns, or on the device when there is none. The device's total of a
 * counter is then its own count, plus every live QP's, plus those of the QPs
 * destroyed (added to the device's at destroy).
 */
#include <errno.h>
#include <string.h>

#include <rte_hash.h>

#include "verbs_internal.h"

static const char *const names[ORDK_STATS_COUNT] = {
#define NAME(n) #n,
	ORDK_STATS(NAME)
#undef NAME
};

const char *
ordk_stats_name(unsigned int i)
{
	return i < ORDK_STATS_COUNT ? names[i] : NULL;
}

/*
 * The counters other stacks name (operations.md's table): only where the
 * meaning is the same event seen at the same place, or the nearest one where
 * ORDK's transport has no such packet (RNR NAKs: ORDK's SENDs wait for RECV
 * adverts instead).
 */
static const struct {
	const char *mlx5, *rxe;
} aliases[ORDK_STATS_COUNT] = {
	[ORDK_STAT_duplicates] = { "duplicate_request", "duplicate_request" },
	[ORDK_STAT_naks_sent] = { "out_of_sequence", "out_of_seq_request" },
	[ORDK_STAT_naks_received] = { "packet_seq_err", "rcvd_seq_err" },
	[ORDK_STAT_timeouts] = { "local_ack_timeout_err", NULL },
	[ORDK_STAT_retry_exceeded] = { "req_transport_retries_exceeded", "retry_exceeded_err" },
	[ORDK_STAT_rnr_waits] = { "rnr_nak_retry_err", "rcvd_rnr_err" },
	[ORDK_STAT_read_resp_posted] = { "rx_read_requests", NULL },
	[ORDK_STAT_atomics_executed] = { "rx_atomic_requests", NULL },
	[ORDK_STAT_recv_len_errors] = { "resp_local_length_error", NULL },
	[ORDK_STAT_cnps] = { "rp_cnp_handled", NULL },
	[ORDK_STAT_cnps_sent] = { "np_cnp_sent", NULL },
	[ORDK_STAT_ecn_marked] = { "np_ecn_marked_roce_packets", NULL },
};

const char *
ordk_stats_mlx5_name(unsigned int i)
{
	return i < ORDK_STATS_COUNT ? aliases[i].mlx5 : NULL;
}

const char *
ordk_stats_rxe_name(unsigned int i)
{
	return i < ORDK_STATS_COUNT ? aliases[i].rxe : NULL;
}

uint64_t
ordk_stats_value(const struct ordk_stats *st, unsigned int i)
{
	switch (i) {
#define VALUE(n) case ORDK_STAT_##n: return st->n;
	ORDK_STATS(VALUE)
#undef VALUE
	default:
		return 0;
	}
}

void
verbs_stats_add(struct ordk_stats *to, const struct ordk_stats *from)
{
#define ADD(n) to->n += from->n;
	ORDK_STATS(ADD)
#undef ADD
}

/* What only the card counts, from the device's xstats (0 where it has none). */
static void
card_counts(const struct ordk_dev *odev, struct ordk_stats *st)
{
	struct ordk_dev *d = (struct ordk_dev *)(uintptr_t)odev;
	const char *xnames[256];
	uint64_t values[256];
	int n;

	st->cnps_sent = st->ecn_marked = 0;
	if (vdev(odev)->ops->xstats == NULL)
		return;
	n = vdev(odev)->ops->xstats(d, xnames, values, 256);
	for (int i = 0; i < n && i < 256; i++)
		if (strcmp(xnames[i], "cnp_sent") == 0)
			st->cnps_sent = values[i]; /* the CNPs the card sent (a model counts) */
		else if (strcmp(xnames[i], "rx_ecn_marked") == 0)
			st->ecn_marked = values[i];
}

int
ordk_dev_stats(const struct ordk_dev *odev, struct ordk_stats *st)
{
	const struct verbs_dev *dev = vdev(odev);
	const void *key;
	void *data;
	uint32_t it = 0;

	if (dev == NULL || st == NULL)
		return -EINVAL;
	*st = dev->st;
	while (rte_hash_iterate(dev->qp_table, &key, &data, &it) >= 0)
		verbs_stats_add(st, &vqp(data)->st);
	card_counts(odev, st);
	return 0;
}

int
ordk_qp_stats(const struct ordk_qp *qp, struct ordk_stats *st)
{
	if (!qp_live(qp) || st == NULL)
		return -EINVAL;
	*st = vqp(qp)->st;
	return 0;
}

int
ordk_dev_stats_reset(struct ordk_dev *odev)
{
	struct verbs_dev *dev = vdev(odev);
	const void *key;
	void *data;
	uint32_t it = 0;

	if (dev == NULL)
		return -EINVAL;
	memset(&dev->st, 0, sizeof(dev->st));
	while (rte_hash_iterate(dev->qp_table, &key, &data, &it) >= 0)
		memset(&vqp(data)->st, 0, sizeof(vqp(data)->st));
	if (dev->ops->xstats_reset != NULL)
		dev->ops->xstats_reset(odev);
	return 0;
}
