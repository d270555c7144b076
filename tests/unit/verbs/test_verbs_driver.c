/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs over a second driver: a tiny pure-software one ("fake": RDMA
 * WRITE as a memcpy between two QPs of one device), registered through this
 * build's driver table, with lib/verbs unchanged and no Blue code linked.
 * It drives every object through the public API and checks that the library
 * does its part (handles, argument checks, the transition table, CQs, QP
 * table, counters) and hands the rest to the driver's ops.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "log_capture.h"
#include "ordk_driver.h"
#include "ordk_verbs.h"
#include "ut_stub.h"

struct fake_dev {
	struct verbs_dev v;
	unsigned int polls;
	uint64_t idle_ns;
	uint32_t next_key, next_qpn;
};

struct fake_qp {
	struct verbs_qp v;
	struct ordk_wc done[8];
	uint32_t ndone;
	uint32_t modifies;
};

struct fake_mr {
	struct verbs_mr v;
};

static struct fake_dev *
fdev(struct ordk_dev *dev)
{
	return (struct fake_dev *)dev;
}

static struct fake_qp *
fqp(struct ordk_qp *qp)
{
	return (struct fake_qp *)qp;
}

static int
fake_open(struct ordk_dev *dev, const char *args)
{
	if (strcmp(args, "ok") != 0)
		return -ENODEV;
	snprintf(fdev(dev)->v.name, sizeof(fdev(dev)->v.name), "fake0");
	fdev(dev)->next_key = 0x100;
	fdev(dev)->next_qpn = 2; /* 0 and 1 are IBA's special QPs, no RC QP's peer */
	return 0;
}

DEFINE_STATIC_STUB_V(fake_close, (struct ordk_dev *dev));

static void
fake_query(const struct ordk_dev *dev, struct ordk_dev_attr *a)
{
	(void)dev;
	a->max_qp = 4;
	a->max_qp_wr = 8;
	a->max_mr = 4;
	a->max_mr_size = 1 << 20;
	a->max_sge = 1;
}

/* completions wait in the QP until the device is polled */
static unsigned int
fake_poll(struct ordk_dev *dev, unsigned int budget)
{
	unsigned int work = 0;

	(void)budget;
	fdev(dev)->polls++;
	for (uint32_t n = 2; n < fdev(dev)->next_qpn; n++) {
		struct ordk_qp *qp = verbs_qp_lookup(dev, n);

		for (uint32_t i = 0; qp != NULL && i < fqp(qp)->ndone; i++, work++)
			verbs_cq_push(fqp(qp)->v.scq, &fqp(qp)->done[i]);
		if (qp != NULL)
			fqp(qp)->ndone = 0;
	}
	return work;
}

static int
fake_mr_reg(struct ordk_dev *dev, struct verbs_mr *mr)
{
	mr->pub.lkey = mr->pub.rkey = fdev(dev)->next_key++;
	return 0;
}

DEFINE_STATIC_STUB(fake_mr_dereg, int, (struct ordk_dev *dev, struct verbs_mr *mr), 0);

static int
fake_qp_create(struct ordk_qp *qp)
{
	struct fake_dev *d = fdev(fqp(qp)->v.dev);

	if (d->next_qpn > 5)
		return -ENOSPC;
	fqp(qp)->v.qpn = d->next_qpn++;
	return 0;
}

DEFINE_STATIC_STUB(fake_qp_destroy, int, (struct ordk_qp *qp), 0);

static int
fake_qp_check(const struct ordk_qp *qp, const struct ordk_qp_attr *a, unsigned int mask)
{
	(void)qp;
	return (mask & ORDK_QP_TIMEOUT) && a->timeout == 13 ? -ENOTSUP : 0; /* its own limit */
}

static int
fake_qp_modify(struct ordk_qp *qp, enum ordk_qp_state cur, enum ordk_qp_state next)
{
	(void)cur;
	(void)next;
	fqp(qp)->modifies++;
	return 0;
}

static void
fake_qp_flush(struct ordk_qp *qp)
{
	fqp(qp)->ndone = 0;
}

static void
fake_qp_info(const struct ordk_qp *qp, struct ordk_qp_info *info)
{
	info->send_outstanding = ((const struct fake_qp *)qp)->ndone;
}

/* RDMA WRITE: a memcpy to the peer QP's memory, completed at the next poll */
static int
fake_post_send(struct ordk_qp *qp, const struct ordk_send_wr *wr)
{
	struct fake_qp *q = fqp(qp);

	if (wr->opcode != ORDK_WR_RDMA_WRITE || q->ndone == 8)
		return -EINVAL;
	memcpy((void *)(uintptr_t)wr->rdma.remote_addr, (void *)(uintptr_t)wr->sge.addr,
	       wr->sge.length);
	q->done[q->ndone++] = (struct ordk_wc){ .wr_id = wr->wr_id, .status = ORDK_WC_SUCCESS,
						.opcode = ORDK_WC_RDMA_WRITE,
						.byte_len = wr->sge.length, .qp_num = q->v.qpn };
	q->v.st.wr_posted++;
	return 0;
}

DEFINE_STATIC_STUB(fake_post_recv, int, (struct ordk_qp *qp, const struct ordk_recv_wr *wr),
		   -ENOTSUP);
DEFINE_STATIC_STUB_V(fake_post_done, (struct ordk_qp *qp));

static void
fake_idle(struct ordk_dev *dev, uint64_t ns)
{
	fdev(dev)->idle_ns = ns;
}

static const struct ordk_dev_ops fake_ops = {
	.dev_size = sizeof(struct fake_dev), .qp_size = sizeof(struct fake_qp),
	.mr_size = sizeof(struct fake_mr), .open = fake_open, .close = fake_close,
	.query = fake_query, .poll = fake_poll, .mr_reg = fake_mr_reg,
	.mr_dereg = fake_mr_dereg, .qp_create = fake_qp_create, .qp_destroy = fake_qp_destroy,
	.qp_check = fake_qp_check, .qp_modify = fake_qp_modify, .qp_flush = fake_qp_flush,
	.qp_info = fake_qp_info, .post_send = fake_post_send, .post_recv = fake_post_recv,
	.post_done = fake_post_done, .idle = fake_idle,
};

static const struct ordk_driver fake_driver = { "fake", &fake_ops };

/* This build's driver table: the fake driver only. */
const struct ordk_driver *const ordk_drivers[] = { &fake_driver, NULL };

static void
eal(void)
{
	static bool done;
	char prefix[64];
	/* rte_eal_init() takes char **: writable words (compound literals) */
	char *argv[] = { (char[]){ "test" }, (char[]){ "--no-huge" }, (char[]){ "-m" },
			 (char[]){ "64" }, (char[]){ "--no-pci" }, (char[]){ "--no-shconf" },
			 (char[]){ "--no-telemetry" }, (char[]){ "--log-level=*:4" }, prefix, NULL };

	snprintf(prefix, sizeof(prefix), "--file-prefix=ordk-fake-%d", (int)getpid());
	if (!done)
		cr_assert_geq(rte_eal_init(9, argv), 0);
	done = true;
}

static void
to_rts(struct ordk_qp *qp, uint32_t peer)
{
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = 3 };

	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
	a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTR, .path_mtu = ORDK_MTU_1024,
				   .dest_qp_num = peer, .dest_ip = 0x0A000002, .dest_mac = 2 };
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU |
						    ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
						    ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER),
		     0);
	a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS, .timeout = 13 };
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
						    ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
						    ORDK_QP_MAX_QP_RD_ATOMIC),
		     -ENOTSUP, "the driver's own check runs");
	a.timeout = 14;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
						    ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
						    ORDK_QP_MAX_QP_RD_ATOMIC),
		     0);
}

Test(verbs_driver, a_second_driver_under_the_same_library)
{
	static uint8_t src[64], dst[64];
	struct ordk_dev_attr attr;
	struct ordk_qp_info info;
	struct ordk_stats st;
	struct ordk_wc wc[4];
	struct log_capture log;

	eal();
	cr_assert_null(ordk_dev_open("bluesim,port=0"), "no Blue driver in this build");
	cr_assert_eq(rte_errno, EINVAL);
	cr_assert_null(ordk_dev_open("fake:bad"));
	cr_assert_eq(rte_errno, ENODEV, "the driver's errno, as a value");

	struct ordk_dev *dev = ordk_dev_open("fake:ok");

	cr_assert_not_null(dev);
	cr_assert_eq(ordk_dev_query(dev, &attr), 0);
	cr_assert_str_eq(attr.name, "fake0");
	cr_assert_eq(attr.max_qp_wr, 8);
	/* optional ops it leaves out answer as for a card */
	cr_assert_eq(ordk_dev_card_poll(dev, 64), -ENOTSUP, "no model to step");
	cr_assert_eq(ordk_dev_card_poll(NULL, 64), -EINVAL);
	cr_assert_eq(ordk_dev_set_faults(dev, "drop:0.1"), -ENOTSUP);
	/* a declared sleep reaches the driver as it is */
	cr_assert_eq(ordk_dev_idle(dev, 2000000), 0);
	cr_assert_eq(fdev(dev)->idle_ns, 2000000);
	cr_assert_eq(ordk_dev_idle(NULL, 1), -EINVAL);

	struct ordk_pd *pd = ordk_pd_alloc(dev);
	struct ordk_cq *cq = ordk_cq_create(dev, 16);

	cr_assert_not_null(pd);
	cr_assert_not_null(cq);
	cr_assert_null(ordk_mr_reg(pd, src, 0, 0), "the library checks the length");
	log_capture_start(&log);
	cr_assert_null(ordk_mr_reg(pd, src, 2 << 20, 0), "... against the driver's max_mr_size");
	cr_expect_not_null(strstr(log_capture_text(&log), "mr_reg: length: 2097152 out of range "
							  "(1..1048576), the device's max_mr_size"),
			   "%s", log_capture_text(&log));
	log_capture_stop(&log);

	struct ordk_mr *ms = ordk_mr_reg(pd, src, sizeof(src), ORDK_ACCESS_LOCAL_WRITE);
	struct ordk_mr *md = ordk_mr_reg(pd, dst, sizeof(dst),
					 ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE);

	cr_assert_not_null(ms);
	cr_assert_not_null(md);
	cr_assert_eq(ms->lkey, 0x100, "the driver's key");

	struct ordk_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .max_send_wr = 9,
					.max_recv_wr = 1 };

	cr_assert_null(ordk_qp_create(pd, &ia), "max_qp_wr comes from the driver");
	ia.max_send_wr = 8;

	struct ordk_qp *a = ordk_qp_create(pd, &ia), *b = ordk_qp_create(pd, &ia);

	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_eq(ordk_qp_num(b), 3);
	cr_assert_eq(verbs_qp_lookup(dev, 3), b);
	cr_assert_eq(ordk_qp_modify(a, &(struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS },
				    ORDK_QP_STATE),
		     -EINVAL, "RESET -> RTS: the library's transition table");
	to_rts(a, ordk_qp_num(b));
	to_rts(b, ordk_qp_num(a));
	cr_assert_eq(fqp(a)->modifies, 3, "the driver saw the three legal transitions only");

	memset(src, 0x5A, sizeof(src));
	struct ordk_send_wr wr = { .wr_id = 77, .opcode = ORDK_WR_RDMA_WRITE,
				   .sge = { (uint64_t)(uintptr_t)src, sizeof(src), ms->lkey },
				   .rdma = { (uint64_t)(uintptr_t)dst, md->rkey } };

	cr_assert_eq(ordk_qp_post_send(a, &wr, 1), 1);
	cr_assert_eq(ordk_qp_info(a, &info), 0);
	cr_assert_eq(info.state, ORDK_QPS_RTS);
	cr_assert_eq(info.send_outstanding, 1);
	cr_assert_eq(ordk_cq_poll(cq, wc, 4), 1, "ordk_cq_poll() polls the driver");
	cr_assert_eq(wc[0].wr_id, 77);
	cr_assert_eq(memcmp(src, dst, sizeof(dst)), 0);
	cr_assert_eq(ordk_qp_stats(a, &st), 0);
	cr_assert_eq(st.wr_posted, 1);
	cr_assert_eq(ordk_dev_stats(dev, &st), 0);
	cr_assert_eq(st.wr_posted, 1, "the device's total: its QPs' counts");

	cr_assert_eq(ordk_dev_close(dev), -EBUSY, "objects alive");
	cr_assert_eq(ordk_qp_destroy(a), 0);
	cr_assert_eq(ordk_qp_destroy(a), -EINVAL, "a stale handle");
	cr_assert_null(verbs_qp_lookup(dev, 2));
	cr_assert_eq(ordk_dev_stats(dev, &st), 0);
	cr_assert_eq(st.wr_posted, 1, "a destroyed QP's counts stay in the device's total");
	cr_assert_eq(ordk_qp_destroy(b), 0);
	cr_assert_eq(ordk_mr_dereg(ms), 0);
	cr_assert_eq(ordk_mr_dereg(md), 0);
	cr_assert_eq(ordk_cq_destroy(cq), 0);
	cr_assert_eq(ordk_pd_free(pd), 0);
	cr_assert_eq(ordk_dev_close(dev), 0);
}

/* RTR with attribute @p a (every bit RTR needs): ordk_qp_modify()'s return, what it logged in @p log. */
static int
rtr(struct ordk_qp *qp, const struct ordk_qp_attr *a, char *log, size_t len)
{
	struct log_capture c;
	int rc;

	log_capture_start(&c);
	rc = ordk_qp_modify(qp, a, ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU | ORDK_QP_DEST_QPN |
					   ORDK_QP_RQ_PSN | ORDK_QP_MAX_DEST_RD_ATOMIC |
					   ORDK_QP_MIN_RNR_TIMER);
	snprintf(log, len, "%s", log_capture_text(&c));
	log_capture_stop(&c);
	return rc;
}

/*
 * Every program reaches ordk_qp_modify(), lib/cm's users or not: a peer no RC
 * QP can have is refused there, the field named, and the driver never sees it.
 */
Test(verbs_driver, a_peer_no_qp_can_reach_is_refused_naming_the_field)
{
	static const struct {
		uint32_t qpn, ip;
		uint64_t mac;
		const char *names;
	} bad[] = {
		{ 0x300, 0x0A000002, 0xFFFFFFFFFFFFull,
		  "dest_mac ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)" },
		{ 0x300, 0x0A000002, 0x01005E000001ull,
		  "dest_mac 01:00:5e:00:00:01: not a unicast address (multicast" },
		{ 0x300, 0x0A000002, 0, "dest_mac 00:00:00:00:00:00: not a unicast address (zero)" },
		{ 0x300, 0x0A000002, 1ull << 48, "dest_mac 0x1000000000000: more than 48 bits" },
		{ 0x300, 0xFFFFFFFF, 0x020000000002ull,
		  "dest_ip 255.255.255.255: not a unicast address (the limited broadcast)" },
		{ 0x300, 0xE0000005, 0x020000000002ull,
		  "dest_ip 224.0.0.5: not a unicast address (multicast" },
		{ 0x300, 0x7F000001, 0x020000000002ull,
		  "dest_ip 127.0.0.1: not a unicast address (loopback" },
		{ 0x300, 0, 0x020000000002ull, "dest_ip 0.0.0.0: not a unicast address" },
		{ 1, 0x0A000002, 0x020000000002ull, "dest_qp_num 0x000001: reserved" },
		{ 0, 0x0A000002, 0x020000000002ull, "dest_qp_num 0x000000: reserved" },
		{ 1u << 24, 0x0A000002, 0x020000000002ull, "dest_qp_num 0x1000000: out of range" },
	};
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = 3 };
	char log[512];

	eal();
	struct ordk_dev *dev = ordk_dev_open("fake:ok");
	struct ordk_pd *pd = ordk_pd_alloc(dev);
	struct ordk_cq *cq = ordk_cq_create(dev, 16);
	struct ordk_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .max_send_wr = 1,
					.max_recv_wr = 1 };
	struct ordk_qp *qp = ordk_qp_create(pd, &ia);

	cr_assert_not_null(qp);
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTR, .path_mtu = ORDK_MTU_1024,
					   .dest_qp_num = bad[i].qpn, .dest_ip = bad[i].ip,
					   .dest_mac = bad[i].mac };
		cr_expect_eq(rtr(qp, &a, log, sizeof(log)), -EINVAL, "%s", bad[i].names);
		cr_expect_not_null(strstr(log, bad[i].names), "'%s' does not say '%s'", log,
				   bad[i].names);
	}
	cr_expect_eq(fqp(qp)->modifies, 1, "the driver saw INIT only");
	a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTR, .path_mtu = ORDK_MTU_1024,
				   .dest_qp_num = 2, .dest_ip = 0xDF000001,
				   .dest_mac = 0xFEFFFFFFFFFFull };
	cr_expect_eq(rtr(qp, &a, log, sizeof(log)), 0, "a unicast peer (QPN 2, 223.0.0.1): %s", log);
	cr_expect_eq(fqp(qp)->modifies, 2);
	cr_expect_eq(ordk_qp_destroy(qp), 0);
	cr_expect_eq(ordk_cq_destroy(cq), 0);
	cr_expect_eq(ordk_pd_free(pd), 0);
	cr_expect_eq(ordk_dev_close(dev), 0);
}

static unsigned int
count_of(const char *text, const char *what)
{
	unsigned int n = 0;

	for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what))
		n++;
	return n;
}

/* A program that never reads its events: each lost one counted, one log line a run of losses. */
Test(verbs_driver, a_full_event_queue_counts_every_loss_and_logs_once)
{
	struct ordk_async_event ev;
	struct log_capture log;
	struct ordk_stats st;

	eal();
	struct ordk_dev *dev = ordk_dev_open("fake:ok");

	cr_assert_not_null(dev);
	log_capture_start(&log);
	for (int i = 0; i < 256 + 300; i++)
		verbs_event_raise(dev, ORDK_EVENT_PORT_ERR, NULL, NULL);
	cr_assert_eq(ordk_dev_stats(dev, &st), 0);
	cr_expect_eq(st.async_events_lost, 300);
	cr_expect_eq(count_of(log_capture_text(&log), "event queue full"), 1, "%s",
		     log_capture_text(&log));
	/* room again: the next event is queued, and the run's losses are summed up once */
	cr_assert_eq(ordk_dev_get_async_event(dev, &ev), 0);
	verbs_event_raise(dev, ORDK_EVENT_PORT_ACTIVE, NULL, NULL);
	cr_expect_eq(count_of(log_capture_text(&log), "300 events lost while the event queue"), 1,
		     "%s", log_capture_text(&log));
	/* a second run logs again */
	verbs_event_raise(dev, ORDK_EVENT_PORT_ERR, NULL, NULL);
	cr_expect_eq(count_of(log_capture_text(&log), "event queue full"), 2);
	log_capture_stop(&log);
	cr_assert_eq(ordk_dev_stats(dev, &st), 0);
	cr_expect_eq(st.async_events_lost, 301);
	for (int i = 0; i < 256; i++)
		cr_assert_eq(ordk_dev_get_async_event(dev, &ev), 0);
	cr_expect_eq(ordk_dev_get_async_event(dev, &ev), -EAGAIN);
	ordk_dev_close(dev);
}

/* Address handles are the library's: checked as a QP's peer, holding their PD; the answer to a
 * UD receive comes from its GRH. A UD QP needs a driver that says it has UD (max_ud_msg). */
Test(verbs_driver, address_handles_and_a_driver_without_ud)
{
	uint8_t grh[40] = { 0 };
	struct ordk_ah_attr a = { .dest_ip = 0x0A000002, .dest_mac = 0x020000000002ull }, got;
	struct ordk_wc wc = { .wc_flags = ORDK_WC_GRH, .src_mac = 0x020000000009ull };
	struct ordk_ah *ah;

	eal();
	struct ordk_dev *dev = ordk_dev_open("fake:ok");
	struct ordk_pd *pd = ordk_pd_alloc(dev);
	struct ordk_cq *cq = ordk_cq_create(dev, 16);
	struct ordk_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .max_send_wr = 1,
					.max_recv_wr = 1, .qp_type = ORDK_QPT_UD };

	cr_assert_null(ordk_qp_create(pd, &ia), "the fake driver has no UD");
	cr_assert_eq(rte_errno, EINVAL);
	ia.qp_type = (enum ordk_qp_type)3; /* UC */
	cr_assert_null(ordk_qp_create(pd, &ia));
	cr_assert_eq(rte_errno, EINVAL);
	a.dest_mac = 0xFFFFFFFFFFFFull;
	cr_assert_null(ordk_ah_create(pd, &a), "a broadcast MAC");
	a.dest_mac = 0x020000000002ull;
	a.dest_ip = 0xE0000001;
	cr_assert_null(ordk_ah_create(pd, &a), "a multicast IP");
	a.dest_ip = 0x0A000002;
	cr_assert_null(ordk_ah_create(NULL, &a));
	ah = ordk_ah_create(pd, &a);
	cr_assert_not_null(ah);
	cr_assert_eq(ordk_ah_query(ah, &got), 0);
	cr_assert(got.dest_ip == a.dest_ip && got.dest_mac == a.dest_mac);
	cr_assert_eq(ordk_pd_free(pd), -EBUSY, "the AH holds its PD");
	cr_assert_eq(ordk_ah_destroy(ah), 0);
	cr_assert_eq(ordk_ah_destroy(ah), -EINVAL, "stale");
	cr_assert_eq(ordk_ah_query(ah, &got), -EINVAL);
	/* the GRH of an IPv4 datagram from 10.0.0.9: the IPv4 header in its last 20 bytes */
	grh[20] = 0x45;
	grh[32] = 10, grh[35] = 9;
	cr_assert_eq(ordk_ah_init_from_wc(&wc, grh, &got), 0);
	cr_assert_eq(got.dest_ip, 0x0A000009);
	cr_assert_eq(got.dest_mac, wc.src_mac);
	grh[20] = 0x60; /* an IPv6 GRH: not a UD frame of ORDK's */
	cr_assert_eq(ordk_ah_init_from_wc(&wc, grh, &got), -EINVAL);
	grh[20] = 0x45;
	wc.wc_flags = 0;
	cr_assert_eq(ordk_ah_init_from_wc(&wc, grh, &got), -EINVAL, "no GRH");
	cr_assert_eq(ordk_cq_destroy(cq), 0);
	cr_assert_eq(ordk_pd_free(pd), 0);
	cr_assert_eq(ordk_dev_close(dev), 0);
}
