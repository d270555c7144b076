/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The seam between the PMD and what sits behind BAR0: the card through VFIO,
 * or bluesim. The PMD knows only this: where BAR0 is, how to make memory
 * DMA-able (and at which IOVA the device sees it), and, for a model, how to
 * let it step. No model knowledge crosses this line.
 */
#ifndef BLUE_BACKEND_H
#define BLUE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "ordk_devargs.h"

struct blue_backend;

struct blue_backend_ops {
	/** Make [va, va + len) reachable by the device; *iova is where it sees va. */
	int (*dma_map)(struct blue_backend *be, void *va, uint64_t len, uint64_t *iova);
	/** Undo dma_map of exactly this va. */
	int (*dma_unmap)(struct blue_backend *be, void *va, uint64_t len);
	/**
	 * Make [va, va + len) reachable at a chosen @p iova (the SimpleNic RX
	 * buffer at IOVA 0, where the RTL writes), or NULL when the device sees
	 * physical addresses and the IOVA cannot be chosen. Mapped until close.
	 */
	int (*dma_map_at)(struct blue_backend *be, void *va, uint64_t len, uint64_t iova);
	/** Step a model; NULL for hardware. */
	unsigned int (*poll)(struct blue_backend *be, unsigned int budget);
	/** Counters of what is behind BAR0 (model xstats), or NULL. */
	unsigned int (*xstats)(struct blue_backend *be, const char **names, uint64_t *values,
			       unsigned int n);
	/** Zero those counters, or NULL. */
	void (*xstats_reset)(struct blue_backend *be);
	/**
	 * Change injected faults ("drop:0.01,corrupt-rx:0.001"; kinds not named
	 * keep their rates), or NULL where there is nothing to inject into.
	 */
	int (*set_faults)(struct blue_backend *be, const char *spec, char *err, uint32_t errlen);
	void (*close)(struct blue_backend *be);
};

struct blue_backend {
	const struct blue_backend_ops *ops;
	volatile uint8_t *bar0;
	bool needs_pa;	   /**< the device DMAs by physical address: 2 MiB hugepages only */
	/**
	 * The card's PSN bitmap locks on a PSN 128 or more behind its window (the
	 * RTL: the card itself, bluesim rtl=1): senders then keep every packet
	 * inside the peer card's window (rc_req.c card_window_fits()).
	 */
	bool window_locks;
	uint32_t snic_slot;	/**< SimpleNic RX slot size (devargs snic_slot=; 0: 2048, the RTL's) */
	bool snic_any_iova;	/**< snic_iova0=0: the card honours SetRawPacketReceiveMeta, the RX
				     buffer may sit anywhere (default: at IOVA 0, as the RTL needs) */
	char name[32];
	void *priv;
};

/**
 * The bluesim provider (drivers/rdma/bluesim/sim_backend.c): parses the
 * model's devargs (port=, fault=, ...) from @p args and creates the model.
 * @return 0 or a negative errno (-ENODEV: no such port), message in err.
 */
int blue_sim_backend_open(const char *args, struct blue_backend *be, char *err, uint32_t errlen);

/* ------------------------------------------------------------- devargs */

struct blue_cc_args;

/** The driver's devargs: the card's address (SetNetworkParam), congestion control. */
struct blue_net_args {
	uint64_t mac;
	uint32_t ip;
	struct blue_cc_args *cc; /* cc=, cc_trace=, cc_<key>= (blue_cc.c) */
};

/*
 * The cc_<key>= devargs: lib/cc's cc_params_parse() keys, each listed (an
 * unknown cc_ key is refused like any unknown key).
 */
#define BLUE_CC_KEYS(X)                                                                 \
	X(max_rate) X(min_rate) X(rai) X(rhai) X(g) X(alpha_init) X(alpha_us) X(timer_us) \
	X(byte_counter) X(fr_steps) X(item_pkts) X(burst_us) X(cut_gap_us)
#define BLUE_CC_KEY_ONE(k) +1u
#define BLUE_CC_KEY_DECL(k) int blue_cc_arg_##k(const char *v, void *arg, char *err, size_t errlen);
BLUE_CC_KEYS(BLUE_CC_KEY_DECL)
int blue_cc_arg_on(const char *v, void *arg, char *err, size_t errlen);
int blue_cc_arg_trace(const char *v, void *arg, char *err, size_t errlen);

/* mac=, ip=, cc=, cc_trace= and the cc_<key>= */
#define BLUE_NET_DEVARGS_COUNT (4u BLUE_CC_KEYS(BLUE_CC_KEY_ONE))
/** The driver's keys: backends accept them as another owner's keys. */
extern const struct ordk_devarg blue_net_devargs[BLUE_NET_DEVARGS_COUNT];

/**
 * The driver's pass over @p args: mac= and ip= into @p net (left as they are
 * when absent), the congestion-control keys into net->cc; the backend's @p n
 * keys accepted, every other key refused.
 * @return 0 or -EINVAL with the reason in @p err.
 */
int blue_net_args_parse(const char *args, const struct ordk_devarg *backend_keys, unsigned int n,
			struct blue_net_args *net, char *err, size_t errlen);

#endif /* BLUE_BACKEND_H */
