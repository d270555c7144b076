/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The test switch: N started ethdev ports (net_ring in one process, net_memif
 * or any PMD for the standalone app), an L2 forwarder by destination MAC
 * (addresses learnt from source MACs, or set with sw_switch_add_mac(); an
 * unknown or multicast destination is flooded), and behind every port an
 * egress queue modelled by sw_queue (shaping, ECN marking, tail drop,
 * counters). Marking sets CE in the IPv4 header's ECN bits and rewrites the
 * header checksum.
 *
 * It is a library so that a test rig can step it in the same poll loop as its
 * bluesim devices (two busy processes fill a two-core machine): one
 * sw_switch_poll() receives a burst on every port and transmits whatever each
 * shaper allows at the given time. Every call comes from one lcore. The clock
 * is the caller's (ns), so a test can run it on a virtual one.
 */
#ifndef SW_SWITCH_H
#define SW_SWITCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sw_queue.h"

#define SW_MAX_PORTS 16
#define SW_MAC_SLOTS 256

struct rte_mbuf;

/** Per port, beyond its egress queue's counters. */
struct sw_port_stats {
	uint64_t rx;	   /* frames received */
	uint64_t rx_bad;   /* runts: shorter than an Ethernet header */
	uint64_t flooded;  /* frames with an unknown or group destination */
	uint64_t tx_retry; /* frames the port refused, kept and retried */
	uint64_t not_ip;   /* frames queued without an IPv4 ECN field */
};

struct sw_port {
	uint16_t ethdev;
	struct sw_queue q;
	struct rte_mbuf **fifo; /* the queued frames, in order */
	uint32_t fifo_mask, head, tail;
	struct sw_port_stats st;
};

struct sw_switch {
	unsigned int nports;
	struct sw_port port[SW_MAX_PORTS];
	struct {
		uint64_t mac; /* 0: free */
		uint8_t port;
	} fdb[SW_MAC_SLOTS];
	/* frames end in a CRC-32 trailer (bluesim's fcs=1, the default): a mark
	 * rewrites it, as a switch recomputes the FCS of a frame it changed */
	bool fcs;
	/* queue-depth trace (see doc/guides/prog_guide/congestion.md, "Trace CSV") */
	FILE *trace;
	uint64_t trace_every_ns, trace_next_ns;
};

/**
 * A switch over @p n started ethdevs @p ethdev[], every egress queue configured
 * from @p cfg (the seed of port i is cfg->seed + i). @return 0, -EINVAL (bad
 * arguments or @p cfg) or -ENOMEM.
 */
int sw_switch_init(struct sw_switch *sw, const uint16_t *ethdev, unsigned int n,
		   const struct sw_queue_cfg *cfg, uint64_t now_ns);
/** Free every queued frame and the queues. The ethdevs stay the caller's. */
void sw_switch_fini(struct sw_switch *sw);
/** Reconfigure one egress queue (its frames stay queued, counters restart). */
int sw_switch_set_queue(struct sw_switch *sw, unsigned int port, const struct sw_queue_cfg *cfg,
			uint64_t now_ns);
/**
 * Static forwarding entry: frames to @p mac (48 bits, first byte most
 * significant) leave on @p port. @return 0, -EINVAL (no such port, or @p mac
 * not a station address: zero, broadcast, multicast), -ENOSPC (the table is full).
 */
int sw_switch_add_mac(struct sw_switch *sw, uint64_t mac, unsigned int port);
/**
 * Receive up to a burst on every port, forward, then transmit on every port
 * what its shaper allows at @p now_ns; writes trace rows when due.
 * @return frames moved (received + sent).
 */
unsigned int sw_switch_poll(struct sw_switch *sw, uint64_t now_ns);
/** Write one "t_ns,port<i>,queue_bytes,<depth>" row per port every @p every_ns to @p f (NULL: off).
 */
void sw_switch_trace(struct sw_switch *sw, FILE *f, uint64_t every_ns, uint64_t now_ns);
/** Print the counters of every port (the app's --stats and the tests' failure output). */
void sw_switch_print_stats(const struct sw_switch *sw, FILE *f);

#endif /* SW_SWITCH_H */
