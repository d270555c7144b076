/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal host for bluesim tests: drives the model through its rings and
 * registers exactly as a driver would (descriptors in host memory, HEAD/TAIL
 * writes, DMA mappings), with no PMD in between. Test code only.
 */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "blue_desc.h"
#include "blue_wire.h"
#include "bluesim.h"

/** The lcore test_eal_init() pins the process to (default 0; a second process uses 1). */
extern int test_eal_lcore;
/** Set before test_eal_init(): DPDK telemetry on (its socket in the runtime dir), not --no-telemetry. */
extern bool test_eal_telemetry;
/** EAL for a test process: --no-huge, --no-pci, a unique file prefix. Idempotent. */
void test_eal_init(const char *extra);

/** An ethdev over two rte_rings the test holds: frames the model sends land in *tx. */
uint16_t test_ring_port(const char *name, struct rte_ring **rx, struct rte_ring **tx);
/**
 * Two ethdevs joined by a pair of rings (a wire between two models). With
 * @p multi_producer the test may inject frames into either ring beside the
 * ports. @p rx, when not NULL, gets the two ports' RX rings (rx[0]: *p0's).
 */
void test_ring_pair(const char *name, bool multi_producer, uint16_t *p0, uint16_t *p1,
		    struct rte_ring **rx);
/** Configure and start an ethdev with one RX and one TX queue. */
void test_port_start(uint16_t port, struct rte_mempool *pool);
struct rte_mempool *test_pool(const char *name, unsigned int n);
/** Monotonic time in seconds, for time-bounded test loops. */
double test_now_s(void);
/**
 * Wait up to @p seconds for child @p pid (sleeping, not spinning); one still
 * running then is killed (SIGKILL) and reaped. @return its wait status.
 */
int test_reap(int pid, double seconds);
/**
 * Extra bluesim devargs from ORDK_TEST_SIM_DEVARGS (e.g. "rtl=1": the func and
 * fault suites run again on the RTL's behaviour, suite func-rtl), with a
 * leading comma, or "" when unset.
 */
const char *test_sim_devargs(void);
/** Does ORDK_TEST_SIM_DEVARGS select the RTL's behaviour (rtl=1)? */
bool test_sim_rtl(void);
/** posix_memalign that asserts (any size, unlike C11 aligned_alloc); free() it. */
void *test_aligned(size_t align, size_t size);

struct sim_host {
	struct bluesim *sim;
	volatile uint8_t *bar;
	uint8_t *ring[BLUE_RING_COUNT]; /* 128 KiB each, 4 KiB aligned */
	uint32_t head[BLUE_RING_COUNT]; /* producer shadow (H2C rings) */
	uint32_t tail[BLUE_RING_COUNT]; /* consumer shadow (C2H rings) */
	uint8_t *staging;		/* 4 KiB: PGT entries */
	uint8_t *raw_rx;		/* 2 MiB SimpleNic RX buffer */
	uint8_t *snic_tx;		/* 4096 x 4 KiB TX frame slots */
	uint32_t snic_tx_slot;
	uint64_t mac;
	uint32_t ip;
	uint64_t now_ns; /* the model's clock when fake_clock is set */
	bool fake_clock;
};

/** Create the model and the host's rings; set ring bases. */
void sim_host_init(struct sim_host *h, struct bluesim_config *cfg);
/**
 * sim_host_init() with the model on a new ethdev named @p name over two rings
 * the test holds (test_ring_port(): frames for the model go into *rx, the
 * model's land in *tx), started with @p pool; sets cfg->port_id.
 */
void sim_host_init_wire(struct sim_host *h, struct bluesim_config *cfg, const char *name,
			struct rte_mempool *pool, struct rte_ring **rx, struct rte_ring **tx);
void sim_host_fini(struct sim_host *h);

uint32_t sim_host_reg(struct sim_host *h, uint32_t off);
void sim_host_reg_write(struct sim_host *h, uint32_t off, uint32_t v);

/** Push one command, step the model until its response; @return the response. */
struct blue_cmd sim_host_cmd(struct sim_host *h, const struct blue_cmd *c);
/** Push raw 32-byte command bytes; @return the response bytes' is_success. */
int sim_host_cmd_raw(struct sim_host *h, const uint8_t *desc, uint8_t *resp);
/** SetNetworkParam + SetRawPacketReceiveMeta. */
void sim_host_start(struct sim_host *h, uint64_t mac, uint32_t ip);
/** DMA-map [va, va+len) identity, UpdateMrTable + UpdatePGT; @return is_success. */
bool sim_host_reg_mr(struct sim_host *h, uint32_t key, void *va, uint32_t len, uint8_t acc,
		     uint32_t pgt_offset);
bool sim_host_qp(struct sim_host *h, uint32_t qpn, uint32_t peer_qpn, uint32_t peer_ip,
		 uint64_t peer_mac, uint8_t pmtu, uint8_t acc);
/** Push a Send item (two descriptors) and write HEAD. */
void sim_host_send(struct sim_host *h, const struct blue_send_item *it);
/** Push raw descriptors on a host-to-card ring and write HEAD. */
void sim_host_push_raw(struct sim_host *h, enum blue_ring_id r, const uint8_t *d, uint32_t n);
/**
 * Consume one meta report as the driver does; @return descriptors consumed (0: none).
 * A report that does not decode comes back with kind BLUE_META_KIND_COUNT.
 */
int sim_host_meta(struct sim_host *h, struct blue_meta_report *rep);
/** Take every meta report waiting: the first @p max into @p out (may be NULL). @return how many. */
int sim_host_meta_all(struct sim_host *h, struct blue_meta_report *out, int max);
/** Send a raw frame through SimpleNic TX. */
void sim_host_snic_tx(struct sim_host *h, const void *frame, uint32_t len);
/** Receive one SimpleNic RX frame; @return its length, 0 if none. */
uint32_t sim_host_snic_rx(struct sim_host *h, uint8_t *buf);
/** Step the model @p n times. */
void sim_host_poll(struct sim_host *h, unsigned int n);

/** Build a mbuf holding @p len bytes (with the FCS trailer when @p fcs). */
struct rte_mbuf *test_frame_mbuf(struct rte_mempool *pool, const void *f, uint32_t len, bool fcs);

#endif /* SIM_HOST_H */
