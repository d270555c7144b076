/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK verbs: the transport's counters (ordk_verbs.h includes it), per device
 * and per QP (ordk_dev_stats(), ordk_qp_stats()), with the names operators
 * know from mlx5 and rxe (doc/guides/tools/operations.md).
 */
#ifndef ORDK_STATS_H
#define ORDK_STATS_H

#include <stdint.h>

#include "ordk_compat.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/**
 * Every transport counter, once (X-macro): it defines struct ordk_stats, the
 * counter indexes (enum ordk_stat), their names (ordk_stats_name()) and the
 * device totals. A QP counts what concerns it (ordk_qp_stats()); the device's
 * total of a counter (ordk_dev_stats()) is what concerned no QP plus every
 * QP's count, destroyed QPs included.
 */
#define ORDK_STATS(X)                                                                          \
	X(wr_posted) X(wr_completed) X(recv_completed) X(acks_sent) X(acks_received)           \
	X(duplicates)		/* packets, adverts, responses seen twice */                   \
	X(out_of_window)	/* PSNs beyond the receive tracker (implied later) */          \
	X(read_resp_posted)                                                                    \
	X(read_req_rejected)	/* refused with a READ_NAK */                                  \
	X(adverts_sent) X(adverts_received) X(adverts_unexpected)                              \
	X(reports_unexpected)	/* card reports for unknown QPs or of bad kinds */             \
	X(naks_received) X(naks_sent) X(cnps)                                                  \
	X(retransmits)		/* packets (and adverts) sent again */                         \
	X(timeouts) X(retry_exceeded)                                                          \
	X(atomics_executed) X(atomics_replayed) X(atomics_rejected)                            \
	X(rnr_waits)		/* SENDs that had to wait for the peer's RECV */               \
	X(ctrl_bad)		/* control frames refused */                                   \
	X(cq_overflow)		/* completions a full CQ (or a CQ in error) lost */            \
	X(async_events_lost)	/* events the full event queue could not take */               \
	X(atomics_ignored)	/* atomic requests whose id is outside the responder's window */ \
	X(naks_given_up)	/* holes NAKed 8 times, backing off, and never filled */       \
	X(card_naks_untracked)	/* peer card loss reports naming only PSNs it never tracks */  \
	X(read_req_deferred)	/* READ requests taken as lost: unacknowledged answers fill the ring */ \
	X(recv_len_errors)	/* SENDs longer than their RECV (LOC_LEN_ERR, QP to ERR) */    \
	X(recv_keys_short)	/* RECV adverts delayed: no MR-table slot for their key */  \
	X(read_keys_short)	/* READs delayed: no MR-table slot for their key */          \
	X(read_resp_unsolicited) /* READ answers for no outstanding READ: dropped */        \
	X(read_resp_len_errors)	/* READ answers not as long as their READ (BAD_RESP_ERR, QP to ERR) */ \
	X(cnps_sent)		/* by the card (the model's cnp_sent), device totals only */  \
	X(cc_rate_changes)	/* DCQCN changed a QP's rate (cuts and increases) */          \
	X(cc_limited_ns)	/* time a QP with data to send waited for its rate */         \
	X(state_refused)	/* transport state transitions refused (a bug: logged) */       \
	X(ecn_marked)		/* packets that arrived CE-marked (the model's rx_ecn_marked), device totals only */ \
	X(tx_packets)		/* RDMA packets the Send ring took (resends included) */       \
	X(tx_bytes)		/* their payload bytes */                                      \
	X(rx_packets)		/* the peer's RDMA packets that arrived, each PSN once */      \
	X(rx_bytes)		/* the payload bytes of the peer's messages that completed */ \
	X(cnp_ignored)		/* CNPs that named no message of the QP's: the rate stays */  \
	X(access_refused)	/* the peer's WRITEs, READs, atomics the QP's access refused */ \
	X(loc_prot_errors)	/* WRs whose source MR was gone or short when (re)sent */       \
	X(inline_posted)	/* send WRs posted with ORDK_SEND_INLINE */                    \
	X(inline_refused)	/* inline WRs refused: a READ or atomic, or above max_inline_data */ \
	X(srq_lent)		/* RECVs an SRQ lent to this QP (its window) */                \
	X(srq_returned)		/* lent RECVs given back unused: their QP left RTR/RTS */  \
	X(srq_starved)		/* a QP on an SRQ wanted RECVs, the pool had none (once) */  \
	X(srq_overrun)		/* RECVs refused: their SRQ held max_wr already (device) */  \
	X(atomics_held)		/* the peer's atomics that came before an earlier one or the PSNs before them */  \
	X(ud_sent)		/* UD messages handed to the card's raw Ethernet path */       \
	X(ud_received)		/* UD messages placed in a RECV */                             \
	X(ud_qkey_dropped)	/* UD messages whose Q_Key was not the QP's: dropped */        \
	X(ud_no_recv_dropped)	/* UD messages for a QP with no RECV posted: dropped */         \
	X(ud_len_errors)	/* UD messages longer than their RECV less the GRH (LOC_LEN_ERR) */ \
	X(ud_bad)		/* UD frames refused: malformed, too long, for no UD QP in RTR/RTS */ \
	X(atomics_resent)	/* atomics asked again at once: a later one's answer showed theirs lost */ \
	X(rnr_asks)		/* RNR budgets run out: the receiver asked what it posted */   \
	X(rnr_averted)		/* ... and it had RECVs posted whose adverts were late or lost */ \
	X(ud_fragments)		/* UD frames sent as fragments of messages longer than one frame */ \
	X(ud_frag_dropped)	/* UD messages in fragments dropped: one missing, out of order, too long */

struct ordk_stats {
#define ORDK_STATS_FIELD(n) uint64_t n;
	ORDK_STATS(ORDK_STATS_FIELD)
#undef ORDK_STATS_FIELD
};

/** A counter's index in ORDK_STATS order: ORDK_STAT_wr_posted, ... */
enum ordk_stat {
#define ORDK_STATS_ENUM(n) ORDK_STAT_##n,
	ORDK_STATS(ORDK_STATS_ENUM)
#undef ORDK_STATS_ENUM
	ORDK_STATS_COUNT
};

/** The name of counter @p i ("wr_posted"), or NULL past ORDK_STATS_COUNT. */
const char *ordk_stats_name(unsigned int i);
/** The value of counter @p i in @p st (0 past ORDK_STATS_COUNT). */
uint64_t ordk_stats_value(const struct ordk_stats *st, unsigned int i);

/**
 * What mlx5 names counter @p i in its hw_counters (`rdma statistic`, /sys/class/infiniband/
 * .../hw_counters): "packet_seq_err" for naks_received, ... or NULL when no mlx5 counter
 * means the same (doc/guides/tools/operations.md has the table, with the meanings).
 * Telemetry and the tools show these names beside ORDK's. Experimental.
 */
ORDK_EXPERIMENTAL
const char *ordk_stats_mlx5_name(unsigned int i);
/** What rxe (the kernel's soft RoCE) names counter @p i in its hw_counters, or NULL. Experimental. */
ORDK_EXPERIMENTAL
const char *ordk_stats_rxe_name(unsigned int i);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* ORDK_STATS_H */
