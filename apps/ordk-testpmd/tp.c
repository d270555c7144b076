/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-testpmd's devices and traffic. Side 0 requests (WRITE, READ or SEND),
 * side 1 answers; both devices are polled from the console's loop, one core.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "app_common.h"
#include "ordk_cm.h"
#include "tp.h"

struct tp tp;

static const char *const op_names[] = { [TP_WRITE] = "write", [TP_READ] = "read",
					[TP_SEND] = "send" };

static void
snap(uint16_t port, struct tp_eth_snap *s)
{
	struct rte_eth_stats st;

	memset(s, 0, sizeof(*s));
	if (rte_eth_stats_get(port, &st) != 0)
		return;
	*s = (struct tp_eth_snap){ st.ipackets, st.opackets, st.imissed, st.oerrors, st.ibytes,
				   st.obytes };
}

static struct ordk_cm_info
info_of(struct tp_side *s, struct ordk_qp *qp)
{
	return (struct ordk_cm_info){ .qpn = ordk_qp_num(qp), .ip = s->attr.ip, .mac = s->attr.mac,
				      .addr = (uint64_t)(uintptr_t)s->buf, .rkey = s->mr->rkey,
				      .len = TP_BUF };
}

/* QP pairs 0 .. n-1, side 0's QP i connected to side 1's QP i. */
static int
make_pairs(uint32_t n)
{
	for (; tp.nqp < n; tp.nqp++) {
		struct ordk_qp_init_attr ia = { .max_send_wr = TP_DEPTH + 1,
						.max_recv_wr = TP_DEPTH + 1 };
		struct ordk_cm_info in[TP_SIDES];

		for (int i = 0; i < TP_SIDES; i++) {
			ia.send_cq = ia.recv_cq = tp.s[i].cq;
			tp.s[i].qp[tp.nqp] = ordk_qp_create(tp.s[i].pd, &ia);
			if (tp.s[i].qp[tp.nqp] == NULL) {
				printf("cannot create QP %u: %s\n", tp.nqp, rte_strerror(rte_errno));
				return -1;
			}
			in[i] = info_of(&tp.s[i], tp.s[i].qp[tp.nqp]);
		}
		for (int i = 0; i < TP_SIDES; i++)
			if (ordk_cm_connect_qp(tp.s[i].qp[tp.nqp], &in[i], &in[1 - i], ORDK_MTU_4096,
					       15) != 0) {
				printf("cannot connect QP pair %u\n", tp.nqp);
				return -1;
			}
	}
	return 0;
}

int
tp_init(const char *extra)
{
	struct rte_mempool *mp = ordk_env_frame_pool("tp_pool", 16383);
	uint16_t ports[TP_SIDES];

	if (mp == NULL || ordk_env_ring_pair("tp_ring", mp, ports) != 0) {
		fprintf(stderr, "ordk-testpmd: cannot make the net_ring pair (memory?)\n");
		return -1;
	}
	for (int i = 0; i < TP_SIDES; i++) {
		struct tp_side *s = &tp.s[i];
		char args[512];

		snprintf(args, sizeof(args), "bluesim,port=%u,mac=02:00:00:00:00:%02x,ip=10.0.0.%d%s%s",
			 ports[i], i + 1, i + 1, extra[0] ? "," : "", extra);
		s->port = ports[i];
		s->cqe = TP_MAX_QPS * (TP_DEPTH + 1) * 2;
		if (ordk_env_ep_open(&s->ep, args, s->cqe, NULL, TP_BUF, 15) != 0) {
			if (s->dev == NULL)
				fprintf(stderr, "ordk-testpmd: cannot open '%s': %s\n", args,
					rte_strerror(rte_errno));
			else
				fprintf(stderr, "ordk-testpmd: cannot create PD, CQ or MR: %s\n",
					rte_strerror(rte_errno));
			return -1;
		}
		snap(s->port, &tp.last_show[i]);
		tp.last_show_t[i] = ordk_env_now_s();
	}
	return make_pairs(1);
}

void
tp_fini(void)
{
	for (int i = 0; i < TP_SIDES; i++) {
		struct tp_side *s = &tp.s[i];

		for (uint32_t q = 0; q < TP_MAX_QPS; q++)
			if (s->qp[q])
				ordk_qp_destroy(s->qp[q]);
		ordk_env_ep_close(&s->ep);
	}
	ordk_env_close_ports();
}

/* ---------------------------------------------------------------- traffic */

static void
post_recv(uint32_t q)
{
	struct tp_side *b = &tp.s[1];
	struct ordk_recv_wr r = { .wr_id = q, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)b->buf + (uint64_t)q * (TP_BUF / TP_MAX_QPS),
				   tp.size, b->mr->lkey };
	ordk_qp_post_recv(b->qp[q], &r, 1);
}

static void
post(uint32_t q)
{
	struct tp_side *a = &tp.s[0], *b = &tp.s[1];
	uint64_t off = (uint64_t)q * (TP_BUF / TP_MAX_QPS);
	struct ordk_send_wr w = { .wr_id = q, .num_sge = 1, .send_flags = ORDK_SEND_SIGNALED };

	w.opcode = tp.op == TP_WRITE ? ORDK_WR_RDMA_WRITE :
		   tp.op == TP_READ ? ORDK_WR_RDMA_READ : ORDK_WR_SEND;
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf + off, tp.size, a->mr->lkey };
	w.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf + off;
	w.rdma.rkey = b->mr->rkey;
	if (ordk_qp_post_send(a->qp[q], &w, 1) == 1)
		tp.outstanding[q]++;
}

static void
reap(int side)
{
	struct tp_side *s = &tp.s[side];
	struct ordk_wc wc[32];
	int n = ordk_cq_poll(s->cq, wc, 32);

	for (int i = 0; i < n; i++) {
		uint32_t q = (uint32_t)wc[i].wr_id;

		s->cq_polled++;
		if (wc[i].status != ORDK_WC_SUCCESS) {
			s->cq_errors++;
			tp.errors++;
			if (tp.errors <= 5)
				printf("completion error on %s QP 0x%06x: %s\n", s->attr.name, wc[i].qp_num,
				       ordk_wc_status_str(wc[i].status));
		}
		if (q >= TP_MAX_QPS)
			continue;
		if (side == 1) { /* a SEND arrived: give the buffer back */
			if (tp.running && tp.op == TP_SEND && wc[i].status == ORDK_WC_SUCCESS)
				post_recv(q);
			continue;
		}
		if (tp.outstanding[q] > 0)
			tp.outstanding[q]--;
		if (wc[i].status == ORDK_WC_SUCCESS) {
			tp.done++;
			tp.bytes += tp.size;
		}
	}
}

void
tp_step(void)
{
	for (int i = 0; i < TP_SIDES; i++)
		ordk_dev_poll(tp.s[i].dev, 64);
	if (tp.running)
		for (uint32_t q = 0; q < tp.qps; q++)
			while (tp.outstanding[q] < TP_DEPTH) {
				uint64_t before = tp.outstanding[q];

				post(q);
				if (tp.outstanding[q] == before)
					break;
			}
	reap(0);
	reap(1);
}

int
tp_start(const char *op, uint32_t size, uint32_t qps)
{
	int k;

	if (tp.running) {
		printf("Traffic is already running: stop it first.\n");
		return -1;
	}
	for (k = 0; k < 3; k++)
		if (strcmp(op, op_names[k]) == 0)
			break;
	if (k == 3 || size == 0 || size > TP_BUF / TP_MAX_QPS || qps == 0 || qps > TP_MAX_QPS) {
		printf("Bad arguments: start <write|read|send> <1..%u bytes> [1..%u QPs]\n",
		       TP_BUF / TP_MAX_QPS, TP_MAX_QPS);
		return -1;
	}
	if (make_pairs(qps) != 0)
		return -1;
	tp.op = (enum tp_op)k;
	tp.size = size;
	tp.qps = qps;
	tp.done = tp.bytes = tp.errors = 0;
	memset(tp.outstanding, 0, sizeof(tp.outstanding));
	for (int i = 0; i < TP_SIDES; i++)
		snap(tp.s[i].port, &tp.start_stats[i]);
	if (tp.op == TP_SEND)
		for (uint32_t q = 0; q < qps; q++)
			for (uint32_t i = 0; i < TP_DEPTH; i++)
				post_recv(q);
	tp.t0 = ordk_env_now_s();
	tp.running = true;
	printf("Start: %s %u B on %u QP pair%s, %s -> %s (%u in flight per QP).\n", op, size, qps,
	       qps > 1 ? "s" : "", tp.s[0].attr.name, tp.s[1].attr.name, TP_DEPTH);
	return 0;
}

/* The faults still set, "drop-tx:0.02, dup:0.1", or "" when none. */
static const char *
faults_str(void)
{
	static char buf[sizeof(tp.faults) + 16];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(tp.faults) / sizeof(tp.faults[0]); k++)
		if (tp.faults[k][0] && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? ", " : "",
					      tp.faults[k]);
	return buf;
}

/* What was injected and is still set: a slow run says why. */
static void
faults_note(void)
{
	if (faults_str()[0])
		printf("  Faults still set: %s   ('set fault <kind> 0' clears one)\n", faults_str());
}

static void
tally(FILE *f)
{
	double t = (tp.running ? ordk_env_now_s() : tp.t1) - tp.t0;

	if (t <= 0)
		t = 1e-9;
	fprintf(f,
		"  %s %u B x %u QP: %" PRIu64 " WRs completed, %" PRIu64 " errors, %.3f Mpps, "
		"%.2f Gb/s%s%s%s\n",
		op_names[tp.op], tp.size, tp.qps, tp.done, tp.errors, tp.done / t / 1e6,
		tp.bytes * 8.0 / t / 1e9, tp.running ? " (running)" : "",
		faults_str()[0] ? ", faults: " : "", faults_str());
}

void
tp_stop(void)
{
	double until;

	if (!tp.running) { /* testpmd's words */
		printf("Packet forwarding not started\n");
		return;
	}
	{
		printf("Telling cores to stop...\nWaiting for lcores to finish...\n");
		tp.running = false;
		tp.t1 = ordk_env_now_s();
		/* the WRs in flight complete (bounded) */
		until = ordk_env_now_s() + 5;
		for (;;) {
			uint64_t left = 0;

			tp_step();
			for (uint32_t q = 0; q < tp.qps; q++)
				left += tp.outstanding[q];
			if (left == 0 || ordk_env_now_s() > until)
				break;
		}
	}
	tp_show_fwd_stats();
	printf("\nDone.\n");
}

/* testpmd's forward statistics: per port since start (or clear), then accumulated. */
void
tp_show_fwd_stats(void)
{
	struct tp_eth_snap now, tot = { 0 };

	for (int i = 0; i < TP_SIDES; i++) {
		struct tp_eth_snap *s0 = &tp.start_stats[i];

		snap(tp.s[i].port, &now);
		printf("\n  ---------------------- Forward statistics for port %-2u ----------------------\n",
		       tp.s[i].port);
		printf("  RX-packets: %-14" PRIu64 " RX-dropped: %-14" PRIu64 "RX-total: %-" PRIu64 "\n",
		       now.ipackets - s0->ipackets, now.imissed - s0->imissed,
		       now.ipackets - s0->ipackets + now.imissed - s0->imissed);
		printf("  TX-packets: %-14" PRIu64 " TX-dropped: %-14" PRIu64 "TX-total: %-" PRIu64 "\n",
		       now.opackets - s0->opackets, now.oerrors - s0->oerrors,
		       now.opackets - s0->opackets + now.oerrors - s0->oerrors);
		printf("  ----------------------------------------------------------------------------\n");
		tot.ipackets += now.ipackets - s0->ipackets;
		tot.imissed += now.imissed - s0->imissed;
		tot.opackets += now.opackets - s0->opackets;
		tot.oerrors += now.oerrors - s0->oerrors;
	}
	printf("\n  +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++\n");
	printf("  RX-packets: %-14" PRIu64 " RX-dropped: %-14" PRIu64 "RX-total: %-" PRIu64 "\n",
	       tot.ipackets, tot.imissed, tot.ipackets + tot.imissed);
	printf("  TX-packets: %-14" PRIu64 " TX-dropped: %-14" PRIu64 "TX-total: %-" PRIu64 "\n",
	       tot.opackets, tot.oerrors, tot.opackets + tot.oerrors);
	printf("  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++\n");
	if (tp.size != 0) {
		printf("\n  RDMA:\n");
		tally(stdout);
	}
	faults_note();
}

void
tp_show_traffic(void)
{
	if (tp.size == 0) {
		printf("Traffic not started\n");
		return;
	}
	printf("Traffic %s -> %s:\n", tp.s[0].attr.name, tp.s[1].attr.name);
	tally(stdout);
}

int
tp_sleep(const char *arg)
{
	char *end;
	double s = strtod(arg, &end), until, next;

	if (end == arg || *end != '\0' || !(s >= 0 && s <= 3600)) {
		printf("Bad arguments: sleep <0..3600 seconds>\n");
		return -1;
	}
	until = ordk_env_now_s() + s;
	next = ordk_env_now_s() + 1;
	while (ordk_env_now_s() < until) {
		tp_step();
		if (tp.running && ordk_env_now_s() >= next) {
			next += 1;
			tally(stdout);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ show */

static void
show_addr(uint32_t ip, uint64_t mac)
{
	printf("  MAC address: %02X:%02X:%02X:%02X:%02X:%02X   IP: %u.%u.%u.%u\n",
	       (unsigned int)(mac >> 40) & 0xFF, (unsigned int)(mac >> 32) & 0xFF,
	       (unsigned int)(mac >> 24) & 0xFF, (unsigned int)(mac >> 16) & 0xFF,
	       (unsigned int)(mac >> 8) & 0xFF, (unsigned int)mac & 0xFF, ip >> 24, (ip >> 16) & 0xFF,
	       (ip >> 8) & 0xFF, ip & 0xFF);
}

void
tp_show_device(void)
{
	for (int i = 0; i < TP_SIDES; i++) {
		const struct ordk_dev_attr *a = &tp.s[i].attr;

		printf("\n********************* Infos for device %d  *********************\n", i);
		printf("  Name: %s   (bluesim over ethdev port %u, net_ring)\n", a->name, tp.s[i].port);
		show_addr(a->ip, a->mac);
		printf("  Max QPs: %u   Max WRs per QP: %u   Max SGE: %u\n", a->max_qp, a->max_qp_wr,
		       a->max_sge);
		printf("  Max CQs: %u   Max CQEs: %u   Max MRs: %u   Max MR size: %" PRIu64 "\n",
		       a->max_cq, a->max_cqe, a->max_mr, a->max_mr_size);
		printf("  Max message: %u   PGT entries: %u\n", a->max_msg_sz, a->pgt_entries);
		printf("  QPs in use: %u   Role: %s\n", tp.nqp, i == 0 ? "requester" : "responder");
	}
}

/* The side of ethdev port @p port, or -1 (testpmd: "Invalid port"). */
static int
side_of(int port)
{
	for (int i = 0; i < TP_SIDES; i++)
		if (tp.s[i].port == port)
			return i;
	printf("Invalid port %d\nValid port range is [%u, %u]\n", port, tp.s[0].port,
	       tp.s[TP_SIDES - 1].port);
	return -1;
}


void
tp_show_port_stats(int port)
{
	static const char *border = "########################";
	int only = port < 0 ? -1 : side_of(port);

	if (port >= 0 && only < 0)
		return;
	for (int i = 0; i < TP_SIDES; i++) {
		struct tp_eth_snap now, *last = &tp.last_show[i];
		struct rte_eth_stats st = { 0 };
		double t = ordk_env_now_s(), dt = t - tp.last_show_t[i];

		if (only >= 0 && i != only)
			continue;
		rte_eth_stats_get(tp.s[i].port, &st);
		snap(tp.s[i].port, &now);
		if (tp.last_show_t[i] == 0) /* testpmd: no earlier sample, the rates are 0 */
			*last = now;
		if (dt <= 0)
			dt = 1e-9;
		printf("\n  %s NIC statistics for port %-2u %s\n", border, tp.s[i].port, border);
		printf("  RX-packets: %-10" PRIu64 " RX-missed: %-10" PRIu64 " RX-bytes:  %-" PRIu64 "\n",
		       st.ipackets, st.imissed, st.ibytes);
		printf("  RX-errors: %-" PRIu64 "\n", st.ierrors);
		printf("  RX-nombuf:  %-10" PRIu64 "\n", st.rx_nombuf);
		printf("  TX-packets: %-10" PRIu64 " TX-errors: %-10" PRIu64 " TX-bytes:  %-" PRIu64 "\n",
		       st.opackets, st.oerrors, st.obytes);
		printf("\n  Throughput (since last show)\n");
		printf("  Rx-pps: %12" PRIu64 "          Rx-bps: %12" PRIu64 "\n"
		       "  Tx-pps: %12" PRIu64 "          Tx-bps: %12" PRIu64 "\n",
		       (uint64_t)((now.ipackets - last->ipackets) / dt),
		       (uint64_t)((now.ibytes - last->ibytes) * 8 / dt),
		       (uint64_t)((now.opackets - last->opackets) / dt),
		       (uint64_t)((now.obytes - last->obytes) * 8 / dt));
		printf("  %s############################%s\n", border, border);
		*last = now;
		tp.last_show_t[i] = t;
	}
	faults_note();
}

void
tp_show_port_info(int port)
{
	static const char *border = "*********************";
	int only = port < 0 ? -1 : side_of(port);

	if (port >= 0 && only < 0)
		return;
	for (int i = 0; i < TP_SIDES; i++) {
		struct rte_eth_dev_info di;
		struct rte_eth_link link = { 0 };
		struct rte_ether_addr mac;
		char name[RTE_ETH_NAME_MAX_LEN] = "?";
		uint16_t mtu = 0, p = tp.s[i].port;

		if (only >= 0 && i != only)
			continue;
		rte_eth_dev_info_get(p, &di);
		rte_eth_link_get_nowait(p, &link);
		rte_eth_macaddr_get(p, &mac);
		rte_eth_dev_get_name_by_port(p, name);
		rte_eth_dev_get_mtu(p, &mtu);
		/* testpmd's port_infos_display(), the lines that apply */
		printf("\n%s Infos for port %-2u %s\n", border, p, border);
		printf("MAC address: " RTE_ETHER_ADDR_PRT_FMT, RTE_ETHER_ADDR_BYTES(&mac));
		printf("\nDevice name: %s", name);
		printf("\nDriver name: %s", di.driver_name);
		printf("\nConnect to socket: %d", rte_eth_dev_socket_id(p));
		printf("\nLink status: %s\n", link.link_status ? "up" : "down");
		if (link.link_speed == RTE_ETH_SPEED_NUM_NONE)
			printf("Link speed: None\n");
		else
			printf("Link speed: %u Mbps\n", link.link_speed);
		printf("Link duplex: %s\n",
		       link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX ? "full-duplex" : "half-duplex");
		printf("MTU: %u\n", mtu);
		printf("Promiscuous mode: %s\n", rte_eth_promiscuous_get(p) ? "enabled" : "disabled");
		printf("Max possible RX queues: %u\nMax possible TX queues: %u\n", di.max_rx_queues,
		       di.max_tx_queues);
		printf("RDMA device on it: %s (%s)\n", tp.s[i].attr.name,
		       i == 0 ? "requester" : "responder");
	}
}

void
tp_show_port_xstats(void)
{
	for (int i = 0; i < TP_SIDES; i++) {
		printf("###### NIC extended statistics for port %-2u (%s, the model behind BAR0)\n",
		       tp.s[i].port, tp.s[i].attr.name);
		app_print_xstats(stdout, tp.s[i].dev, true);
		printf("###### ORDK transport counters of %s\n", tp.s[i].attr.name);
		{
			struct ordk_stats st;

			ordk_dev_stats(tp.s[i].dev, &st);
			app_print_stats(stdout, &st, true);
		}
	}
}

/* A QP's congestion control: its DCQCN state, and with @p params its device's parameters. */
static void
tp_show_qp_cc(const struct ordk_qp *qp, bool params)
{
	struct ordk_qp_cc cc;

	if (ordk_qp_cc_query(qp, &cc) != 0)
		return;
	if (cc.on)
		printf("    cc: rate %.3f Gb/s  target %.3f Gb/s  alpha %.4f  stage %s (t %u, bc %u)"
		       "  cnps %" PRIu64 "  rate changes %" PRIu64 "  paced %.3f ms\n",
		       cc.rate_bps / 1e9, cc.target_bps / 1e9, cc.alpha, cc.stage, cc.t_count,
		       cc.bc_count, cc.cnps, cc.rate_changes, (double)cc.limited_ns / 1e6);
	else
		printf("    cc: off\n");
	if (params)
		printf("    cc parameters (devargs cc_<key>): %s\n", cc.params);
}

void
tp_show_qp(bool one, uint32_t qpn)
{
	bool found = false;

	printf("  %-9s %-9s %-5s %-8s %-8s %-8s %6s %5s %6s %6s %6s %5s %8s %-11s %-8s %-8s %s\n",
	       "device", "QPN", "state", "next_psn", "acked", "exp_psn", "outst", "recv", "rtx",
	       "nak_rx", "nak_tx", "rnr", "timeouts", "requester", "timer", "hole", "probe");
	for (int i = 0; i < TP_SIDES; i++)
		for (uint32_t q = 0; q < tp.nqp; q++) {
			struct ordk_qp *qp = tp.s[i].qp[q];
			struct ordk_qp_info in;
			struct ordk_stats st;

			if (qp == NULL || (one && ordk_qp_num(qp) != qpn))
				continue;
			found = true;
			ordk_qp_info(qp, &in);
			ordk_qp_stats(qp, &st);
			printf("  %-9s 0x%06x  %-5s 0x%06x 0x%06x 0x%06x %6u %5u %6" PRIu64 " %6" PRIu64
			       " %6" PRIu64 " %5" PRIu64 " %8" PRIu64 " %-11s %-8s %-8s %s\n",
			       tp.s[i].attr.name, ordk_qp_num(qp), ordk_qp_state_str(in.state), in.next_psn,
			       in.acked_psn, in.expected_psn, in.send_outstanding, in.recv_posted,
			       st.retransmits, st.naks_received, st.naks_sent, st.rnr_waits, st.timeouts,
			       in.req_state, in.comp_state, in.hole_state, in.probe_state);
			tp_show_qp_cc(qp, true);
			if (one) {
				printf("  counters:\n");
				app_print_stats(stdout, &st, true);
			}
		}
	if (one && !found)
		printf("Invalid QP number 0x%06x: no such QP (see 'show qp')\n", qpn);
}

void
tp_show_mr(void)
{
	printf("  %-9s %-8s %-8s %-18s %-10s %s\n", "device", "lkey", "rkey", "address", "length",
	       "access");
	for (int i = 0; i < TP_SIDES; i++) {
		const struct ordk_mr *m = tp.s[i].mr;

		printf("  %-9s 0x%06x 0x%06x %#-18" PRIx64 " %-10zu %s%s%s%s\n", tp.s[i].attr.name, m->lkey,
		       m->rkey, (uint64_t)(uintptr_t)m->addr, m->length,
		       m->access & ORDK_ACCESS_LOCAL_WRITE ? "LW " : "",
		       m->access & ORDK_ACCESS_REMOTE_WRITE ? "RW " : "",
		       m->access & ORDK_ACCESS_REMOTE_READ ? "RR " : "",
		       m->access & ORDK_ACCESS_REMOTE_ATOMIC ? "RA" : "");
	}
}

void
tp_show_cq(void)
{
	printf("  %-9s %-6s %-5s %-14s %s\n", "device", "CQEs", "QPs", "completions", "errors");
	for (int i = 0; i < TP_SIDES; i++)
		printf("  %-9s %-6u %-5u %-14" PRIu64 " %" PRIu64 "\n", tp.s[i].attr.name, tp.s[i].cqe,
		       tp.nqp, tp.s[i].cq_polled, tp.s[i].cq_errors);
}

int
tp_set_fault(const char *kind, const char *rate, const char *dir)
{
	char spec[128], *end;
	double r = strtod(rate, &end);

	if (end == rate || *end != '\0' || !(r >= 0 && r <= 1)) {
		printf("Bad arguments: rate '%s' is not a probability in [0, 1]\n", rate);
		return -1;
	}
	snprintf(spec, sizeof(spec), "%s%s%s:%s", kind, dir ? "-" : "", dir ? dir : "", rate);
	for (int i = 0; i < TP_SIDES; i++)
		if (ordk_dev_set_faults(tp.s[i].dev, spec) != 0) {
			printf("Cannot set fault '%s' on %s\n", spec, tp.s[i].attr.name);
			return -1;
		}
	{
		/* remember it (one slot per kind and direction; rate 0 clears) */
		size_t klen = strcspn(spec, ":"), free_slot = SIZE_MAX, k;

		for (k = 0; k < sizeof(tp.faults) / sizeof(tp.faults[0]); k++) {
			if (strncmp(tp.faults[k], spec, klen) == 0 && tp.faults[k][klen] == ':')
				break;
			if (tp.faults[k][0] == '\0' && free_slot == SIZE_MAX)
				free_slot = k;
		}
		if (k == sizeof(tp.faults) / sizeof(tp.faults[0]))
			k = free_slot;
		if (k != SIZE_MAX)
			snprintf(tp.faults[k], sizeof(tp.faults[k]), "%.39s", r > 0 ? spec : "");
	}
	printf("Fault %s set on every device (%s)\n", spec,
	       dir ? (strcmp(dir, "rx") == 0 ? "frames received" : "frames sent") :
		     "frames sent and received");
	return 0;
}

void
tp_clear_port_stats(int port)
{
	int only = port < 0 ? -1 : side_of(port);

	if (port >= 0 && only < 0)
		return;
	for (int i = 0; i < TP_SIDES; i++) {
		if (only >= 0 && i != only)
			continue;
		ordk_dev_stats_reset(tp.s[i].dev);
		rte_eth_stats_reset(tp.s[i].port);
		snap(tp.s[i].port, &tp.last_show[i]);
		snap(tp.s[i].port, &tp.start_stats[i]);
		tp.last_show_t[i] = ordk_env_now_s();
		tp.s[i].cq_polled = tp.s[i].cq_errors = 0;
		printf("\n  NIC statistics for port %u cleared\n", tp.s[i].port); /* testpmd's */
	}
	if (only < 0) {
		tp.done = tp.bytes = tp.errors = 0;
		tp.t0 = ordk_env_now_s();
	}
	faults_note(); /* cleared counters, not the faults: say so */
}

void
tp_clear_stats(void)
{
	tp_clear_port_stats(-1);
}
