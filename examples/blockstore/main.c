/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blockstore: a block target embedded in a DPDK lcore poll loop (the shape
 * of a storage appliance), serving 4 KiB blocks over RDMA, and a load
 * generator.
 *
 *   blockstore target [EAL args --] [-d devargs] [-c cm_port] [--size MiB] [--file path]
 *                     [-t seconds]
 *   blockstore client [EAL args --] [-d devargs] [-H host] [-c cm_port] [--qd N]
 *                     [--read pct] [--blocks N] [-n ios] [--verify]
 *
 * Commands and replies are SENDs; data moves one-sided, driven by the
 * target as NVMe-oF does: a write makes the target READ the client's
 * buffer into the store, a read makes it WRITE the block into the client's
 * buffer, then reply (same QP: the reply arrives after the data). The store
 * is memory, or a file mapped and registered as it is. See README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "app_common.h"
#include "ex.h"

#define BLK	    4096u
#define MAX_QD	    256u
#define MAX_BLOCKS  ((65536ull << 20) / BLK) /* the largest --size's */
#define P	    "blockstore"
#define CM_PORT	    18820
#define CMD_MAGIC   0x424C4B31u /* "BLK1" */

enum { OP_READ = 1, OP_WRITE, OP_BYE };

struct cmd {
	uint32_t magic, op, tag, nblk;
	uint64_t lba;	/* in 4 KiB blocks */
	uint64_t addr;	/* the client's buffer for this command */
	uint32_t rkey, pad;
};

struct reply {
	uint32_t magic, tag;
	int32_t status; /* 0, or -errno */
	uint32_t pad;
};

/* The client's buffer: [0, qd) data slots of BLK, then qd command slots, then qd reply slots. */
#define CMD_AREA(qd)   ((size_t)(qd) * BLK)
#define REPLY_AREA(qd) (CMD_AREA(qd) + (size_t)(qd) * sizeof(struct cmd))

static struct ex_node N;
static uint64_t hz;

/* ---------------------------------------------------------------- target */

struct target {
	uint8_t *store;
	uint64_t blocks;
	struct ordk_mr *store_mr; /* the store, registered as it is (file or memory) */
	int lfd;
	double until;
	uint64_t ios, errors;
	bool bye;
	/* per tag: the command being served */
	struct cmd cur[MAX_QD];
};

static void
target_recv(uint32_t slot)
{
	struct ordk_recv_wr r = { .wr_id = slot, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)N.buf + (size_t)slot * sizeof(struct cmd),
				   sizeof(struct cmd), N.mr->lkey };
	ordk_qp_post_recv(N.qp[0], &r, 1);
}

static void
target_reply(uint32_t tag, int32_t status)
{
	struct reply *rp = (struct reply *)(N.buf + MAX_QD * sizeof(struct cmd) +
					    (size_t)(tag % MAX_QD) * sizeof(struct reply));
	struct ordk_send_wr w = { .wr_id = (1ull << 32) | tag, .opcode = ORDK_WR_SEND, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };

	*rp = (struct reply){ .magic = CMD_MAGIC, .tag = tag, .status = status };
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)rp, sizeof(*rp), N.mr->lkey };
	ordk_qp_post_send(N.qp[0], &w, 1);
}

/* A command arrived: check it, then move the data (or refuse with a reply). */
static void
target_cmd(struct target *t, const struct cmd *c)
{
	struct ordk_send_wr w = { .wr_id = (2ull << 32) | (c->tag % MAX_QD), .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };

	if (c->magic != CMD_MAGIC || c->tag >= MAX_QD) {
		t->errors++; /* not ours: counted, dropped */
		return;
	}
	if (c->op == OP_BYE) {
		t->bye = true;
		target_reply(c->tag, 0);
		return;
	}
	if ((c->op != OP_READ && c->op != OP_WRITE) || c->nblk == 0 || c->nblk > 16 ||
	    c->lba >= t->blocks || c->nblk > t->blocks - c->lba) {
		t->errors++;
		target_reply(c->tag, -EINVAL);
		return;
	}
	t->cur[c->tag] = *c;
	/* a write: READ the client's buffer into the store; a read: WRITE the block to it */
	w.opcode = c->op == OP_WRITE ? ORDK_WR_RDMA_READ : ORDK_WR_RDMA_WRITE;
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)t->store + c->lba * BLK, c->nblk * BLK,
				   t->store_mr->lkey };
	w.rdma.remote_addr = c->addr;
	w.rdma.rkey = c->rkey;
	if (ordk_qp_post_send(N.qp[0], &w, 1) != 1) {
		t->errors++;
		target_reply(c->tag, -EBUSY);
	}
}

/* The target's lcore: run to completion, poll, serve. */
static int
target_lcore(void *arg)
{
	struct target *t = arg;
	uint64_t iter = 0;
	bool armed = false;

	while (!t->bye && ordk_env_now_s() < t->until) {
		struct ordk_wc wc[32];
		int k;

		if ((++iter & 1023) == 0 && N.nqp == 0 && ex_accept(&N, t->lfd, 2 * MAX_QD + 4) < 0)
			return -1;
		if (N.nqp == 0) {
			ordk_dev_poll(N.dev, 64);
			continue;
		}
		if (!armed) {
			for (uint32_t i = 0; i < MAX_QD; i++)
				target_recv(i);
			armed = true;
		}
		k = ordk_cq_poll(N.cq, wc, 32);
		for (int i = 0; i < k; i++) {
			uint32_t kind = (uint32_t)(wc[i].wr_id >> 32), tag = (uint32_t)wc[i].wr_id;

			if (wc[i].opcode >= ORDK_WC_RECV) { /* a command */
				struct cmd c;

				memcpy(&c, N.buf + wc[i].wr_id * sizeof(struct cmd), sizeof(c));
				target_recv((uint32_t)wc[i].wr_id);
				if (wc[i].status == ORDK_WC_SUCCESS && wc[i].byte_len == sizeof(c))
					target_cmd(t, &c);
				else if (t->errors++ < 3)
					fprintf(stderr, "target: a command: %s, %u bytes\n",
						ordk_wc_status_str(wc[i].status), wc[i].byte_len);
			} else if (kind == 2) { /* the data moved: reply */
				if (wc[i].status != ORDK_WC_SUCCESS && t->errors++ < 3)
					fprintf(stderr, "target: moving data: %s\n",
						ordk_wc_status_str(wc[i].status));
				t->ios++;
				target_reply(t->cur[tag].tag,
					     wc[i].status == ORDK_WC_SUCCESS ? 0 : -EIO);
			} else if (wc[i].status != ORDK_WC_SUCCESS) {
				if (t->errors++ < 3)
					fprintf(stderr, "target: a reply: %s\n",
						ordk_wc_status_str(wc[i].status));
			}
		}
	}
	return 0;
}

static int
target_main(uint16_t cm_port, size_t size_mb, const char *file, double seconds)
{
	struct target t = { .until = ordk_env_now_s() + seconds };
	size_t len = size_mb << 20;
	int fd = -1;

	/* the store is one MR: within what the device registers */
	if (len > N.attr.max_mr_size) {
		fprintf(stderr, "blockstore: --size %zu MiB: more than %s registers in one MR "
				"(max_mr_size %" PRIu64 " bytes)\n",
			size_mb, N.attr.name, N.attr.max_mr_size);
		return 1;
	}
	if (file != NULL) {
		fd = open(file, O_RDWR | O_CREAT, 0644);
		if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
			perror("blockstore: the backing file");
			return 1;
		}
		t.store = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	} else {
		t.store = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (t.store == MAP_FAILED) {
		perror("blockstore: mmap");
		return 1;
	}
	for (size_t off = 0; off < len; off += 4096) /* fault it in before serving */
		((volatile uint8_t *)t.store)[off] = ((volatile uint8_t *)t.store)[off];
	t.blocks = len / BLK;
	t.store_mr = ordk_mr_reg(N.pd, t.store, len, 15);
	t.lfd = ordk_cm_listen(cm_port);
	if (t.store_mr == NULL || t.lfd < 0) {
		fprintf(stderr, "blockstore: cannot register the store or listen on %u\n", cm_port);
		return 1;
	}
	printf("target: %s, %" PRIu64 " blocks of 4 KiB (%s), port %u, serving on lcore %u\n",
	       N.attr.name, t.blocks, file ? file : "memory", cm_port, rte_lcore_id());
	/* the appliance's shape: the target runs as an lcore function */
	rte_eal_mp_remote_launch(target_lcore, &t, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	printf("target: %" PRIu64 " I/Os served, %" PRIu64 " refused or bad, %s\n", t.ios, t.errors,
	       t.bye ? "the client said bye" : "time is up");
	ordk_env_linger_server(N.dev, EX_SERVER_QUIET_S);
	ordk_mr_dereg(t.store_mr);
	munmap(t.store, len);
	if (fd >= 0)
		close(fd);
	close(t.lfd);
	return 0;
}

/* ---------------------------------------------------------------- client */

struct io {
	bool busy, write;
	uint64_t lba, t0;
};

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
client_send(uint32_t qd, uint32_t tag, uint32_t op, uint64_t lba)
{
	struct cmd *c = (struct cmd *)(N.buf + CMD_AREA(qd) + (size_t)tag * sizeof(struct cmd));
	struct ordk_send_wr w = { .wr_id = UINT64_MAX, .opcode = ORDK_WR_SEND, .num_sge = 1 };

	*c = (struct cmd){ .magic = CMD_MAGIC, .op = op, .tag = tag, .nblk = 1, .lba = lba,
			   .addr = (uint64_t)(uintptr_t)N.buf + (uint64_t)tag * BLK,
			   .rkey = N.mr->rkey };
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)c, sizeof(*c), N.mr->lkey };
	/* unsignaled: the reply says it arrived; every 16th asks for a completion */
	w.send_flags = (tag % 16 == 0) ? ORDK_SEND_SIGNALED : 0;
	ordk_qp_post_send(N.qp[0], &w, 1);
}

static void
client_recv(uint32_t qd, uint32_t slot)
{
	struct ordk_recv_wr r = { .wr_id = slot, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)N.buf + REPLY_AREA(qd) +
					   (size_t)slot * sizeof(struct reply),
				   sizeof(struct reply), N.mr->lkey };
	ordk_qp_post_recv(N.qp[0], &r, 1);
}

static void
report(const char *what, double *lat, uint64_t n, double secs)
{
	double sum = 0;

	for (uint64_t i = 0; i < n; i++)
		sum += lat[i];
	ex_sort(lat, n);
	printf(" %-6s %9" PRIu64 " %10.0f %8.1f %9.2f %9.2f %9.2f %9.2f\n", what, n, n / secs,
	       n * (double)BLK / secs / 1e6, n ? sum / n : 0, ex_pct(lat, n, 50), ex_pct(lat, n, 99),
	       ex_pct(lat, n, 99.9));
}

/* The load generator's run. */
struct load {
	uint32_t qd;
	unsigned int read_pct;
	uint64_t blocks, nios;
	bool verify;
	uint32_t *gen;	 /* per block: how often it was written (its pattern) */
	uint8_t *busy;	 /* per block: an I/O in flight */
	double *rl, *wl; /* latencies of reads and writes (us) */
	uint64_t seed, posted, done, nr, nw, bad, written;
	double until;
	int rc;
	struct io io[MAX_QD];
};

/* A command on every free tag, while I/Os remain to post. */
static void
load_issue(struct load *l)
{
	for (uint32_t tag = 0; tag < l->qd && l->posted < l->nios; tag++) {
		uint64_t lba;
		bool write;

		if (l->io[tag].busy)
			continue;
		do /* never two I/Os on one block at once: the check knows its content */
			lba = rnd(&l->seed) % l->blocks;
		while (l->busy[lba]);
		write = rnd(&l->seed) % 100 >= l->read_pct;
		if (write) {
			l->gen[lba]++;
			ex_fill(N.buf + (size_t)tag * BLK, BLK, lba * 1000003ull + l->gen[lba]);
			l->written += l->gen[lba] == 1;
		}
		l->busy[lba] = 1;
		l->io[tag] = (struct io){ .busy = true, .write = write, .lba = lba,
					  .t0 = rte_get_tsc_cycles() };
		client_send(l->qd, tag, write ? OP_WRITE : OP_READ, lba);
		l->posted++;
	}
}

/* A reply (the RECV completion @p wc): its I/O is done, timed, a read checked. */
static void
load_reply(struct load *l, const struct ordk_wc *wc)
{
	struct reply rp;
	struct io *x;

	memcpy(&rp, N.buf + REPLY_AREA(l->qd) + wc->wr_id * sizeof(rp), sizeof(rp));
	client_recv(l->qd, (uint32_t)wc->wr_id);
	if (wc->status != ORDK_WC_SUCCESS || rp.magic != CMD_MAGIC || rp.tag >= l->qd ||
	    !l->io[rp.tag].busy) {
		fprintf(stderr, "client: a bad reply (%s)\n", ordk_wc_status_str(wc->status));
		l->rc = 2;
		return;
	}
	x = &l->io[rp.tag];
	x->busy = false;
	l->busy[x->lba] = 0;
	l->done++;
	if (rp.status != 0) {
		fprintf(stderr, "client: I/O at block %" PRIu64 ": %s\n", x->lba,
			strerror(-rp.status));
		l->rc = 2;
		return;
	}
	if (x->write)
		l->wl[l->nw++] = (double)(rte_get_tsc_cycles() - x->t0) * 1e6 / hz;
	else {
		l->rl[l->nr++] = (double)(rte_get_tsc_cycles() - x->t0) * 1e6 / hz;
		if (l->verify && l->gen[x->lba] &&
		    ex_check(N.buf + (size_t)rp.tag * BLK, BLK,
			     x->lba * 1000003ull + l->gen[x->lba]) != BLK && l->bad++ < 3)
			fprintf(stderr, "client: block %" PRIu64 " read back wrong\n", x->lba);
	}
}

/* The completions: a failed command SEND ends the run, a RECV is a reply. */
static void
load_reap(struct load *l)
{
	struct ordk_wc wc[32];
	int k = ordk_cq_poll(N.cq, wc, 32);

	for (int i = 0; i < k; i++) {
		if (wc[i].opcode < ORDK_WC_RECV) {
			if (wc[i].status != ORDK_WC_SUCCESS) {
				fprintf(stderr, "client: command send: %s\n",
					ordk_wc_status_str(wc[i].status));
				l->rc = 2;
				l->until = 0;
			}
			continue;
		}
		load_reply(l, &wc[i]);
	}
}

/* --verify: every block written, read back once more. */
static void
load_final_read(struct load *l)
{
	uint64_t checked = 0;

	for (uint64_t lba = 0; lba < l->blocks && l->rc == 0; lba++) {
		struct ordk_wc wc[4];
		int got = 0;

		if (l->gen[lba] == 0)
			continue;
		client_send(l->qd, 0, OP_READ, lba);
		for (double end = ordk_env_now_s() + 10; got == 0 && ordk_env_now_s() < end;) {
			int k = ordk_cq_poll(N.cq, wc, 4);

			for (int i = 0; i < k; i++)
				if (wc[i].opcode >= ORDK_WC_RECV) {
					client_recv(l->qd, (uint32_t)wc[i].wr_id);
					got = 1;
				}
		}
		if (!got || ex_check(N.buf, BLK, lba * 1000003ull + l->gen[lba]) != BLK) {
			fprintf(stderr, "client: block %" PRIu64 " wrong on the final read\n", lba);
			l->bad++;
		}
		checked++;
	}
	printf("client: %" PRIu64 " blocks written, %" PRIu64 " read back at the end\n",
	       l->written, checked);
}

static int
client_main(const char *host, uint16_t cm_port, uint32_t qd, unsigned int read_pct,
	    uint64_t blocks, uint64_t nios, bool verify)
{
	static struct load L;
	struct load *l = &L;
	double t0, secs;

	*l = (struct load){ .qd = qd, .read_pct = read_pct, .blocks = blocks, .nios = nios,
			    .verify = verify, .gen = calloc(blocks, sizeof(*l->gen)),
			    .busy = calloc(blocks, 1), .rl = malloc(sizeof(double) * nios),
			    .wl = malloc(sizeof(double) * nios), .seed = 0x9E3779B97F4A7C15ull };
	if (l->gen == NULL || l->busy == NULL || l->rl == NULL || l->wl == NULL ||
	    ex_connect(&N, host, cm_port, 1, 2 * MAX_QD + 4) != 0)
		return 1;
	printf("client: %s, QD %u, %u%% reads, %" PRIu64 " blocks, %" PRIu64 " I/Os%s\n", N.attr.name,
	       qd, read_pct, blocks, nios, verify ? ", every block read checked" : "");
	for (uint32_t i = 0; i < qd; i++)
		client_recv(qd, i);
	t0 = ordk_env_now_s();
	l->until = t0 + 120;
	while (l->done < nios && ordk_env_now_s() < l->until) {
		load_issue(l);
		load_reap(l);
	}
	secs = ordk_env_now_s() - t0;
	if (l->done < nios) {
		fprintf(stderr, "client: %" PRIu64 " of %" PRIu64 " I/Os done in time\n", l->done,
			nios);
		l->rc = 2;
	}
	printf(" %-6s %9s %10s %8s %9s %9s %9s %9s\n", "op", "I/Os", "IOPS", "MB/s", "avg[us]",
	       "p50[us]", "p99[us]", "p99.9[us]");
	report("read", l->rl, l->nr, secs);
	report("write", l->wl, l->nw, secs);
	printf(" total  %9" PRIu64 " %10.0f\n", l->done, l->done / secs);
	if (verify && l->rc == 0)
		load_final_read(l);
	if (l->bad) {
		fprintf(stderr, "client: %" PRIu64 " blocks read back wrong\n", l->bad);
		l->rc = 2;
	}
	if (l->rc == 0 && verify)
		printf("client: every block verified\n");
	{ /* the target stops on BYE */
		struct ordk_wc wc[4];

		client_send(qd, 0, OP_BYE, 0);
		ex_wait(&N, wc, 1, EX_BYE_WAIT_S);
	}
	free(l->gen);
	free(l->busy);
	free(l->rl);
	free(l->wl);
	return l->rc;
}

/* ----------------------------------------------------------------- main */

static void
usage(void)
{
	fprintf(stderr,
		"usage: blockstore target [EAL args --] [-d devargs] [-c cm_port] [--size MiB]\n"
		"                         [--file path] [-t seconds]\n"
		"       blockstore client [EAL args --] [-d devargs] [-H host] [-c cm_port] [--qd N]\n"
		"                         [--read pct] [--blocks N] [-n ios] [--verify]\n");
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 'S' },   { "file", required_argument, NULL, 'F' },
		{ "qd", required_argument, NULL, 'Q' },	    { "read", required_argument, NULL, 'R' },
		{ "blocks", required_argument, NULL, 'B' }, { "verify", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 },
	};
	const char *role = argc > 1 ? argv[1] : "", *devargs = "bluesim,port=0", *host = "127.0.0.1";
	const char *file = NULL;
	uint16_t cm_port = CM_PORT;
	unsigned int size_mb = 64, qd = 32, read_pct = 70;
	uint64_t blocks = 4096, nios = 100000;
	double seconds = 600;
	bool verify = false, client, bad = false;
	int targc, eal, c, rc;
	char **targv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(role, "target") != 0 && strcmp(role, "client") != 0) {
		usage();
		return 1;
	}
	argv[1] = argv[0];
	eal = ex_split_args(argc - 1, argv + 1, &targc, &targv);
	while ((c = getopt_long(targc, targv, "d:H:c:n:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': devargs = optarg; break;
		case 'H': host = optarg; break;
		/* numbers through the shared parser: atoi() took "4294967297" as 1 */
		case 'c': cm_port = (uint16_t)ex_num(P, "-c", optarg, 1, 65535, &bad); break;
		case 'n': nios = ex_num(P, "-n", optarg, 1, 100000000, &bad); break;
		case 't': seconds = atof(optarg); break;
		case 'S': size_mb = (unsigned int)ex_num(P, "--size", optarg, 1, 65536, &bad); break;
		case 'F': file = optarg; break;
		case 'Q': qd = (unsigned int)ex_num(P, "--qd", optarg, 1, MAX_QD, &bad); break;
		case 'R': read_pct = (unsigned int)ex_num(P, "--read", optarg, 0, 100, &bad); break;
		case 'B': blocks = ex_num(P, "--blocks", optarg, 1, MAX_BLOCKS, &bad); break;
		case 'V': verify = true; break;
		default: usage(); return c == 'h' ? 0 : 1;
		}
	}
	if (bad || !(seconds > 0)) {
		if (!bad)
			fprintf(stderr, "blockstore: -t: more than 0 seconds\n");
		return 1;
	}
	client = strcmp(role, "client") == 0;
	if (ex_eal_init(eal, argv + 1, "blk", client, cm_port, client ? 256 : 256 + size_mb,
			devargs) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	/* client: data slots, commands, replies; target: command and reply slots */
	if (ex_node_open(&N, devargs, client,
			 client ? REPLY_AREA(qd) + (size_t)qd * sizeof(struct reply) + 4096
				: MAX_QD * (sizeof(struct cmd) + sizeof(struct reply)) + 4096,
			 4 * MAX_QD + 64) != 0)
		rc = 1;
	else if (client)
		rc = client_main(host, cm_port, qd, read_pct, blocks, nios, verify);
	else
		rc = target_main(cm_port, size_mb, file, seconds);
	ex_finish(&N);
	return rc;
}
