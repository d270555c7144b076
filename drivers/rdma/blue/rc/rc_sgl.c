/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather lists on a card that reads one buffer per Send item (rc_sgl.h).
 *
 * A WR that gathers SEND or WRITE bytes from several SGEs keeps its SGEs in
 * lib/verbs' slot of the WR (verbs_qp_sgl_save()) and goes as the packets a
 * one-buffer WR of its length would: the requester cuts its items so that
 * each is either a run of whole packets read from one SGE (zero copy) or one
 * packet whose bytes span SGEs, copied into the WR's gather slot when the
 * item is built (again at a resend: the same bytes) and read from there. So
 * one message, one MSN, one completion, the immediate and the SEND's LAST on
 * its last packet, and the peer sees nothing it would not see of a
 * one-buffer WR. A packet spans SGEs only at an SGE boundary, and starts in
 * SGE i < nsge - 1, so the slot holds max_send_sge - 1 packets, one per i.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "blue_verbs.h"

int
rc_sgl_check(struct blue_qp *qp, const struct ordk_send_wr *wr, unsigned int need)
{
	const struct ordk_sge *g = verbs_wr_sgl(wr);

	for (int i = 0; i < wr->num_sge; i++) {
		if (g[i].length == 0 ||
		    rc_mr_check(qp, g[i].lkey, g[i].addr, g[i].length, need) == 0)
			continue;
		RC_LOG(ERR, "qp 0x%06x: post_send: SGE %d (lkey 0x%08x, 0x%" PRIx64 " +%u) is not "
		       "inside an MR of the QP's PD%s", qp->vqp.qpn, i, g[i].lkey, g[i].addr,
		       g[i].length, need ? " with LOCAL_WRITE" : "");
		return -EPERM;
	}
	return 0;
}

/* The SGE that holds byte @p off of the message; the message offset of its first byte in *start. */
static uint32_t
sge_at(const struct ordk_sge *g, uint32_t n, uint32_t off, uint32_t *start)
{
	uint32_t s = 0, i;

	for (i = 0; i + 1 < n && off >= s + g[i].length; i++)
		s += g[i].length;
	*start = s;
	return i;
}

uint32_t
rc_sgl_item_len(const struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, uint32_t n,
		uint32_t pmtu)
{
	const struct ordk_sge *g = verbs_qp_sgl(&qp->vqp, w->wr_n);
	uint32_t start, i = sge_at(g, w->nsge, off, &start), end = start + g[i].length;
	/* the packet at off ends on the next PMTU boundary of the remote address */
	uint32_t pkt = RTE_MIN(pmtu - (uint32_t)((w->raddr + off) % pmtu), w->len - off), run;

	if (off + pkt > end)
		return RTE_MIN(n, pkt); /* it spans SGEs: alone, assembled */
	/* whole packets inside SGE i: up to its last packet boundary (the message's end) */
	run = end == w->len ? end - off : end - (uint32_t)((w->raddr + end) % pmtu) - off;
	return RTE_MIN(n, run);
}

void
rc_sgl_source(struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, uint32_t len,
	      uint64_t *laddr, uint32_t *lkey)
{
	const struct ordk_sge *g = verbs_qp_sgl(&qp->vqp, w->wr_n);
	uint32_t start, i = sge_at(g, w->nsge, off, &start), k, done;
	uint8_t *dst;

	if (off + len <= start + g[i].length) {
		*laddr = g[i].addr + (off - start);
		*lkey = g[i].lkey;
		return;
	}
	/* spans SGEs (one packet, at most VERBS_GATHER_PKT): its place in the slot is i's */
	dst = verbs_qp_gather(&qp->vqp, w->wr_n, lkey) + (size_t)i * VERBS_GATHER_PKT;
	for (k = i, done = 0; done < len && k < w->nsge; k++) {
		uint32_t from = k == i ? off - start : 0;
		uint32_t n = RTE_MIN(g[k].length - from, len - done);

		memcpy(dst + done, (const void *)(uintptr_t)(g[k].addr + from), n);
		done += n;
	}
	*laddr = (uint64_t)(uintptr_t)dst;
}

bool
rc_sgl_ok(struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, uint32_t len)
{
	const struct ordk_sge *g = verbs_qp_sgl(&qp->vqp, w->wr_n);
	uint32_t start, i = sge_at(g, w->nsge, off, &start);

	for (; len > 0 && i < w->nsge; start += g[i].length, i++) {
		uint32_t from = off - start, n = RTE_MIN(g[i].length - from, len);

		if (rc_mr_check(qp, g[i].lkey, g[i].addr + from, n, 0) != 0)
			return false;
		off += n;
		len -= n;
	}
	return true;
}
