/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loopback: two bluesim devices in one process, joined by a net_ring pair.
 * Runs every opcode, checks the data, says what it did. With --bench it
 * measures RDMA WRITE bandwidth and latency and prints perftest's tables.
 *
 *   loopback [EAL args --] [--bench] [-n iters]
 *
 * Without EAL arguments it picks ones that work on a fresh machine.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "app_common.h"
#include "ordk_cm.h"
#include "ordk_verbs.h"

#define BUF (16u << 20)

struct side {
	struct ordk_dev *dev;
	struct ordk_pd *pd;
	struct ordk_cq *cq;
	struct ordk_qp *qp;
	struct ordk_mr *mr;
	uint8_t *buf;
	struct ordk_cm_info info;
};

static struct side S[2];

static void
open_sides(void)
{
	struct rte_mempool *mp = ordk_env_frame_pool("lb_pool", 8191);
	uint16_t p[2];

	if (mp == NULL || ordk_env_ring_pair("lb", mp, p) != 0)
		rte_exit(EXIT_FAILURE, "cannot set up the net_ring pair (memory?)\n");
	for (int i = 0; i < 2; i++) {
		struct side *s = &S[i];
		struct ordk_qp_init_attr ia = { .max_send_wr = 512, .max_recv_wr = 512 };
		struct ordk_dev_attr at;
		char args[128];

		snprintf(args, sizeof(args), "bluesim,port=%u,mac=02:00:00:00:00:%02x,ip=10.0.0.%d",
			 p[i], i + 1, i + 1);
		s->dev = ordk_dev_open(args);
		if (s->dev == NULL)
			rte_exit(EXIT_FAILURE, "ordk_dev_open(%s): %s\n", args, rte_strerror(rte_errno));
		ordk_dev_query(s->dev, &at);
		s->pd = ordk_pd_alloc(s->dev);
		s->cq = ordk_cq_create(s->dev, 4096);
		ia.send_cq = ia.recv_cq = s->cq;
		s->qp = ordk_qp_create(s->pd, &ia);
		s->buf = rte_zmalloc("lb_buf", BUF, 4096);
		s->mr = s->buf ? ordk_mr_reg(s->pd, s->buf, BUF, 15) : NULL;
		if (!s->pd || !s->cq || !s->qp || !s->mr)
			rte_exit(EXIT_FAILURE, "cannot create objects: %s\n", rte_strerror(rte_errno));
		s->info = (struct ordk_cm_info){ .qpn = ordk_qp_num(s->qp), .ip = at.ip, .mac = at.mac,
						 .addr = (uint64_t)(uintptr_t)s->buf,
						 .rkey = s->mr->rkey, .len = BUF };
		printf("%s: MAC %012" PRIx64 " IP 10.0.0.%d QPN 0x%06x rkey 0x%06x\n", at.name, at.mac,
		       i + 1, s->info.qpn, s->mr->rkey);
	}
	for (int i = 0; i < 2; i++)
		if (ordk_cm_connect_qp(S[i].qp, &S[i].info, &S[1 - i].info, ORDK_MTU_4096, 15) != 0)
			rte_exit(EXIT_FAILURE, "cannot connect the QPs\n");
}

/* Poll both devices until a completion arrives on @p s (bounded). */
static int
wait_wc(struct side *s, struct ordk_wc *wc)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		ordk_dev_poll(S[0].dev == s->dev ? S[1].dev : S[0].dev, 64);
		if (ordk_cq_poll(s->cq, wc, 1) == 1)
			return wc->status == ORDK_WC_SUCCESS ? 0 : -1;
	}
	return -1;
}

static int
run_op(enum ordk_wr_opcode op, const char *name, uint32_t len)
{
	struct side *a = &S[0], *b = &S[1];
	struct ordk_send_wr wr = { .wr_id = 1, .opcode = op, .send_flags = ORDK_SEND_SIGNALED,
				   .num_sge = 1, .imm_data = 0xC0FFEE };
	struct ordk_recv_wr rr = { .wr_id = 2, .num_sge = op == ORDK_WR_RDMA_WRITE_WITH_IMM ? 0 : 1 };
	uint8_t *src = op == ORDK_WR_RDMA_READ ? b->buf : a->buf;
	uint8_t *dst = op == ORDK_WR_RDMA_READ ? a->buf : b->buf;
	bool recv = op == ORDK_WR_SEND || op == ORDK_WR_SEND_WITH_IMM ||
		    op == ORDK_WR_RDMA_WRITE_WITH_IMM;
	uint64_t t0 = rte_get_tsc_cycles();
	struct ordk_wc wc;
	int ok = 0;

	for (uint32_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + op);
	memset(dst, 0, len);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, len, a->mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf;
	wr.rdma.rkey = b->mr->rkey;
	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)b->buf, len, b->mr->lkey };
	if (recv && ordk_qp_post_recv(b->qp, &rr, 1) != 1)
		return -1;
	if (ordk_qp_post_send(a->qp, &wr, 1) != 1)
		return -1;
	ok = wait_wc(a, &wc) == 0;
	if (ok && recv)
		ok = wait_wc(b, &wc) == 0 &&
		     (op == ORDK_WR_RDMA_WRITE_WITH_IMM || wc.byte_len == len);
	ok = ok && memcmp(src, dst, len) == 0;
	printf("  %-22s %9u B  %s  %8.1f us\n", name, len, ok ? "ok  " : "FAIL",
	       (double)(rte_get_tsc_cycles() - t0) * 1e6 / rte_get_tsc_hz());
	return ok ? 0 : -1;
}

/*
 * perftest-style RDMA WRITE bandwidth: TX depth 128. The peak follows
 * perftest's definition: the smallest (tcompleted[j] - tposted[i]) / (j - i + 1)
 * over i <= j, so a burst of completions cannot make it up by itself. Above
 * 4096 messages it looks at 4096 evenly spread ones (and the last), so a large
 * -n costs 4096^2 / 2 steps at most, not n^2 / 2.
 */
static void
bench_bw(uint32_t size, uint32_t iters)
{
	struct side *a = &S[0];
	const uint32_t depth = 128;
	uint32_t posted = 0, done = 0;
	double hz = (double)rte_get_tsc_hz(), best = 1e300;
	uint64_t *tp = malloc(sizeof(uint64_t) * iters), *tc = malloc(sizeof(uint64_t) * iters);
	uint64_t t0 = rte_get_tsc_cycles();
	struct ordk_wc wc[64];

	if (tp == NULL || tc == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	while (done < iters) {
		while (posted < iters && posted - done < depth) {
			struct ordk_send_wr wr = { .wr_id = posted, .opcode = ORDK_WR_RDMA_WRITE,
						   .send_flags = ORDK_SEND_SIGNALED, .num_sge = 1 };
			uint32_t off = (posted * size) % (BUF - size);

			wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf + off, size,
						    a->mr->lkey };
			wr.rdma.remote_addr = S[1].info.addr + off;
			wr.rdma.rkey = S[1].info.rkey;
			tp[posted] = rte_get_tsc_cycles();
			if (ordk_qp_post_send(a->qp, &wr, 1) != 1)
				break;
			posted++;
		}
		ordk_dev_poll(S[1].dev, 64);
		int k = ordk_cq_poll(a->cq, wc, 64);

		for (int i = 0; i < k; i++) {
			if (wc[i].status != ORDK_WC_SUCCESS)
				rte_exit(EXIT_FAILURE, "WRITE failed: %s\n", ordk_wc_status_str(wc[i].status));
			tc[done++] = rte_get_tsc_cycles();
		}
	}
	double t = (rte_get_tsc_cycles() - t0) / hz;
	double avg = (double)size * iters / t;

	uint32_t step = iters > 4096 ? (iters + 4095) / 4096 : 1;

	for (uint32_t i = 0; i < iters; i += step)
		for (uint32_t j = i; j < iters; j = j + step < iters || j == iters - 1 ? j + step : iters - 1) {
			double d = (double)(tc[j] - tp[i]) / (j - i + 1);

			if (d < best)
				best = d;
		}
	printf(" %-7u    %-10u       %-7.2lf            %-7.2lf\t\t     %-7.6lf\n", size, iters,
	       size / (best / hz) / 1048576.0, avg / 1048576.0, iters / t / 1e6);
	free(tp);
	free(tc);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* perftest-style latency: ping-pong of 8-byte WRITEs, latency = RTT / 2. */
static void
bench_lat(uint32_t size, uint32_t iters)
{
	double *lat = malloc(sizeof(double) * iters), hz = (double)rte_get_tsc_hz(), sum = 0, sq = 0;
	volatile uint8_t *flag[2] = { S[0].buf + BUF - 64, S[1].buf + BUF - 64 };

	for (uint32_t it = 0; it < iters; it++) {
		uint64_t t0 = rte_get_tsc_cycles();

		for (int dir = 0; dir < 2; dir++) {
			struct side *s = &S[dir];
			struct ordk_send_wr wr = { .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
						   .send_flags = ORDK_SEND_SIGNALED };
			struct ordk_wc wc;
			uint8_t *src = s->buf + BUF - 128;

			src[size - 1] = (uint8_t)(it + 1);
			wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)src, size, s->mr->lkey };
			wr.rdma.remote_addr = S[1 - dir].info.addr + BUF - 64 - (size - 1);
			wr.rdma.rkey = S[1 - dir].info.rkey;
			ordk_qp_post_send(s->qp, &wr, 1);
			while (flag[1 - dir][0] != (uint8_t)(it + 1)) {
				ordk_dev_poll(S[0].dev, 32);
				ordk_dev_poll(S[1].dev, 32);
			}
			while (ordk_cq_poll(s->cq, &wc, 1) == 0)
				ordk_dev_poll(S[1 - dir].dev, 32);
		}
		lat[it] = (rte_get_tsc_cycles() - t0) / hz * 1e6 / 2;
		sum += lat[it];
		sq += lat[it] * lat[it];
	}
	qsort(lat, iters, sizeof(double), cmp_double);
	double avg = sum / iters;

	printf(" %-7u %-10u %-7.2f        %-7.2f      %-7.2f         %-7.2f        %-7.2f          "
	       "%-7.2f                %-7.2f\n",
	       size, iters, lat[0], lat[iters - 1], lat[iters / 2], avg,
	       sqrt(fmax(sq / iters - avg * avg, 0)), lat[(size_t)(iters * 0.99)],
	       lat[(size_t)(iters * 0.999)]);
	free(lat);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = { { "bench", no_argument, NULL, 'b' },
					    { "help", no_argument, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	bool bench = false;
	uint32_t iters = 2000;
	int first, c, fails = 0;

	{
		struct ordk_env_eal d = { .prog = argv[0], .prefix = "ordk-loopback", .lcore = 0,
					  .mem_mb = 512 };
		int i;

		for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
			;
		/* the user's EAL arguments stand before "--"; without them, defaults */
		first = i < argc ? i + 1 : 1;
		if (app_eal_init(i < argc ? i : 1, argv, i < argc, &d) != 0)
			return 1;
	}
	argc -= first - 1;
	argv += first - 1;
	while ((c = getopt_long(argc, argv, "n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			bench = true;
			break;
		case 'n':
			iters = (uint32_t)strtoul(optarg, NULL, 0);
			if (iters < 10 || iters > 10000000)
				rte_exit(EXIT_FAILURE, "-n: 10 .. 10000000\n");
			break;
		default:
			printf("usage: loopback [EAL args --] [--bench] [-n iterations]\n");
			return c == 'h' ? 0 : 1;
		}
	}
	open_sides();
	printf("every opcode, data checked:\n");
	static const struct {
		enum ordk_wr_opcode op;
		const char *name;
	} ops[] = { { ORDK_WR_RDMA_WRITE, "RDMA_WRITE" },
		    { ORDK_WR_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM" },
		    { ORDK_WR_SEND, "SEND" },
		    { ORDK_WR_SEND_WITH_IMM, "SEND_WITH_IMM" },
		    { ORDK_WR_RDMA_READ, "RDMA_READ" } };
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (uint32_t len = 1; len <= (1u << 20); len *= 64)
			fails += run_op(ops[i].op, ops[i].name, len) != 0;
	printf("%s\n", fails ? "FAILED" : "all opcodes ok");
	if (bench && !fails) {
		printf("---------------------------------------------------------------------------------------\n");
		printf("                    RDMA_Write BW Test (ORDK loopback over bluesim, net_ring)\n");
		printf(" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n");
		for (uint32_t s = 64; s <= 1u << 20; s *= 16)
			bench_bw(s, iters); /* what -n says, at every size */
		printf("---------------------------------------------------------------------------------------\n");
		printf("                    RDMA_Write Latency Test (ORDK loopback over bluesim, net_ring)\n");
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
		       "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec] \n");
		bench_lat(8, iters);
		printf("---------------------------------------------------------------------------------------\n");
	}
	for (int i = 0; i < 2; i++) {
		ordk_qp_destroy(S[i].qp);
		ordk_mr_dereg(S[i].mr);
		ordk_cq_destroy(S[i].cq);
		ordk_pd_free(S[i].pd);
		ordk_dev_close(S[i].dev);
	}
	ordk_env_close_ports();
	ordk_env_eal_cleanup();
	return fails ? 1 : 0;
}
