/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counters' names (ORDK_STATS in ordk_verbs.h), and the names mlx5 and
 * rxe give the same events. Apart from verbs_stats.c so that a tool that
 * only names counters (ordk-stat) links this and nothing else.
 */
#include <stddef.h>
#include <stdint.h>

#include "ordk_verbs.h"

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
