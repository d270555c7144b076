/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "sim_host.h"

int test_eal_lcore;
bool test_eal_telemetry;

void
test_eal_init(const char *extra)
{
	static bool done;
	char prefix[64], lcore[16], more[256], no_telemetry[] = "--no-telemetry", *argv[20];
	int argc = 0;

	if (done)
		return;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ordk-test-%d", (int)getpid());
	/* rte_eal_init() takes char **: writable copies (compound literals) of the words */
	argv[argc++] = (char[]){ "ordk-test" };
	argv[argc++] = (char[]){ "--no-huge" };
	argv[argc++] = (char[]){ "-m" };
	argv[argc++] = (char[]){ "512" };
	argv[argc++] = (char[]){ "--no-pci" };
	argv[argc++] = (char[]){ "--no-shconf" };
	if (!test_eal_telemetry)
		argv[argc++] = no_telemetry;
	/* a pattern, so ORDK_TEST_LOG can raise one type */
	argv[argc++] = (char[]){ "--log-level=*:4" };
	snprintf(lcore, sizeof(lcore), "%d", test_eal_lcore);
	argv[argc++] = (char[]){ "-l" };
	argv[argc++] = lcore;
	argv[argc++] = prefix;
	if (extra != NULL) {
		cr_assert_lt(strlen(extra), sizeof(more), "EAL argument too long: %s", extra);
		snprintf(more, sizeof(more), "%s", extra);
		argv[argc++] = more;
	}
	/* ORDK_TEST_LOG=ordk.rc:debug (any --log-level pattern) for a failing test */
	if (getenv("ORDK_TEST_LOG") != NULL) {
		static char lvl[128];

		snprintf(lvl, sizeof(lvl), "--log-level=%s", getenv("ORDK_TEST_LOG"));
		argv[argc++] = lvl;
	}
	argv[argc] = NULL;
	cr_assert_geq(rte_eal_init(argc, argv), 0, "rte_eal_init failed");
	if (getenv("ORDK_TEST_LOG") != NULL) {
		/* Criterion keeps the workers' stdout: logs go to /tmp/ordk-test-<pid>.log */
		char path[64];

		snprintf(path, sizeof(path), "/tmp/ordk-test-%d.log", (int)getpid());
		rte_openlog_stream(fopen(path, "w"));
	}
	done = true;
}

double
test_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *
test_sim_devargs(void)
{
	static char buf[128];
	const char *e = getenv("ORDK_TEST_SIM_DEVARGS");

	if (e == NULL || *e == '\0')
		return "";
	cr_assert_lt(strlen(e), sizeof(buf) - 1, "ORDK_TEST_SIM_DEVARGS too long");
	snprintf(buf, sizeof(buf), ",%s", e);
	return buf;
}

bool
test_sim_rtl(void)
{
	const char *e = getenv("ORDK_TEST_SIM_DEVARGS");

	return e != NULL && strstr(e, "rtl=1") != NULL;
}

void *
test_aligned(size_t align, size_t size)
{
	void *p = NULL;

	cr_assert_eq(posix_memalign(&p, align, size), 0);
	return p;
}

struct rte_mempool *
test_pool(const char *name, unsigned int n)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create(name, n, 0, 0,
							 RTE_PKTMBUF_HEADROOM +
								 BLUESIM_MBUF_DATA_ROOM,
							 SOCKET_ID_ANY);

	cr_assert_not_null(mp, "mempool %s", name);
	return mp;
}

void
test_port_start(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = { 0 };

	cr_assert_eq(rte_eth_dev_configure(port, 1, 1, &conf), 0);
	cr_assert_eq(rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL, pool), 0);
	cr_assert_eq(rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL), 0);
	cr_assert_eq(rte_eth_dev_start(port), 0);
}

uint16_t
test_ring_port(const char *name, struct rte_ring **rx, struct rte_ring **tx)
{
	char n[64];
	int port;

	snprintf(n, sizeof(n), "%s_rx", name);
	*rx = rte_ring_create(n, 8192, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(n, sizeof(n), "%s_tx", name);
	*tx = rte_ring_create(n, 8192, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	cr_assert(*rx != NULL && *tx != NULL);
	port = rte_eth_from_rings(name, rx, 1, tx, 1, SOCKET_ID_ANY);
	cr_assert_geq(port, 0);
	return (uint16_t)port;
}

void
test_ring_pair(const char *name, bool multi_producer, uint16_t *p0, uint16_t *p1,
	       struct rte_ring **rx)
{
	unsigned int flags = RING_F_SC_DEQ | (multi_producer ? 0 : RING_F_SP_ENQ);
	struct rte_ring *a, *b;
	char n[64];
	int r0, r1;

	snprintf(n, sizeof(n), "%s_a", name);
	a = rte_ring_create(n, 8192, SOCKET_ID_ANY, flags);
	snprintf(n, sizeof(n), "%s_b", name);
	b = rte_ring_create(n, 8192, SOCKET_ID_ANY, flags);
	cr_assert(a != NULL && b != NULL);
	snprintf(n, sizeof(n), "%s0", name);
	r0 = rte_eth_from_rings(n, &a, 1, &b, 1, SOCKET_ID_ANY);
	snprintf(n, sizeof(n), "%s1", name);
	r1 = rte_eth_from_rings(n, &b, 1, &a, 1, SOCKET_ID_ANY);
	cr_assert(r0 >= 0 && r1 >= 0);
	*p0 = (uint16_t)r0;
	*p1 = (uint16_t)r1;
	if (rx != NULL) {
		rx[0] = a;
		rx[1] = b;
	}
}

static uint64_t
fake_clock(void *arg)
{
	return ((struct sim_host *)arg)->now_ns;
}

static void *
dma_buf(struct sim_host *h, size_t len)
{
	void *p = aligned_alloc(4096, len);

	cr_assert_not_null(p);
	memset(p, 0, len);
	cr_assert_eq(bluesim_dma_map(h->sim, (uint64_t)(uintptr_t)p, p, len), 0);
	return p;
}

void
sim_host_init(struct sim_host *h, struct bluesim_config *cfg)
{
	memset(h, 0, sizeof(*h));
	if (cfg->clock_ns == NULL) {
		cfg->clock_ns = fake_clock;
		cfg->clock_arg = h;
		h->fake_clock = true;
	}
	h->sim = bluesim_create(cfg);
	cr_assert_not_null(h->sim, "bluesim_create: %s", rte_strerror(rte_errno));
	h->bar = bluesim_bar0(h->sim);
	for (int r = 0; r < BLUE_RING_COUNT; r++) {
		uint32_t csr = blue_ring_csr_base((enum blue_ring_id)r);
		uint64_t iova;

		h->ring[r] = dma_buf(h, BLUE_RING_BYTES);
		iova = (uint64_t)(uintptr_t)h->ring[r];
		sim_host_reg_write(h, BLUE_RING_REG(csr, BLUE_CSR_REG_BASE_LO), (uint32_t)iova);
		sim_host_reg_write(h, BLUE_RING_REG(csr, BLUE_CSR_REG_BASE_HI),
				   (uint32_t)(iova >> 32));
	}
	h->staging = dma_buf(h, 4096);
	h->raw_rx = dma_buf(h, BLUE_SIMPLE_NIC_RX_BUF_SIZE);
	h->snic_tx = dma_buf(h, 4096 * 64);
}

void
sim_host_init_wire(struct sim_host *h, struct bluesim_config *cfg, const char *name,
		   struct rte_mempool *pool, struct rte_ring **rx, struct rte_ring **tx)
{
	uint16_t port = test_ring_port(name, rx, tx);

	test_port_start(port, pool);
	cfg->port_id = port;
	sim_host_init(h, cfg);
}

void
sim_host_fini(struct sim_host *h)
{
	bluesim_destroy(h->sim);
	for (int r = 0; r < BLUE_RING_COUNT; r++)
		free(h->ring[r]);
	free(h->staging);
	free(h->raw_rx);
	free(h->snic_tx);
}

uint32_t
sim_host_reg(struct sim_host *h, uint32_t off)
{
	return __atomic_load_n((volatile uint32_t *)(h->bar + off), __ATOMIC_ACQUIRE);
}

void
sim_host_reg_write(struct sim_host *h, uint32_t off, uint32_t v)
{
	__atomic_store_n((volatile uint32_t *)(h->bar + off), v, __ATOMIC_RELEASE);
}

void
sim_host_poll(struct sim_host *h, unsigned int n)
{
	while (n--)
		bluesim_poll(h->sim, 64);
}

void
sim_host_push_raw(struct sim_host *h, enum blue_ring_id r, const uint8_t *d, uint32_t n)
{
	uint32_t csr = blue_ring_csr_base(r);
	uint32_t tail = sim_host_reg(h, BLUE_RING_REG(csr, BLUE_CSR_REG_TAIL));

	cr_assert_geq(blue_ring_free(h->head[r], tail), n, "ring %s full", blue_ring_name(r));
	for (uint32_t i = 0; i < n; i++)
		memcpy(h->ring[r] + blue_ring_idx(h->head[r] + i) * BLUE_DESC_SIZE,
		       d + i * BLUE_DESC_SIZE, BLUE_DESC_SIZE);
	h->head[r] = blue_ring_advance(h->head[r], n);
	sim_host_reg_write(h, BLUE_RING_REG(csr, BLUE_CSR_REG_HEAD), h->head[r]);
}

/* Consume @p want descriptors of a card-to-host ring if valid; the driver's rule. */
static int
c2h_pop(struct sim_host *h, enum blue_ring_id r, uint8_t *out, bool pair_ok)
{
	uint32_t csr = blue_ring_csr_base(r);
	uint8_t *d0 = h->ring[r] + blue_ring_idx(h->tail[r]) * BLUE_DESC_SIZE, *d1;
	int n = 1;

	if (!(__atomic_load_n(&d0[31], __ATOMIC_ACQUIRE) >> 7))
		return 0;
	memcpy(out, d0, BLUE_DESC_SIZE);
	if (pair_ok && blue_desc_has_next(d0)) {
		d1 = h->ring[r] + blue_ring_idx(h->tail[r] + 1) * BLUE_DESC_SIZE;
		if (!(__atomic_load_n(&d1[31], __ATOMIC_ACQUIRE) >> 7))
			return 0;
		memcpy(out + BLUE_DESC_SIZE, d1, BLUE_DESC_SIZE);
		memset(d1, 0, BLUE_DESC_SIZE);
		n = 2;
	}
	memset(d0, 0, BLUE_DESC_SIZE);
	h->tail[r] = blue_ring_advance(h->tail[r], (uint32_t)n);
	sim_host_reg_write(h, BLUE_RING_REG(csr, BLUE_CSR_REG_TAIL), h->tail[r]);
	return n;
}

int
sim_host_cmd_raw(struct sim_host *h, const uint8_t *desc, uint8_t *resp)
{
	sim_host_push_raw(h, BLUE_RING_CMD_REQ, desc, 1);
	for (int i = 0; i < 1000; i++) {
		bluesim_poll(h->sim, 64);
		if (c2h_pop(h, BLUE_RING_CMD_RESP, resp, false) == 1)
			return resp[29] & 1;
	}
	cr_assert_fail("no command response");
	return -1;
}

struct blue_cmd
sim_host_cmd(struct sim_host *h, const struct blue_cmd *c)
{
	uint8_t d[32], resp[32];
	struct blue_cmd out;

	cr_assert_eq(blue_cmd_encode(c, d), 0);
	sim_host_cmd_raw(h, d, resp);
	cr_assert_eq(blue_desc_valid(resp), 1);
	cr_assert_eq(blue_desc_has_next(resp), 0);
	cr_assert_eq(blue_cmd_decode(resp, &out), 0);
	return out;
}

void
sim_host_start(struct sim_host *h, uint64_t mac, uint32_t ip)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_SET_NETWORK_PARAM, .valid = 1 } };

	h->mac = mac;
	h->ip = ip;
	c.net = (struct blue_cmd_set_network_param){ .local_mac = mac, .local_ip = ip,
						     .netmask = 0xFFFFFF00, .gateway = ip | 1 };
	cr_assert_eq(sim_host_cmd(h, &c).is_success, 1);
	c = (struct blue_cmd){ .hdr = { .opcode = BLUE_CMD_SET_RAW_PACKET_RECEIVE_META,
					.valid = 1 } };
	c.raw.write_base_addr = (uint64_t)(uintptr_t)h->raw_rx;
	cr_assert_eq(sim_host_cmd(h, &c).is_success, 1);
}

bool
sim_host_reg_mr(struct sim_host *h, uint32_t key, void *va, uint32_t len, uint8_t acc,
		uint32_t pgt_offset)
{
	uint64_t a = (uint64_t)(uintptr_t)va;
	uint64_t first = a >> BLUE_PAGE_SHIFT, last = (a + len - 1) >> BLUE_PAGE_SHIFT;
	uint32_t pages = (uint32_t)(last - first + 1);
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };
	bool ok;

	int rc = bluesim_dma_map(h->sim, a, va, len);

	cr_assert(rc == 0 || rc == -EEXIST);
	c.mr = (struct blue_cmd_update_mr_table){ .mr_base_va = a, .mr_length = len,
						  .mr_key = key, .acc_flags = acc,
						  .pgt_offset = pgt_offset };
	ok = sim_host_cmd(h, &c).is_success;
	/* IOVA == VA: the page address of each 2 MiB page is the page itself */
	for (uint32_t done = 0; ok && done < pages;) {
		uint32_t n = pages - done > 64 ? 64 : pages - done;
		uint64_t *e = (uint64_t *)h->staging;

		for (uint32_t i = 0; i < n; i++)
			e[i] = (first + done + i) << BLUE_PAGE_SHIFT;
		c = (struct blue_cmd){ .hdr = { .opcode = BLUE_CMD_UPDATE_PGT, .valid = 1 } };
		c.pgt = (struct blue_cmd_update_pgt){ .dma_addr = (uint64_t)(uintptr_t)h->staging,
						      .start_index = pgt_offset + done,
						      .zero_based_entry_count = n - 1 };
		ok = sim_host_cmd(h, &c).is_success;
		done += n;
	}
	return ok;
}

bool
sim_host_qp(struct sim_host *h, uint32_t qpn, uint32_t peer_qpn, uint32_t peer_ip,
	    uint64_t peer_mac, uint8_t pmtu, uint8_t acc)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } };

	c.qp = (struct blue_cmd_manage_qp){ .is_valid = 1, .qpn = qpn, .peer_qpn = peer_qpn,
					    .peer_ip = peer_ip, .peer_mac = peer_mac,
					    .pmtu = pmtu, .rq_access_flags = acc,
					    .qp_type = BLUE_QPT_RC, .local_udp_port = 0x100 };
	return sim_host_cmd(h, &c).is_success;
}

void
sim_host_send(struct sim_host *h, const struct blue_send_item *it)
{
	uint8_t d[64];

	cr_assert_eq(blue_send_item_encode(it, d), 0);
	sim_host_push_raw(h, BLUE_RING_SEND0, d, 2);
}

int
sim_host_meta(struct sim_host *h, struct blue_meta_report *rep)
{
	uint8_t d[64];
	int n = c2h_pop(h, BLUE_RING_META0, d, true);

	if (n == 0)
		return 0;
	/* The card copies a received ACK's flags: a peer's bogus flags make a report
	 * the classification table rejects. A driver counts those; so does this host. */
	if (blue_meta_decode(d, d + 32, rep) != n)
		rep->kind = BLUE_META_KIND_COUNT;
	return n;
}

int
sim_host_meta_all(struct sim_host *h, struct blue_meta_report *out, int max)
{
	struct blue_meta_report r;
	int n = 0;

	while (sim_host_meta(h, &r) > 0) {
		if (out != NULL && n < max)
			out[n] = r;
		n++;
	}
	return n;
}

void
sim_host_snic_tx(struct sim_host *h, const void *frame, uint32_t len)
{
	uint8_t *slot = h->snic_tx + (h->snic_tx_slot++ % 64) * 4096;
	struct blue_simple_nic_tx tx = { .len = len, .addr = (uint64_t)(uintptr_t)slot };
	uint8_t d[32];

	memcpy(slot, frame, len);
	cr_assert_eq(blue_simple_nic_tx_encode(&tx, d), 0);
	sim_host_push_raw(h, BLUE_RING_SIMPLE_NIC_TX, d, 1);
}

uint32_t
sim_host_snic_rx(struct sim_host *h, uint8_t *buf)
{
	struct blue_simple_nic_rx rx;
	uint8_t d[32];

	if (c2h_pop(h, BLUE_RING_SIMPLE_NIC_RX, d, false) == 0)
		return 0;
	cr_assert_eq(blue_simple_nic_rx_decode(d, &rx), 0);
	memcpy(buf, h->raw_rx + (size_t)rx.slot_idx * BLUE_SIMPLE_NIC_RX_SLOT_SIZE, rx.len);
	return rx.len;
}

struct rte_mbuf *
test_frame_mbuf(struct rte_mempool *pool, const void *f, uint32_t len, bool fcs)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	cr_assert_not_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(len + (fcs ? 4 : 0)));
	cr_assert_not_null(p);
	memcpy(p, f, len);
	if (fcs)
		blue_wire_fcs_append(p, len, len + 4);
	return m;
}

int
test_reap(int pid, double seconds)
{
	int status = 0;

	for (double end = test_now_s() + seconds; test_now_s() < end; usleep(1000))
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}
