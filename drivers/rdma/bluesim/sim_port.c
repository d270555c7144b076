/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The model's Ethernet port: any DPDK ethdev (or a loopback FIFO), a CRC-32
 * trailer standing in for the link's FCS, pcapng capture, and seeded fault
 * injection per direction (drop, duplicate, reorder, corrupt, delay).
 *
 * TX path: frame -> FCS appended -> capture -> TX faults -> queue -> port.
 * RX path: port -> capture -> RX faults -> FCS checked and stripped -> receive.
 * Corruption is injected after the FCS is computed (TX) or before it is
 * checked (RX), so it is caught where a real link's FCS would catch it.
 */
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>

#include "sim_internal.h"

uint64_t
sim_rand(struct bluesim *sim)
{
	/* xorshift64*: seeded, deterministic, one lcore */
	uint64_t x = sim->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	sim->rng = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static double
rand_unit(struct bluesim *sim)
{
	return (double)(sim_rand(sim) >> 11) * (1.0 / 9007199254740992.0);
}

struct rte_mbuf *
sim_mbuf_alloc(struct bluesim *sim)
{
	return rte_pktmbuf_alloc(sim->pool);
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
capture(struct bluesim *sim, struct rte_mbuf *m, uint32_t len, enum ordk_pcapng_dir dir)
{
	if (sim->pcap != NULL)
		ordk_pcapng_write(sim->pcap, 0, rte_pktmbuf_mtod(m, void *), len, wall_ns(), dir);
}

void
bluesim_set_link(struct bluesim *sim, bool up)
{
	if (sim->link_down == !up)
		return;
	sim->link_down = !up;
	SIM_LOG(INFO, sim, "link %s: the port is %s", up ? "up" : "down",
		up ? "read and written again" : "left alone, frames to send are dropped");
}

bool
bluesim_capture_note(struct bluesim *sim, const char *text)
{
	if (sim->pcap == NULL)
		return false;
	(void)ordk_pcapng_note(sim->pcap, text); /* a full buffer is counted there */
	return true;
}

/* ---------------------------------------------------------------- faults */

static uint64_t *
fault_counter(struct bluesim *sim, enum bluesim_dir dir, enum bluesim_fault k)
{
	uint64_t *base = dir == BLUESIM_DIR_TX ? &sim->st.fault_tx_drop : &sim->st.fault_rx_drop;

	return base + k; /* the counters are declared in bluesim_fault order */
}

static void tx_enqueue(struct bluesim *sim, struct rte_mbuf *m);
static void rx_deliver(struct bluesim *sim, struct rte_mbuf *m);

static void
emit(struct bluesim *sim, enum bluesim_dir dir, struct rte_mbuf *m)
{
	if (dir == BLUESIM_DIR_TX)
		tx_enqueue(sim, m);
	else
		rx_deliver(sim, m);
}

static void
hold(struct bluesim *sim, enum bluesim_dir dir, struct rte_mbuf *m, uint32_t countdown,
     uint64_t release_ns)
{
	struct sim_fault_dir *fd = &sim->fault[dir];

	fd->held[fd->nheld++] = (struct sim_held){ .m = m, .countdown = countdown,
						   .release_ns = release_ns };
}

/* A frame passed: reorder-held frames count down and go out after it. */
static void
held_tick(struct bluesim *sim, enum bluesim_dir dir)
{
	struct sim_fault_dir *fd = &sim->fault[dir];

	for (uint32_t i = 0; i < fd->nheld;) {
		struct sim_held *h = &fd->held[i];

		if (h->countdown != UINT32_MAX && --h->countdown == 0) {
			struct rte_mbuf *m = h->m;

			*h = fd->held[--fd->nheld];
			emit(sim, dir, m);
			continue;
		}
		i++;
	}
}

static unsigned int
held_release_due(struct bluesim *sim, enum bluesim_dir dir, bool all)
{
	struct sim_fault_dir *fd = &sim->fault[dir];
	uint64_t now;
	unsigned int n = 0;

	if (fd->nheld == 0)
		return 0;
	now = sim_now_ns(sim);
	if (dir == BLUESIM_DIR_RX)
		sim->rx_now_ns = now;
	for (uint32_t i = 0; i < fd->nheld;) {
		struct sim_held *h = &fd->held[i];

		if (all || now >= h->release_ns) {
			struct rte_mbuf *m = h->m;

			*h = fd->held[--fd->nheld];
			if (all)
				rte_pktmbuf_free(m);
			else
				emit(sim, dir, m);
			n++;
			continue;
		}
		i++;
	}
	return n;
}

static void
fault_apply(struct bluesim *sim, enum bluesim_dir dir, struct rte_mbuf *m)
{
	const double *r = sim->cfg.fault.rate[dir];
	struct sim_fault_dir *fd = &sim->fault[dir];
	struct rte_mbuf *dup = NULL;

	if (r[BLUESIM_FAULT_DROP] > 0 && rand_unit(sim) < r[BLUESIM_FAULT_DROP]) {
		(*fault_counter(sim, dir, BLUESIM_FAULT_DROP))++;
		rte_pktmbuf_free(m);
		return;
	}
	if (r[BLUESIM_FAULT_CORRUPT] > 0 && rand_unit(sim) < r[BLUESIM_FAULT_CORRUPT]) {
		uint32_t len;

		/* zcopy: the payload is the sender's MR, never to be written: the frame
		 * becomes one copy first (the header mbuf has room for a whole frame) */
		if (m->nb_segs > 1)
			(void)rte_pktmbuf_linearize(m);
		len = rte_pktmbuf_data_len(m);
		if (len > 0) {
			uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
			uint64_t x = sim_rand(sim);

			p[(x >> 8) % len] ^= (uint8_t)((x & 0xFF) | 1); /* never a no-op flip */
			(*fault_counter(sim, dir, BLUESIM_FAULT_CORRUPT))++;
		}
	}
	if (r[BLUESIM_FAULT_DUP] > 0 && rand_unit(sim) < r[BLUESIM_FAULT_DUP]) {
		dup = rte_pktmbuf_copy(m, sim->pool, 0, UINT32_MAX);
		if (dup != NULL)
			(*fault_counter(sim, dir, BLUESIM_FAULT_DUP))++;
	}
	if (fd->nheld < SIM_HELD_MAX && r[BLUESIM_FAULT_REORDER] > 0 &&
	    rand_unit(sim) < r[BLUESIM_FAULT_REORDER]) {
		(*fault_counter(sim, dir, BLUESIM_FAULT_REORDER))++;
		/* released after reorder_depth later frames, or after 1 ms of silence */
		hold(sim, dir, m, sim->cfg.fault.reorder_depth, sim_now_ns(sim) + 1000000);
	} else if (fd->nheld < SIM_HELD_MAX && r[BLUESIM_FAULT_DELAY] > 0 &&
		   rand_unit(sim) < r[BLUESIM_FAULT_DELAY]) {
		(*fault_counter(sim, dir, BLUESIM_FAULT_DELAY))++;
		hold(sim, dir, m, UINT32_MAX,
		     sim_now_ns(sim) + (uint64_t)sim->cfg.fault.delay_us * 1000);
	} else {
		held_tick(sim, dir);
		emit(sim, dir, m);
	}
	if (dup != NULL)
		emit(sim, dir, dup);
}

/* -------------------------------------------------------------- transmit */

static void
tx_enqueue(struct bluesim *sim, struct rte_mbuf *m)
{
	if (sim->txq_len >= SIM_TX_QUEUE)
		sim_port_flush(sim);
	if (sim->txq_len >= SIM_TX_QUEUE) {
		sim->st.tx_no_mbuf++; /* the port refuses everything; cannot hold more */
		rte_pktmbuf_free(m);
		return;
	}
	sim->txq[sim->txq_len++] = m;
}

/* CRC-32 of the first @p len bytes of frame @p m, over its segments. */
static uint32_t
frame_crc(const struct rte_mbuf *m, uint32_t len)
{
	uint32_t crc = 0;

	for (; m != NULL && len > 0; m = m->next) {
		uint32_t n = RTE_MIN(len, (uint32_t)m->data_len);

		crc = blue_wire_crc32_more(crc, rte_pktmbuf_mtod(m, const void *), n);
		len -= n;
	}
	return crc;
}

/* The FCS of a chained frame (zcopy) in a segment of its own after the payload. */
static bool
fcs_append_chain(struct bluesim *sim, struct rte_mbuf *m)
{
	struct rte_mbuf *t = sim_mbuf_alloc(sim);
	uint32_t crc = 0;
	uint8_t *q;

	if (t == NULL)
		return false;
	crc = frame_crc(m, rte_pktmbuf_pkt_len(m));
	if (rte_pktmbuf_chain(m, t) != 0) {
		rte_pktmbuf_free(t);
		return false;
	}
	q = (uint8_t *)rte_pktmbuf_append(m, 4);
	for (int i = 0; i < 4; i++) /* least significant byte first, as blue_wire_fcs_append() */
		q[i] = (uint8_t)(crc >> (8 * i));
	return true;
}

void
sim_port_send(struct bluesim *sim, struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (sim->cfg.fcs) {
		uint8_t *t = m->nb_segs == 1 ? (uint8_t *)rte_pktmbuf_append(m, 4) : NULL;
		bool ok = t != NULL ? blue_wire_fcs_append(rte_pktmbuf_mtod(m, void *), len,
							   len + 4) > 0
				    : m->nb_segs > 1 && fcs_append_chain(sim, m);

		if (!ok) {
			sim->st.tx_no_mbuf++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	capture(sim, m, len, ORDK_PCAPNG_DIR_OUT);
	fault_apply(sim, BLUESIM_DIR_TX, m);
}

unsigned int
sim_port_flush(struct bluesim *sim)
{
	uint32_t sent = 0;

	held_release_due(sim, BLUESIM_DIR_TX, false);
	if (sim->txq_len == 0)
		return 0;
	if (sim->cfg.port_id == BLUESIM_PORT_LOOPBACK) {
		while (sent < sim->txq_len && sim->lb_count < SIM_LOOPBACK_RING) {
			sim->lb[(sim->lb_head + sim->lb_count) % SIM_LOOPBACK_RING] = sim->txq[sent++];
			sim->lb_count++;
		}
	} else if (unlikely(sim->link_down)) {
		/* a cable pulled: the frames go nowhere (the port must not be touched) */
		rte_pktmbuf_free_bulk(sim->txq, sim->txq_len);
		sim->st.tx_link_down += sim->txq_len;
		sim->txq_len = 0;
		return 0;
	} else {
		sent = rte_eth_tx_burst(sim->cfg.port_id, sim->cfg.queue_id, sim->txq,
					(uint16_t)sim->txq_len);
		sim->st.port_tx_bursts++;
	}
	if (sent > 0 && sent < sim->txq_len)
		memmove(sim->txq, sim->txq + sent, (sim->txq_len - sent) * sizeof(sim->txq[0]));
	sim->txq_len -= sent;
	return sent;
}

/* ------------------------------------------------------------- zero copy */

/*
 * zcopy: a packet's payload goes to the port as an external mbuf over the MR's
 * memory (the card reads host memory by DMA as the port sends), its headers in
 * the pool mbuf in front, the FCS in a third. Only on ports that copy what they
 * send and free the mbufs inside rte_eth_tx_burst() (DPDK 22.11's net_memif and
 * net_af_packet): the memory has been read when the burst returns. net_ring
 * hands the pointer to its peer, who reads it later, and the loopback FIFO too:
 * there the payload is copied. Frames the model itself still holds (txq, the
 * reorder and delay faults) are recalled when their memory is unmapped
 * (sim_zcopy_recall(), from bluesim_dma_unmap(): an MR's deregistration).
 */
static const char *const zc_ports[] = { "net_memif", "net_af_packet" };

void
sim_zcopy_setup(struct bluesim *sim)
{
	struct rte_eth_dev_info info;
	const char *why = NULL;

	sim->zcopy = false;
	if (!sim->cfg.zcopy)
		return;
	if (sim->cfg.port_id == BLUESIM_PORT_LOOPBACK)
		why = "the loopback FIFO keeps frames";
	else if (sim->pcap != NULL)
		why = "pcap= captures whole frames";
	else if (rte_eth_dev_info_get(sim->cfg.port_id, &info) != 0)
		why = "no device info";
	else if (!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
		why = "the port sends no chained mbufs";
	else
		for (size_t i = 0; i < RTE_DIM(zc_ports) && !sim->zcopy; i++)
			sim->zcopy = strcmp(info.driver_name, zc_ports[i]) == 0;
	if (!sim->zcopy && why == NULL)
		why = "the port may read the payload after its burst returns";
	if (sim->zcopy)
		SIM_LOG(INFO, sim, "zcopy: payloads go to the port as MR memory");
	else
		SIM_LOG(DEBUG, sim, "zcopy off: %s", why);
}

static void
zc_free(void *addr, void *opaque)
{
	struct bluesim *sim = opaque;

	RTE_SET_USED(addr);
	sim->zc_inflight--;
}

bool
sim_zcopy_attach(struct bluesim *sim, struct rte_mbuf *m, const uint8_t *p, uint32_t len)
{
	struct rte_mbuf *e = sim_mbuf_alloc(sim);
	struct rte_mbuf_ext_shared_info *sh;

	if (e == NULL)
		return false;
	/* the shared info lives in e's own data room, unused while e is attached */
	sh = (struct rte_mbuf_ext_shared_info *)e->buf_addr;
	sh->free_cb = zc_free;
	sh->fcb_opaque = sim;
	rte_mbuf_ext_refcnt_set(sh, 1);
	rte_pktmbuf_attach_extbuf(e, (void *)(uintptr_t)p, (rte_iova_t)(uintptr_t)p,
				  (uint16_t)len, sh);
	e->data_len = (uint16_t)len;
	e->pkt_len = len;
	m->next = e;
	m->nb_segs = 2;
	m->pkt_len = m->data_len + len;
	sim->zc_inflight++;
	sim->st.tx_zcopy++;
	return true;
}

/* Does a segment of @p m lie over host memory [va, va + len)? */
static bool
zc_over(const struct rte_mbuf *m, const uint8_t *va, uint64_t len)
{
	for (; m != NULL; m = m->next) {
		const uint8_t *b = m->buf_addr;

		if (RTE_MBUF_HAS_EXTBUF(m) && m->shinfo->free_cb == zc_free && b < va + len &&
		    va < b + m->buf_len)
			return true;
	}
	return false;
}

void
sim_zcopy_recall(struct bluesim *sim, const uint8_t *va, uint64_t len)
{
	struct sim_fault_dir *fd = &sim->fault[BLUESIM_DIR_TX];
	uint32_t k = 0;

	(void)sim_port_flush(sim); /* what the port takes now is read before this returns */
	for (uint32_t i = 0; i < sim->txq_len; i++) {
		if (zc_over(sim->txq[i], va, len)) {
			rte_pktmbuf_free(sim->txq[i]);
			sim->st.tx_zcopy_recalled++;
		} else {
			sim->txq[k++] = sim->txq[i];
		}
	}
	sim->txq_len = k;
	for (uint32_t i = 0; i < fd->nheld;) {
		if (zc_over(fd->held[i].m, va, len)) {
			rte_pktmbuf_free(fd->held[i].m);
			sim->st.tx_zcopy_recalled++;
			fd->held[i] = fd->held[--fd->nheld];
			continue;
		}
		i++;
	}
}

/* --------------------------------------------------------------- receive */

static void
rx_deliver(struct bluesim *sim, struct rte_mbuf *m)
{
	if (sim->cfg.fcs) {
		uint32_t len = rte_pktmbuf_pkt_len(m);
		uint8_t buf[4];
		const uint8_t *p = len >= 4 ? rte_pktmbuf_read(m, len - 4, 4, buf) : NULL;
		uint32_t got = 0;

		if (p != NULL)
			got = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			      (uint32_t)p[3] << 24;
		if (p == NULL || frame_crc(m, len - 4) != got ||
		    /* a trailer split over segments: one copy, then trimmed */
		    (rte_pktmbuf_trim(m, 4) != 0 && (sim->st.rx_linearized++,
		     rte_pktmbuf_linearize(m) != 0 || rte_pktmbuf_trim(m, 4) != 0))) {
			sim->st.rx_fcs_error++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	if (sim->stall_count == 0 && sim_rx_frame(sim, m)) {
		rte_pktmbuf_free(m);
		return;
	}
	/* rtl=1: the receive path is stalled; frames already off the wire wait in order */
	if (sim->stall_count == SIM_STALL_MAX) {
		sim->st.rtl_rx_stall_overflow++;
		rte_pktmbuf_free(m);
		return;
	}
	if (sim->stall_count == 0)
		sim->st.rtl_rx_stalls++;
	sim->stall[(sim->stall_head + sim->stall_count++) % SIM_STALL_MAX] = m;
}

/* Retry held frames in order; @return true when none is left. */
static bool
stall_drain(struct bluesim *sim)
{
	while (sim->stall_count > 0) {
		struct rte_mbuf *m = sim->stall[sim->stall_head];

		if (!sim_rx_frame(sim, m))
			return false;
		rte_pktmbuf_free(m);
		sim->stall_head = (sim->stall_head + 1) % SIM_STALL_MAX;
		sim->stall_count--;
	}
	return true;
}

static bool
rx_chain_ok(const struct bluesim *sim, const struct rte_mbuf *m)
{
	return !sim->cfg.rtl && sim->pcap == NULL &&
	       m->data_len >= RTE_MIN(m->pkt_len, BLUE_WIRE_RDMA_HLEN);
}

unsigned int
sim_port_rx(struct bluesim *sim, unsigned int budget)
{
	struct rte_mbuf *pkts[SIM_BURST];
	uint32_t room = (SIM_META_PENDING - sim->meta_count) / 2; /* <= 2 reports per frame */
	uint16_t n = (uint16_t)RTE_MIN(budget, SIM_BURST);

	if (n > room)
		n = (uint16_t)room;

	if (sim->stall_count > 0) {
		sim->rx_now_ns = sim_now_ns(sim);
		if (!stall_drain(sim))
			return 0; /* rtl=1: stalled: frames stay on the wire */
	}
	if (sim->rx_blocked)
		return 0; /* rtl=1: the locked bitmap unit stopped receive for good */
	held_release_due(sim, BLUESIM_DIR_RX, false);
	if (n == 0)
		return 0; /* the host is behind on meta reports: leave frames on the wire */
	if (sim->cfg.port_id == BLUESIM_PORT_LOOPBACK) {
		uint16_t k = 0;

		while (k < n && sim->lb_count > 0) {
			pkts[k++] = sim->lb[sim->lb_head];
			sim->lb_head = (sim->lb_head + 1) % SIM_LOOPBACK_RING;
			sim->lb_count--;
		}
		n = k;
	} else if (unlikely(sim->link_down)) {
		return 0;
	} else {
		n = rte_eth_rx_burst(sim->cfg.port_id, sim->cfg.queue_id, pkts, n);
		sim->st.port_rx_bursts += n > 0;
	}
	if (n > 0)
		sim->rx_now_ns = sim_now_ns(sim);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		/* a chain is read in place (the payload straight into the MR) when its
		 * first segment holds the headers; else, or to be captured, one copy */
		if (m->nb_segs > 1 && !rx_chain_ok(sim, m) &&
		    (sim->st.rx_linearized++, rte_pktmbuf_linearize(m) != 0)) {
			sim->st.rx_multiseg_dropped++;
			rte_pktmbuf_free(m);
			continue;
		}
		capture(sim, m, rte_pktmbuf_data_len(m) - (sim->cfg.fcs && m->data_len >= 4 ? 4 : 0),
			ORDK_PCAPNG_DIR_IN);
		fault_apply(sim, BLUESIM_DIR_RX, m);
	}
	return n;
}

void
sim_port_release_all(struct bluesim *sim)
{
	held_release_due(sim, BLUESIM_DIR_TX, true);
	held_release_due(sim, BLUESIM_DIR_RX, true);
	while (sim->stall_count > 0) {
		rte_pktmbuf_free(sim->stall[sim->stall_head]);
		sim->stall_head = (sim->stall_head + 1) % SIM_STALL_MAX;
		sim->stall_count--;
	}
	for (uint32_t i = 0; i < sim->txq_len; i++)
		rte_pktmbuf_free(sim->txq[i]);
	sim->txq_len = 0;
	while (sim->lb_count > 0) {
		rte_pktmbuf_free(sim->lb[sim->lb_head]);
		sim->lb_head = (sim->lb_head + 1) % SIM_LOOPBACK_RING;
		sim->lb_count--;
	}
}
