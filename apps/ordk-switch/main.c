/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-switch: the congestion test switch (sw_switch) as a standalone process
 * over the ethdevs EAL creates (net_memif, af_packet, net_ring, a NIC).
 *
 *   ordk-switch EAL args -- [--queue K=V,...] [--port-queue P:K=V,...]
 *               [--mac AA:BB:CC:DD:EE:FF@P] [--stats SECONDS] [--trace FILE]
 *               [--trace-us N] [--duration SECONDS] [--console] [--fcs] [-h]
 *
 * Every port's egress queue is configured by --queue (sw_queue keys: rate,
 * burst, cap, aqm, kmin, kmax, pmax, k, not_ect, seed), one port's by
 * --port-queue. Counters print every --stats seconds (0: at the end only) and
 * at the end; SIGINT or SIGTERM ends the run. --console reads commands from
 * stdin while the switch runs: stats, queue PORT K=V,..., mac MAC@PORT, quit. In-process rigs link
 * the ordk_switch library instead and call sw_switch_poll() from their own loop.
 */
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>

#include "app_common.h"
#include "ordk_devargs.h"
#include "sw_switch.h"

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ordk-switch EAL args -- [--queue K=V,...] [--port-queue P:K=V,...]\n"
		"         [--mac AA:BB:CC:DD:EE:FF@P] [--stats S] [--trace FILE] [--trace-us N]\n"
		"         [--duration S] [--console] [--fcs] [-h]\n"
		"  every ethdev EAL created is a switch port (e.g. --vdev net_memif0,...)\n"
		"  --fcs: frames end in bluesim's CRC-32 trailer (its fcs=1): a mark rewrites it\n"
		"  queue keys: rate (bytes/s) burst cap kmin kmax k (bytes) pmax\n"
		"              aqm=none|red|step not_ect=pass|drop|mark seed\n");
}

struct opts {
	const char *queue;
	const char *port_queue[SW_MAX_PORTS];
	const char *macs[64];
	unsigned int nmacs;
	double stats_s, duration_s;
	const char *trace;
	uint64_t trace_ns;
	bool console;
	bool fcs;
};

static const struct option long_opts[] = {
	{"queue", required_argument, NULL, 'q'},
	{"port-queue", required_argument, NULL, 'p'},
	{"mac", required_argument, NULL, 'm'},
	{"stats", required_argument, NULL, 's'},
	{"trace", required_argument, NULL, 't'},
	{"trace-us", required_argument, NULL, 'u'},
	{"duration", required_argument, NULL, 'd'},
	{"console", no_argument, NULL, 'c'},
	{"fcs", no_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	int c;
	char *end;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o->queue = optarg;
			break;
		case 'p': {
			unsigned long p = strtoul(optarg, &end, 10);

			if (*end != ':' || p >= SW_MAX_PORTS) {
				fprintf(stderr, "ordk-switch: --port-queue %s: want P:K=V,...\n",
					optarg);
				return -1;
			}
			o->port_queue[p] = end + 1;
			break;
		}
		case 'm':
			if (o->nmacs == 64) {
				fprintf(stderr, "ordk-switch: at most 64 --mac\n");
				return -1;
			}
			o->macs[o->nmacs++] = optarg;
			break;
		case 's':
		case 'd':
			*(c == 's' ? &o->stats_s : &o->duration_s) = strtod(optarg, &end);
			if (*end != '\0' || *(c == 's' ? &o->stats_s : &o->duration_s) < 0) {
				fprintf(stderr, "ordk-switch: bad number '%s'\n", optarg);
				return -1;
			}
			break;
		case 't':
			o->trace = optarg;
			break;
		case 'c':
			o->console = true;
			break;
		case 'f':
			o->fcs = true;
			break;
		case 'u':
			o->trace_ns = strtoull(optarg, &end, 10) * 1000;
			if (*end != '\0' || o->trace_ns == 0) {
				fprintf(stderr, "ordk-switch: bad --trace-us '%s'\n", optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "ordk-switch: %s: unknown option or missing value\n",
				argv[optind - 1]);
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ordk-switch: %s: unexpected argument\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* ns since the first call: the shaper's clock and the trace's time axis */
static uint64_t
now_ns(void)
{
	static uint64_t t0;
	uint64_t c = rte_get_timer_cycles();

	if (t0 == 0)
		t0 = c;
	return (uint64_t)((double)(c - t0) * 1e9 / (double)rte_get_timer_hz());
}

/*
 * "AA:BB:CC:DD:EE:FF@PORT": a static forwarding entry, for a station (a
 * unicast MAC). @return 0, or -1 with the reason in @p why (empty: the syntax).
 */
static int
add_mac(struct sw_switch *sw, const char *spec, char *why, size_t len)
{
	struct rte_ether_addr a;
	const char *at = strchr(spec, '@');
	char mac[32], *end;
	unsigned long port;
	uint64_t v = 0;

	why[0] = '\0';
	if (at == NULL || (size_t)(at - spec) >= sizeof(mac))
		return -1;
	memcpy(mac, spec, (size_t)(at - spec));
	mac[at - spec] = '\0';
	port = strtoul(at + 1, &end, 10);
	if (rte_ether_unformat_addr(mac, &a) != 0 || end == at + 1 || *end != '\0')
		return -1;
	for (int k = 0; k < RTE_ETHER_ADDR_LEN; k++)
		v = v << 8 | a.addr_bytes[k];
	if (ordk_devargs_check_mac("mac", v, why, len) != 0)
		return -1;
	return sw_switch_add_mac(sw, v, (unsigned int)port) == 0 ? 0 : -1;
}

static int
configure(struct sw_switch *sw, const struct opts *o, uint16_t *ports, unsigned int n)
{
	struct sw_queue_cfg cfg;
	char err[160];
	int rc;

	sw_queue_cfg_default(&cfg);
	if (sw_queue_cfg_parse(&cfg, o->queue, err, sizeof(err)) != 0) {
		fprintf(stderr, "ordk-switch: --queue: %s\n", err);
		return -1;
	}
	rc = sw_switch_init(sw, ports, n, &cfg, now_ns());
	if (rc != 0) {
		fprintf(stderr, "ordk-switch: switch: %s\n", strerror(-rc));
		return -1;
	}
	sw->fcs = o->fcs;
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++) {
		struct sw_queue_cfg pc = cfg;

		if (o->port_queue[i] == NULL)
			continue;
		if (i >= n || sw_queue_cfg_parse(&pc, o->port_queue[i], err, sizeof(err)) != 0 ||
		    sw_switch_set_queue(sw, i, &pc, now_ns()) != 0) {
			fprintf(stderr, "ordk-switch: --port-queue %u: %s\n", i,
				i >= n ? "no such port" : err);
			return -1;
		}
	}
	for (unsigned int i = 0; i < o->nmacs; i++)
		if (add_mac(sw, o->macs[i], err, sizeof(err)) != 0) {
			if (err[0])
				fprintf(stderr, "ordk-switch: --%s\n", err);
			else
				fprintf(stderr, "ordk-switch: --mac %s: want AA:BB:CC:DD:EE:FF@PORT\n",
					o->macs[i]);
			return -1;
		}
	return 0;
}

/* One console line. @return 1 to quit, else 0. */
static int
command(struct sw_switch *sw, char *line)
{
	char *cmd = strtok(line, " \t\r\n"), *arg = strtok(NULL, " \t\r\n");
	char *arg2 = strtok(NULL, " \t\r\n"), err[160];

	if (cmd == NULL)
		return 0;
	if (strcmp(cmd, "quit") == 0)
		return 1;
	if (strcmp(cmd, "stats") == 0) {
		sw_switch_print_stats(sw, stdout);
	} else if (strcmp(cmd, "help") == 0) {
		printf("stats | queue PORT K=V,... | mac AA:BB:CC:DD:EE:FF@PORT | quit\n");
	} else if (strcmp(cmd, "mac") == 0) {
		if (arg == NULL || add_mac(sw, arg, err, sizeof(err)) != 0)
			printf("%s\n", arg != NULL && err[0] ? err : "mac: want AA:BB:CC:DD:EE:FF@PORT");
	} else if (strcmp(cmd, "queue") == 0) {
		unsigned long p = arg ? strtoul(arg, NULL, 10) : SW_MAX_PORTS;
		struct sw_queue_cfg c;

		if (arg2 == NULL || p >= sw->nports) {
			printf("queue: want PORT (< %u) K=V,...\n", sw->nports);
			return 0;
		}
		c = sw->port[p].q.cfg;
		if (sw_queue_cfg_parse(&c, arg2, err, sizeof(err)) != 0)
			printf("queue: %s\n", err);
		else if (sw_switch_set_queue(sw, (unsigned int)p, &c, now_ns()) == 0)
			printf("queue %lu: set, counters restart\n", p);
	} else {
		printf("unknown command '%s' (help lists them)\n", cmd);
	}
	return 0;
}

/* Read what stdin has without blocking; run complete lines. @return 1 to quit. */
static int
console(struct sw_switch *sw, bool *open)
{
	static char buf[512];
	static size_t len;
	struct pollfd pf = {.fd = 0, .events = POLLIN};
	ssize_t n;
	char *nl;

	if (!*open || poll(&pf, 1, 0) <= 0)
		return 0;
	n = read(0, buf + len, sizeof(buf) - 1 - len);
	if (n <= 0) {
		*open = false; /* end of input: the switch runs on */
		return 0;
	}
	len += (size_t)n;
	buf[len] = '\0';
	while ((nl = strchr(buf, '\n')) != NULL) {
		*nl = '\0';
		if (command(sw, buf) != 0)
			return 1;
		len -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, len + 1);
	}
	if (len == sizeof(buf) - 1)
		len = 0; /* a line too long: dropped */
	return 0;
}

static void
run(struct sw_switch *sw, const struct opts *o)
{
	uint64_t start = now_ns(), next_stats;
	uint64_t stats_ns = (uint64_t)(o->stats_s * 1e9), end_ns = (uint64_t)(o->duration_s * 1e9);

	bool in_open = o->console;

	next_stats = start + stats_ns;
	for (uint64_t i = 0; !quit; i++) {
		uint64_t t = now_ns();

		sw_switch_poll(sw, t);
		if ((i & 1023) == 0 && console(sw, &in_open) != 0)
			break;
		if (end_ns != 0 && t - start >= end_ns)
			break;
		if (stats_ns != 0 && t >= next_stats) {
			printf("--- %.3f s\n", (double)(t - start) / 1e9);
			sw_switch_print_stats(sw, stdout);
			next_stats = t + stats_ns;
		}
	}
}

int
main(int argc, char **argv)
{
	struct opts o = {.trace_ns = 10000};
	static struct sw_switch sw;
	uint16_t ports[SW_MAX_PORTS];
	struct rte_mempool *mp;
	unsigned int n = 0;
	uint16_t pid;
	FILE *trace = NULL;
	int used, rc = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	used = rte_eal_init(argc, argv);
	if (used < 0) {
		fprintf(stderr, "ordk-switch: EAL init failed (give EAL arguments, then --)\n");
		return 1;
	}
	if (parse_opts(argc - used, argv + used, &o) != 0)
		goto out;
	mp = ordk_env_frame_pool("sw_pool", 16383);
	if (mp == NULL) {
		fprintf(stderr, "ordk-switch: no mbuf pool\n");
		goto out;
	}
	RTE_ETH_FOREACH_DEV(pid)
	{
		if (n == SW_MAX_PORTS)
			break;
		if (ordk_env_port_start(pid, mp) != 0) {
			fprintf(stderr, "ordk-switch: port %u does not start\n", pid);
			goto out;
		}
		ports[n++] = pid;
	}
	if (n == 0) {
		fprintf(stderr,
			"ordk-switch: no ports (add --vdev net_memif0,... to the EAL args)\n");
		goto out;
	}
	if (configure(&sw, &o, ports, n) != 0)
		goto out;
	if (o.trace != NULL) {
		trace = fopen(o.trace, "w");
		if (trace == NULL) {
			fprintf(stderr, "ordk-switch: cannot write %s\n", o.trace);
			goto out;
		}
		fprintf(trace, "t_ns,source,metric,value\n");
		sw_switch_trace(&sw, trace, o.trace_ns, now_ns());
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ordk-switch: %u ports\n", n);
	run(&sw, &o);
	sw_switch_print_stats(&sw, stdout);
	rc = 0;
out:
	sw_switch_fini(&sw);
	if (trace != NULL)
		fclose(trace);
	ordk_env_close_ports();
	ordk_env_eal_cleanup();
	return rc;
}
