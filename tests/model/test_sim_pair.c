/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two models joined by a net_ring pair: WRITEs byte-exact in both directions,
 * fault injection counted exactly, capture. And devargs parsing.
 */
#include <criterion/criterion.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_host.h"

#define LEN (1u << 20)

struct side {
	struct sim_host h;
	uint8_t *buf;
	uint64_t mac;
	uint32_t ip, qpn, key;
};

static struct side A, B;

static void
side_init(struct side *s, uint16_t port, uint64_t mac, uint32_t ip, uint32_t qpn, uint32_t key,
	  const char *pcap)
{
	struct bluesim_config cfg;

	bluesim_config_defaults(&cfg);
	cfg.port_id = port;
	cfg.pcap_path = pcap;
	sim_host_init(&s->h, &cfg);
	sim_host_start(&s->h, mac, ip);
	s->mac = mac;
	s->ip = ip;
	s->qpn = qpn;
	s->key = key;
	s->buf = test_aligned(1 << 21, LEN);
	for (uint32_t i = 0; i < LEN; i++)
		s->buf[i] = (uint8_t)(i * 7 + (ip & 0xFF));
	cr_assert(sim_host_reg_mr(&s->h, key, s->buf, LEN, BLUE_ACC_ALL, 0));
}

static void
side_connect(struct side *s, const struct side *peer)
{
	cr_assert(sim_host_qp(&s->h, s->qpn, peer->qpn, peer->ip, peer->mac, BLUE_PMTU_4096,
			      BLUE_ACC_ALL));
}

static void
setup_pair(const char *pcap)
{
	uint16_t p0, p1;
	struct rte_mempool *mp;

	test_eal_init(NULL);
	mp = test_pool("pair_pool", 4095);
	test_ring_pair("pw", false, &p0, &p1, NULL);
	test_port_start(p0, mp);
	test_port_start(p1, mp);
	side_init(&A, p0, 0x020000000001ull, 0x0A000001, 0x000101, 0x00001101, pcap);
	side_init(&B, p1, 0x020000000002ull, 0x0A000002, 0x000201, 0x00002201, NULL);
	side_connect(&A, &B);
	side_connect(&B, &A);
}

/* WRITE [off, off+len) of the source's buffer to the same place in the peer's. */
static void
post_write(struct side *s, const struct side *peer, uint32_t off, uint32_t len, uint32_t psn)
{
	struct blue_send_item it = {
		.opcode = BLUE_WR_RDMA_WRITE, .valid = 1, .msn = 1, .total_len = len,
		.rkey = peer->key, .dqp_ip = peer->ip,
		.raddr = (uint64_t)(uintptr_t)peer->buf + off, .psn = psn,
		.qp_type = BLUE_QPT_RC, .dqpn = peer->qpn, .flags = BLUE_SEND_SIGNALED,
		.pmtu = BLUE_PMTU_4096, .is_first = 1, .is_last = 1, .sqpn = s->qpn,
		.dst_mac = peer->mac, .lkey = s->key, .len = len,
		.laddr = (uint64_t)(uintptr_t)s->buf + off,
	};

	sim_host_send(&s->h, &it);
}

static int
drain_reports(struct side *s, int *last_seen)
{
	struct blue_meta_report r;
	int n = 0;

	while (sim_host_meta(&s->h, &r) > 0) {
		if (r.kind == BLUE_META_HEADER_WRITE &&
		    (r.opcode == BLUE_OP_WRITE_LAST || r.opcode == BLUE_OP_WRITE_ONLY))
			(*last_seen)++;
		n++;
	}
	return n;
}

Test(sim_pair, writes_both_ways_byte_exact, .timeout = 60)
{
	int a_last = 0, b_last = 0;
	uint8_t *wantA = malloc(LEN), *wantB = malloc(LEN);

	setup_pair(NULL);
	memcpy(wantA, B.buf, LEN); /* A's buffer will hold B's bytes, and the other way */
	memcpy(wantB, A.buf, LEN);
	/* 16 items of 64 KiB each way, PSNs contiguous, remote offsets unaligned at the end */
	for (uint32_t i = 0; i < 16; i++) {
		post_write(&A, &B, i * 65536, 65536, i * 16);
		post_write(&B, &A, i * 65536, 65536, i * 16);
	}
	for (int round = 0; round < 20000 && (a_last < 16 || b_last < 16); round++) {
		bluesim_poll(A.h.sim, 64);
		bluesim_poll(B.h.sim, 64);
		drain_reports(&A, &a_last);
		drain_reports(&B, &b_last);
	}
	cr_assert_eq(b_last, 16, "B saw every WRITE's last packet");
	cr_assert_eq(a_last, 16);
	cr_assert_eq(memcmp(B.buf, wantB, LEN), 0, "B's buffer byte-exact");
	cr_assert_eq(memcmp(A.buf, wantA, LEN), 0, "A's buffer byte-exact");
	cr_assert_eq(bluesim_xstat(B.h.sim, "loss_detected"), 0);
	cr_assert_eq(bluesim_xstat(A.h.sim, "tx_packets"), 256);
	cr_assert_eq(bluesim_xstat(B.h.sim, "rx_rdma"), 256);
	free(wantA);
	free(wantB);
}

/* Every injected fault shows in the peer's counters, exactly. */
Test(sim_pair, faults_are_counted_exactly, .timeout = 60)
{
	struct bluesim_fault_cfg f = { .seed = 42, .reorder_depth = 3, .delay_us = 50 };
	int a_last = 0, b_last = 0;
	uint64_t sent, got, dropped, dups, corrupt;

	setup_pair(NULL);
	f.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_DROP] = 0.05;
	f.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_DUP] = 0.05;
	f.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_CORRUPT] = 0.05;
	f.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_REORDER] = 0.05;
	f.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_DELAY] = 0.05;
	bluesim_set_faults(A.h.sim, &f);
	for (uint32_t i = 0; i < 16; i++)
		post_write(&A, &B, i * 65536, 65536, i * 16);
	for (int round = 0; round < 20000; round++) {
		A.h.now_ns += 1000; /* the model's clock moves 1 us per round */
		B.h.now_ns += 1000;
		bluesim_poll(A.h.sim, 64);
		bluesim_poll(B.h.sim, 64);
		drain_reports(&A, &a_last);
		drain_reports(&B, &b_last);
	}
	sent = bluesim_xstat(A.h.sim, "tx_packets") + bluesim_xstat(A.h.sim, "loss_acks_sent") +
	       bluesim_xstat(A.h.sim, "tx_simple_nic");
	got = bluesim_xstat(B.h.sim, "rx_frames") + bluesim_xstat(B.h.sim, "rx_fcs_error");
	dropped = bluesim_xstat(A.h.sim, "fault_tx_drop");
	dups = bluesim_xstat(A.h.sim, "fault_tx_dup");
	corrupt = bluesim_xstat(A.h.sim, "fault_tx_corrupt");
	cr_assert_gt(dropped, 0);
	cr_assert_gt(dups, 0);
	cr_assert_gt(corrupt, 0);
	cr_assert_gt(bluesim_xstat(A.h.sim, "fault_tx_reorder"), 0);
	cr_assert_gt(bluesim_xstat(A.h.sim, "fault_tx_delay"), 0);
	cr_assert_eq(got, sent - dropped + dups, "every frame accounted for: %lu sent %lu got",
		     (unsigned long)sent, (unsigned long)got);
	/* a flipped byte never survives the FCS (a dup of a corrupted frame is corrupted too) */
	cr_assert_geq(bluesim_xstat(B.h.sim, "rx_fcs_error"), corrupt);
	cr_assert_gt(bluesim_xstat(B.h.sim, "loss_detected"), 0, "drops show as loss on the card");
	cr_assert_gt(bluesim_xstat(B.h.sim, "loss_acks_sent"), 0);
}

Test(sim_pair, capture_holds_every_frame_sent_and_received, .timeout = 60)
{
	char path[] = "/tmp/ordk-cap-XXXXXX";
	char err[PCAP_ERRBUF_SIZE];
	int fd = mkstemp(path), a_last = 0, b_last = 0;
	struct pcap_pkthdr *ph;
	const u_char *data;
	uint64_t frames = 0;
	pcap_t *p;

	close(fd);
	setup_pair(path);
	post_write(&A, &B, 0, 65536, 0);
	post_write(&B, &A, 0, 8192, 0);
	for (int round = 0; round < 2000; round++) {
		bluesim_poll(A.h.sim, 64);
		bluesim_poll(B.h.sim, 64);
		drain_reports(&A, &a_last);
		drain_reports(&B, &b_last);
	}
	sim_host_fini(&A.h); /* closes the capture */
	p = pcap_open_offline(path, err);
	cr_assert_not_null(p, "%s", err);
	while (pcap_next_ex(p, &ph, &data) == 1) {
		struct blue_wire_rdma w;

		cr_assert_eq(blue_wire_rdma_parse(data, ph->caplen, 0, &w), 0,
			     "captured frames are the card's frames, without the trailer");
		frames++;
	}
	pcap_close(p);
	unlink(path);
	cr_assert_eq(frames, 16 + 2, "16 sent + 2 received");
}

Test(sim_pair, devargs)
{
	struct bluesim_config c;
	char keep[256], err[128];

	test_eal_init(NULL);
	bluesim_config_defaults(&c);
	cr_assert_eq(bluesim_parse_devargs("port=loopback,fault=drop:0.01,dup-rx:0.5,corrupt-tx:1,"
					   "seed=7,fcs=0,idle_us=5,pcap=/tmp/x.pcapng,"
					   "reorder_depth=4,delay_us=9",
					   &c, keep, sizeof(keep), err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(c.port_id, BLUESIM_PORT_LOOPBACK);
	cr_assert_float_eq(c.fault.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_DROP], 0.01, 1e-12);
	cr_assert_float_eq(c.fault.rate[BLUESIM_DIR_RX][BLUESIM_FAULT_DROP], 0.01, 1e-12);
	cr_assert_float_eq(c.fault.rate[BLUESIM_DIR_RX][BLUESIM_FAULT_DUP], 0.5, 1e-12);
	cr_assert_float_eq(c.fault.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_DUP], 0.0, 1e-12);
	cr_assert_float_eq(c.fault.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_CORRUPT], 1.0, 1e-12);
	cr_assert_eq(c.fault.seed, 7);
	cr_assert_eq(c.fcs, false);
	cr_assert_eq(c.idle_timeout_ns, 5000);
	cr_assert_str_eq(c.pcap_path, "/tmp/x.pcapng");
	cr_assert_eq(c.fault.reorder_depth, 4);
	cr_assert_eq(c.fault.delay_us, 9);

	static const char *const bad[] = {
		"fault=drop", "fault=explode:0.1", "fualt=drop:0.01", "mac=02:00:00:00:00:01",
		"fault=[drop:0.01", "port", "fault=drop:2",
		"fault=drop:x", "fault=drop-up:0.1", "seed=-1", "fcs=2", "idle_us=0", "pcap=",
		"garbage", "reorder_depth=0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		bluesim_config_defaults(&c);
		cr_assert_eq(bluesim_parse_devargs(bad[i], &c, keep, sizeof(keep), err, sizeof(err)),
			     -EINVAL, "%s accepted", bad[i]);
		cr_assert_neq(err[0], '\0', "%s: no message", bad[i]);
	}
	cr_assert_eq(bluesim_parse_devargs("fault=drop:0.1", &c, keep, 8, err, sizeof(err)),
		     -EINVAL, "too long for the buffer");
	/* the key is named; mac= is the driver's key, not the model's */
	cr_assert_eq(bluesim_parse_devargs("port=loopback,fualt=drop:0.01", &c, keep, sizeof(keep),
					   err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "unknown key 'fualt'") != NULL, "%s", err);
	cr_assert_eq(bluesim_parse_devargs("port=nosuchport", &c, keep, sizeof(keep), err,
					   sizeof(err)), -ENODEV, "an error value, not a message");
	/* rte_kvargs' list brackets, and the older spelling read the same way */
	bluesim_config_defaults(&c);
	cr_assert_eq(bluesim_parse_devargs("fault=[drop:0.02,dup-rx:0.25],seed=3", &c, keep,
					   sizeof(keep), err, sizeof(err)), 0, "%s", err);
	cr_assert_float_eq(c.fault.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_DROP], 0.02, 1e-12);
	cr_assert_float_eq(c.fault.rate[BLUESIM_DIR_RX][BLUESIM_FAULT_DUP], 0.25, 1e-12);
	cr_assert_eq(c.fault.seed, 3);
}
