/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The congestion test switch over net_ring ports in this process: forwarding,
 * CE marking with a valid IPv4 checksum, tail drop and shaping on a virtual
 * clock, flooding, the trace; then two bluesim devices talking RC through it
 * (the in-process rig the incast benchmark builds on).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "func_common.h"
#include "blue_wire.h"
#include "sim_host.h"
#include "sw_switch.h"

#define HOSTS 3

static struct rte_mempool *pool;

/* Switch ports sp[i] wired to host ports hp[i]; host i has MAC 02:00:00:00:01:0i. */
static void
wire(const char *name, unsigned int n, uint16_t *sp, uint16_t *hp)
{
	test_eal_init(NULL);
	if (pool == NULL)
		pool = test_pool("swpool", 8191);
	for (unsigned int i = 0; i < n; i++) {
		char nm[32];

		snprintf(nm, sizeof(nm), "%s%u_", name, i);
		test_ring_pair(nm, false, &sp[i], &hp[i], NULL);
		test_port_start(sp[i], pool);
		test_port_start(hp[i], pool);
	}
}

static void
unwire(unsigned int n, const uint16_t *sp, const uint16_t *hp)
{
	for (unsigned int i = 0; i < n; i++) {
		rte_eth_dev_stop(sp[i]);
		rte_eth_dev_close(sp[i]);
		rte_eth_dev_stop(hp[i]);
		rte_eth_dev_close(hp[i]);
	}
}

static uint64_t
host_mac(unsigned int i)
{
	return 0x020000000100ull | i;
}

static void
put_mac(struct rte_ether_addr *a, uint64_t v)
{
	for (int k = RTE_ETHER_ADDR_LEN - 1; k >= 0; k--, v >>= 8)
		a->addr_bytes[k] = (uint8_t)v;
}

/* A @p len-byte IPv4/UDP frame from host @p src to host @p dst, ECN field @p ecn. */
static struct rte_mbuf *
frame(unsigned int src, unsigned int dst, uint16_t len, uint8_t ecn, uint16_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;

	cr_assert_not_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	cr_assert_not_null(eh);
	memset(eh, 0, len);
	put_mac(&eh->src_addr, host_mac(src));
	put_mac(&eh->dst_addr, host_mac(dst));
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = 0x45;
	ip->type_of_service = (uint8_t)(26 << 2 | ecn); /* DSCP 26 kept under the mark */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eh)));
	ip->packet_id = rte_cpu_to_be_16(seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0A000001u + src);
	ip->dst_addr = rte_cpu_to_be_32(0x0A000001u + dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static void
send_host(uint16_t hp, struct rte_mbuf *m)
{
	cr_assert_eq(rte_eth_tx_burst(hp, 0, &m, 1), 1);
}

/* Receive what host port @p hp has; ECN and IP id of each into @p ecn / @p id. */
static int
recv_host(uint16_t hp, uint8_t *ecn, uint16_t *id, int max)
{
	struct rte_mbuf *m[64];
	int n = rte_eth_rx_burst(hp, 0, m, 64), got = 0;

	for (int i = 0; i < n; i++) {
		struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m[i], struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
		uint16_t ck = ip->hdr_checksum;

		if (got < max) {
			ip->hdr_checksum = 0;
			cr_assert_eq(rte_ipv4_cksum(ip), ck,
				     "IPv4 checksum valid after the switch");
			cr_assert_eq(ip->type_of_service >> 2, 26, "DSCP untouched");
			ecn[got] = ip->type_of_service & 3;
			id[got] = rte_be_to_cpu_16(ip->packet_id);
			got++;
		}
		rte_pktmbuf_free(m[i]);
	}
	return got;
}

/* fcs: a marked frame's CRC-32 trailer (bluesim's fcs=1) is rewritten, so the receiver keeps it */
Test(switch, mark_rewrites_the_fcs_trailer, .timeout = 60)
{
	uint16_t sp[HOSTS], hp[HOSTS];
	struct sw_switch sw;
	struct sw_queue_cfg c;
	struct rte_mbuf *m[4];
	char err[128];
	int n;

	wire("swf", HOSTS, sp, hp);
	sw_queue_cfg_default(&c);
	cr_assert_eq(sw_queue_cfg_parse(&c, "aqm=step,k=0", err, sizeof(err)), 0, "%s", err);
	for (int fcs = 0; fcs <= 1; fcs++) {
		cr_assert_eq(sw_switch_init(&sw, sp, HOSTS, &c, 0), 0);
		sw.fcs = fcs;
		for (unsigned int i = 0; i < HOSTS; i++)
			cr_assert_eq(sw_switch_add_mac(&sw, host_mac(i), i), 0);
		/* a static entry is a station's: group addresses are refused, never looked up */
		cr_assert_eq(sw_switch_add_mac(&sw, 0xFFFFFFFFFFFFull, 0), -EINVAL, "broadcast");
		cr_assert_eq(sw_switch_add_mac(&sw, 0x01005E000001ull, 0), -EINVAL, "multicast");
		cr_assert_eq(sw_switch_add_mac(&sw, 0, 0), -EINVAL, "zero");
		for (uint16_t s = 0; s < 2; s++) { /* the second finds a queue: marked */
			struct rte_mbuf *f = frame(0, 2, 200, 2, s);
			uint8_t *p = rte_pktmbuf_mtod(f, uint8_t *);

			cr_assert_eq(blue_wire_fcs_append(p, 196, 200), 200);
			send_host(hp[0], f);
		}
		sw_switch_poll(&sw, 0);
		n = rte_eth_rx_burst(hp[2], 0, m, 4);
		cr_assert_eq(n, 2);
		for (int i = 0; i < n; i++) {
			const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint32_t got = (uint32_t)p[196] | (uint32_t)p[197] << 8 |
				       (uint32_t)p[198] << 16 | (uint32_t)p[199] << 24;

			cr_assert_eq(p[15] & 3, i == 0 ? 2 : 3, "ECN of frame %d", i);
			cr_assert_eq(blue_wire_crc32(p, 196) == got, i == 0 || fcs,
				     "fcs=%d frame %d: trailer %s", fcs, i,
				     fcs ? "rewritten" : "left as it was");
			rte_pktmbuf_free(m[i]);
		}
		sw_switch_fini(&sw);
	}
	unwire(HOSTS, sp, hp);
}

Test(switch, forwards_marks_drops_and_shapes_on_a_virtual_clock, .timeout = 60)
{
	uint16_t sp[HOSTS], hp[HOSTS], id[64];
	uint8_t ecn[64];
	struct sw_switch sw;
	struct sw_queue_cfg c;
	int got = 0;
	char err[128];

	wire("swa", HOSTS, sp, hp);
	sw_queue_cfg_default(&c);
	cr_assert_eq(sw_queue_cfg_parse(&c, "rate=1M,burst=2000,cap=10000,aqm=step,k=1500", err,
					sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(sw_switch_init(&sw, sp, HOSTS, &c, 0), 0);
	for (unsigned int i = 0; i < HOSTS; i++)
		cr_assert_eq(sw_switch_add_mac(&sw, host_mac(i), i), 0);

	/* 12 frames of 1000 bytes, 0 -> 2, ECT(0): 10 fit (cap 10000), 2 are tail-dropped;
	 * arrivals see depths 0..9000, so the 8 above k = 1500 are marked */
	for (uint16_t s = 0; s < 12; s++)
		send_host(hp[0], frame(0, 2, 1000, 2, s));
	sw_switch_poll(&sw, 0);
	got = recv_host(hp[2], ecn, id, 64);
	cr_assert_eq(got, 2, "the 2000-byte burst leaves at t = 0 (got %d)", got);
	cr_assert_eq(ecn[0], 2);
	cr_assert_eq(ecn[1], 2);
	sw_switch_poll(&sw, 999000);
	cr_assert_eq(recv_host(hp[2], ecn, id, 64), 0, "999 bytes of credit after 999 us");
	sw_switch_poll(&sw, 1000000);
	cr_assert_eq(recv_host(hp[2], ecn, id, 64), 1, "one frame after 1 ms");
	cr_assert_eq(ecn[0], 3, "CE on the third frame");
	cr_assert_eq(id[0], 2, "in order");
	/* one frame per ms after that: the bucket holds 2000 bytes, not the 7000 owed by 8 ms */
	got = 0;
	for (uint64_t t = 2000000; t <= 8000000; t += 1000000) {
		sw_switch_poll(&sw, t);
		cr_assert_eq(recv_host(hp[2], ecn + got, id + got, 64 - got), 1, "t = %lu ns",
			     (unsigned long)t);
		got++;
	}
	for (int i = 0; i < got; i++) {
		cr_assert_eq(ecn[i], 3);
		cr_assert_eq(id[i], 3 + i);
	}
	cr_assert_eq(recv_host(hp[1], ecn, id, 64), 0, "nothing leaks to host 1");
	cr_assert_eq(sw.port[2].q.st.enqueued, 10);
	cr_assert_eq(sw.port[2].q.st.marked, 8);
	cr_assert_eq(sw.port[2].q.st.dropped_full, 2);
	cr_assert_eq(sw.port[2].q.st.sent, 10);
	cr_assert_eq(sw.port[0].st.rx, 12);

	/* an unknown destination floods (shaped too); the source is learnt */
	char *buf = NULL;
	size_t blen = 0;
	FILE *tr = open_memstream(&buf, &blen);

	sw_switch_trace(&sw, tr, 1000, 9000000);
	send_host(hp[1], frame(1, 7, 100, 0, 99));
	sw_switch_poll(&sw, 9000000);
	cr_assert_eq(recv_host(hp[0], ecn, id, 64), 1);
	cr_assert_eq(recv_host(hp[2], ecn, id, 64), 1);
	cr_assert_eq(ecn[0], 0, "Not-ECT is never marked (not_ect=pass)");
	cr_assert_eq(sw.port[1].st.flooded, 1);
	fclose(tr);
	cr_assert_str_eq(buf, "9000000,port0,queue_bytes,0\n9000000,port1,queue_bytes,0\n"
			      "9000000,port2,queue_bytes,0\n");
	free(buf);
	sw_switch_print_stats(&sw, stderr);
	sw_switch_fini(&sw);
	unwire(HOSTS, sp, hp);
}

/* An unshaped port sends all it holds in one poll, not one burst of 32. */
Test(switch, unshaped_port_drains_in_one_poll, .timeout = 60)
{
	uint16_t sp[HOSTS], hp[HOSTS], id[64];
	uint8_t ecn[64];
	struct sw_switch sw;
	struct sw_queue_cfg c;

	wire("swc", HOSTS, sp, hp);
	sw_queue_cfg_default(&c);
	c.aqm = SW_AQM_NONE;
	cr_assert_eq(sw_switch_init(&sw, sp, HOSTS, &c, 0), 0);
	for (unsigned int i = 0; i < HOSTS; i++)
		cr_assert_eq(sw_switch_add_mac(&sw, host_mac(i), i), 0);
	for (uint16_t k = 0; k < 32; k++) {
		send_host(hp[0], frame(0, 1, 200, 2, k));
		send_host(hp[2], frame(2, 1, 200, 2, (uint16_t)(100 + k)));
	}
	sw_switch_poll(&sw, 0);
	cr_assert_eq(sw.port[1].q.st.enqueued, 64);
	cr_assert_eq(sw.port[1].q.st.sent, 64, "sent %lu of 64",
		     (unsigned long)sw.port[1].q.st.sent);
	cr_assert_eq(recv_host(hp[1], ecn, id, 64), 64);
	sw_switch_fini(&sw);
	unwire(HOSTS, sp, hp);
}

static uint64_t
now_ns(void)
{
	return (uint64_t)((double)rte_get_timer_cycles() * 1e9 / (double)rte_get_timer_hz());
}

/*
 * Two bluesim devices, each on its own port of the switch, one poll loop for
 * all three. Every frame is marked CE (step k = 0 over any queued byte,
 * not_ect=mark), so the receiver also proves the rewritten checksum is valid.
 */
Test(switch, bluesim_rc_write_through_the_switch, .timeout = 120)
{
	uint16_t sp[2], hp[2];
	struct func_side s[2];
	struct sw_switch sw;
	struct sw_queue_cfg c;
	struct ordk_wc wc;
	const uint32_t len = 256u << 10;
	struct ordk_send_wr wr = {.wr_id = 7,
				  .opcode = ORDK_WR_RDMA_WRITE,
				  .send_flags = ORDK_SEND_SIGNALED,
				  .num_sge = 1};
	char err[128];
	double end;
	int got = 0;

	wire("swb", 2, sp, hp);
	memset(s, 0, sizeof(s));
	for (int i = 0; i < 2; i++) {
		char args[128];

		snprintf(args, sizeof(args), "bluesim,port=%u,mac=02:00:00:00:02:%02x,ip=10.0.2.%d",
			 hp[i], i + 1, i + 1);
		uint8_t *buf = test_aligned(1 << 21, len);

		for (uint32_t k = 0; k < len; k++)
			buf[k] = (uint8_t)(i ? 0 : k * 13 + 5);
		ordk_env_ep_open(&s[i].ep, args, 1024, buf, len,
				 ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE);
		cr_assert_not_null(s[i].dev, "%s: %s", args, rte_strerror(rte_errno));
		cr_assert(s[i].pd && s[i].cq && s[i].mr);
		struct ordk_qp_init_attr ia = {.send_cq = s[i].cq,
					       .recv_cq = s[i].cq,
					       .max_send_wr = 16,
					       .max_recv_wr = 16};
		s[i].qp = ordk_qp_create(s[i].pd, &ia);
		cr_assert_not_null(s[i].qp);
	}
	func_connect(&s[0], s[0].qp, &s[1], s[1].qp, ORDK_MTU_4096);
	sw_queue_cfg_default(&c);
	cr_assert_eq(sw_queue_cfg_parse(&c, "rate=20M,aqm=step,k=0,not_ect=mark", err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(sw_switch_init(&sw, sp, 2, &c, now_ns()), 0);

	wr.sge = (struct ordk_sge){(uint64_t)(uintptr_t)s[0].buf, len, s[0].mr->lkey};
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)s[1].buf;
	wr.rdma.rkey = s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(s[0].qp, &wr, 1), 1);
	end = test_now_s() + 60;
	while (got == 0 && test_now_s() < end) {
		ordk_dev_poll(s[0].dev, 64);
		ordk_dev_poll(s[1].dev, 64);
		sw_switch_poll(&sw, now_ns());
		got = ordk_cq_poll(s[0].cq, &wc, 1);
		cr_assert_geq(got, 0);
	}
	if (got == 0)
		sw_switch_print_stats(&sw, stderr);
	cr_assert_eq(got, 1, "the WRITE completes through the switch");
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(memcmp(s[0].buf, s[1].buf, len), 0, "data equal byte for byte");
	cr_assert_geq(sw.port[1].q.st.sent, len / 4096, "the data crossed port 1");
	cr_assert_gt(sw.port[1].q.st.marked, 0, "and was marked CE on the way");
	cr_assert_gt(sw.port[0].q.st.sent, 0, "ACKs came back through port 0");

	sw_switch_fini(&sw);
	for (int i = 0; i < 2; i++) {
		uint8_t *buf = s[i].buf; /* ours: the endpoint does not free it */

		cr_assert_eq(ordk_qp_destroy(s[i].qp), 0);
		cr_assert_eq(ordk_env_ep_close(&s[i].ep), 0);
		free(buf);
	}
	unwire(2, sp, hp);
}
