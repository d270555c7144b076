/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packets and gather lists (rc_sgl.c): how a message is cut into packets
 * (PMTU boundaries of the remote address, as the card cuts it), and where
 * each packet's bytes come from when a WR gathers several SGEs. The card
 * takes one buffer per Send item and places only packets of the standard
 * lengths (a MIDDLE is one PMTU), so a gather WR goes as its usual packets:
 * a run of whole packets inside one SGE is an item read from that SGE, a
 * packet whose bytes span SGEs is assembled in the WR's gather slot
 * (lib/verbs) and goes as an item of its own. A READ scatters over its SGEs
 * as one READ request per SGE, parts of one WR (doc/guides/prog_guide/
 * architecture.md, "Gather lists").
 */
#ifndef RC_SGL_H
#define RC_SGL_H

#include <stdbool.h>
#include <stdint.h>

struct blue_qp;
struct rc_wqe;
struct ordk_send_wr;

/* Packets a message of @p len bytes to @p raddr takes: PMTU boundaries of the remote address. */
static inline uint32_t
rc_pkts(uint64_t raddr, uint32_t len, uint32_t pmtu)
{
	uint32_t first = pmtu - (uint32_t)(raddr % pmtu);

	if (len <= first)
		return 1;
	return 1 + (len - first + pmtu - 1) / pmtu;
}

/*
 * Packet @p k of a message of @p len bytes to @p raddr: bytes [*off, *off +
 * *n). The first packet ends on the first PMTU boundary of the remote
 * address, as the card splits it.
 */
static inline void
rc_pkt_span(uint64_t raddr, uint32_t len, uint32_t pmtu, uint32_t k, uint32_t *off, uint32_t *n)
{
	uint32_t first = pmtu - (uint32_t)(raddr % pmtu), cap = k == 0 ? first : pmtu;

	*off = k == 0 ? 0 : first + (k - 1) * pmtu;
	*n = len - *off < cap ? len - *off : cap;
}

/**
 * Every SGE of @p wr (length > 0) inside an MR of @p qp's PD with @p need.
 * @return 0, or -EPERM (logged: the SGE named).
 */
int rc_sgl_check(struct blue_qp *qp, const struct ordk_send_wr *wr, unsigned int need);

/**
 * A gather WQE's item from byte @p off (a packet boundary), at most @p n
 * bytes: a run of whole packets inside one SGE, or the one packet there
 * whose bytes span SGEs. @return its length.
 */
uint32_t rc_sgl_item_len(const struct blue_qp *qp, const struct rc_wqe *w, uint32_t off,
			 uint32_t n, uint32_t pmtu);

/**
 * Where the card reads bytes [off, off + len) of gather WQE @p w (an item of
 * rc_sgl_item_len(), or one packet): inside one SGE, that SGE; a packet that
 * spans SGEs, its bytes assembled now in the WR's gather slot.
 */
void rc_sgl_source(struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, uint32_t len,
		   uint64_t *laddr, uint32_t *lkey);

/** Are the SGEs under bytes [off, off + len) of gather WQE @p w still in their MRs? */
bool rc_sgl_ok(struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, uint32_t len);

#endif /* RC_SGL_H */
