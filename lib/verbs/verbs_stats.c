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
	const char *xnames[256];
	uint64_t values[256];
	int n;

	st->cnps_sent = st->ecn_marked = 0;
	if (vdev_const(odev)->ops->xstats == NULL)
		return;
	n = vdev_const(odev)->ops->xstats(odev, xnames, values, 256);
	for (int i = 0; i < n && i < 256; i++)
		if (strcmp(xnames[i], "cnp_sent") == 0)
			st->cnps_sent = values[i]; /* the CNPs the card sent (a model counts) */
		else if (strcmp(xnames[i], "rx_ecn_marked") == 0)
			st->ecn_marked = values[i];
}

int
ordk_dev_stats(const struct ordk_dev *odev, struct ordk_stats *st)
{
	const struct verbs_dev *dev = vdev_const(odev);
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
	*st = vqp_const(qp)->st;
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
