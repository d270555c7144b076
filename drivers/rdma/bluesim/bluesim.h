/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * bluesim: a software model of the Blue RDMA card at its host interface.
 *
 * The model owns a BAR0 block (zeroed memory) that the host reads and writes
 * exactly as it would the card's BAR0 (doc/guides/drivers/blue_hw_interface.md
 * section 1). It fetches
 * descriptors from host memory, executes commands, turns Send items into
 * frames on a DPDK ethdev port, checks and places received frames, and writes
 * meta reports, all through one DMA function that refuses any address the
 * host did not map for the device (bluesim_dma_map()).
 *
 * The model does no work on its own: bluesim_poll() does a bounded amount and
 * returns it, so it runs inline in the host's poll loop or on a service lcore.
 * One lcore at a time may call the functions of one model.
 */
#ifndef BLUESIM_H
#define BLUESIM_H

#include <stdbool.h>
#include <stdint.h>

#include "ordk_devargs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bluesim;
struct rte_mempool;

/** Port id meaning "no ethdev: transmitted frames come back to this model". */
#define BLUESIM_PORT_LOOPBACK UINT16_MAX

/** Fault kinds, injected per direction. */
enum bluesim_fault {
	BLUESIM_FAULT_DROP = 0,
	BLUESIM_FAULT_DUP,
	BLUESIM_FAULT_REORDER, /**< hold a frame back until reorder_depth later frames passed */
	BLUESIM_FAULT_CORRUPT, /**< flip one byte (caught by the FCS trailer or the checks) */
	BLUESIM_FAULT_DELAY,   /**< hold a frame for delay_us */
	BLUESIM_FAULT_COUNT
};

enum bluesim_dir { BLUESIM_DIR_TX = 0, BLUESIM_DIR_RX = 1, BLUESIM_DIR_COUNT = 2 };

struct bluesim_fault_cfg {
	double rate[BLUESIM_DIR_COUNT][BLUESIM_FAULT_COUNT]; /**< probability per frame */
	uint32_t reorder_depth; /**< default 3 */
	uint32_t delay_us;	/**< default 100 */
	uint64_t seed;		/**< 0 picks a fixed default */
};

/** Creation parameters (bluesim_config_defaults() fills them). */
struct bluesim_config {
	const char *name;	     /**< for logs and capture ("bluesim0") */
	uint16_t port_id;	     /**< ethdev port, or BLUESIM_PORT_LOOPBACK */
	uint16_t queue_id;	     /**< RX and TX queue on that port */
	struct rte_mempool *pool;    /**< mbufs for TX (data room >= BLUESIM_MBUF_DATA_ROOM);
					  NULL: the model creates its own */
	int socket_id;
	bool fcs;		     /**< append/check a CRC-32 trailer (default true) */
	uint32_t idle_timeout_ns;    /**< bitmap idle report timeout (default 20000: 5000 cycles) */
	const char *pcap_path;	     /**< capture every frame sent and received, or NULL */
	struct bluesim_fault_cfg fault;
	uint64_t (*clock_ns)(void *arg); /**< time source; NULL: the TSC */
	void *clock_arg;
	volatile void *bar;	     /**< the register block to serve (BLUE_BAR0_SIZE bytes), e.g.
					  shared memory a VM maps as its PCI BAR; NULL: the model's own */
	bool rtl;		     /**< behave as the open-rdma RTL does where it departs from
					  doc/guides/drivers/blue_hw_interface.md section 10;
					  false: the spec, strictly */
	uint32_t snic_slot;	     /**< SimpleNic RX slot size in bytes (default 2048, the RTL's) */
	bool cnp;		     /**< rtl=0: the notification point: a CE-marked packet makes a
					  CNP (as the RTL), a received CNP is reported (kind Cnp) */
	bool zcopy;		     /**< payloads go to the port as MR memory (external mbufs) where
					  the port copies on transmit (default false; sim_port.c) */
};

/** Smallest mbuf data room the model needs for a PMTU-4096 frame with its trailer. */
#define BLUESIM_MBUF_DATA_ROOM 4352u

void bluesim_config_defaults(struct bluesim_config *cfg);

/**
 * Parse model devargs into @p cfg: `port=<ethdev name|id|loopback>`,
 * `fault=drop:0.01,dup-rx:0.001,...` (kinds drop, dup, reorder, corrupt, delay;
 * a -tx or -rx suffix limits a kind to one direction), `seed=N`,
 * `reorder_depth=N`, `delay_us=N`, `fcs=0|1`, `idle_us=N`, `pcap=FILE`, `rtl=0|1`,
 * `snic_slot=N` (a power of two, 128..2048), `zcopy=0|1`.
 * Lists may sit in brackets (`fault=[drop:0.01,dup:0.001]`). A key not in
 * bluesim_devargs is refused with its name in @p err.
 * Strings in @p cfg point into @p keep, a buffer the caller keeps alive.
 * @return 0, -ENODEV (port= names no ethdev), or -EINVAL with the reason in @p err.
 */
int bluesim_parse_devargs(const char *args, struct bluesim_config *cfg, char *keep,
			  uint32_t keep_len, char *err, uint32_t err_len);

#define BLUESIM_DEVARGS_COUNT 12u
/** The model's devargs keys and their handlers (an ordk_devargs_set's keys, arg a bluesim_config). */
extern const struct ordk_devarg bluesim_devargs[BLUESIM_DEVARGS_COUNT];

/** Parse a fault list ("drop:0.01,corrupt-rx:0.001") into @p f. */
int bluesim_parse_faults(const char *list, struct bluesim_fault_cfg *f, char *err,
			 uint32_t err_len);

/**
 * Create a model. The ethdev port must be configured and started by the
 * caller with an RX and a TX queue @p cfg->queue_id.
 * @return the model, or NULL with rte_errno set.
 */
struct bluesim *bluesim_create(const struct bluesim_config *cfg);
void bluesim_destroy(struct bluesim *sim);

/** The BAR0 block (BLUE_BAR0_SIZE bytes, 32-bit registers). */
volatile void *bluesim_bar0(struct bluesim *sim);

/**
 * Make [iova, iova + len) accessible to the device, backed by host memory at
 * @p va (an IOMMU mapping). @return 0, -EINVAL (overlap, zero length), -ENOSPC.
 */
int bluesim_dma_map(struct bluesim *sim, uint64_t iova, void *va, uint64_t len);
/**
 * Make [iova, iova + len) inaccessible again, cutting mappings that extend
 * beyond it. @return 0, or -ENOENT when nothing in the range was mapped,
 * -ENOSPC when a split needs a table entry and none is left.
 */
int bluesim_dma_unmap(struct bluesim *sim, uint64_t iova, uint64_t len);

/** Do up to @p budget units of work (descriptors, frames); return the work done. */
unsigned int bluesim_poll(struct bluesim *sim, unsigned int budget);
/**
 * Run the command unit alone (as bluesim_poll() does first): the commands
 * on CmdReq are executed and answered. @return how many.
 */
unsigned int bluesim_cmd_poll(struct bluesim *sim);

/** Change fault rates at run time. */
void bluesim_set_faults(struct bluesim *sim, const struct bluesim_fault_cfg *f);

/**
 * The port's link went down (@p up false) or came up: while down the port is
 * neither read nor written (frames to send are dropped, tx_link_down); the
 * rest of the model runs on.
 */
void bluesim_set_link(struct bluesim *sim, bool up);

/** The fault configuration in force. @return 0 or -EINVAL. */
int bluesim_get_faults(const struct bluesim *sim, struct bluesim_fault_cfg *f);

/**
 * Note @p text on the wire capture (pcap=), as the next captured frame's
 * comment. @return false when the model writes no capture.
 */
bool bluesim_capture_note(struct bluesim *sim, const char *text);

/** Counters. Names in bluesim_xstat_names(); values in the same order. */
unsigned int bluesim_xstats_count(void);
const char *bluesim_xstat_name(unsigned int i);
/** Fill @p values (bluesim_xstats_count() entries); @return the count. */
unsigned int bluesim_xstats_get(const struct bluesim *sim, uint64_t *values);
/** One counter by name; UINT64_MAX when unknown. */
uint64_t bluesim_xstat(const struct bluesim *sim, const char *name);
void bluesim_xstats_reset(struct bluesim *sim);

#ifdef __cplusplus
}
#endif

#endif /* BLUESIM_H */
