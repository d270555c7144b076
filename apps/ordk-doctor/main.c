/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-doctor: checks this machine before a run and says how to fix each
 * finding. Exit status 0 (all fine), 1 (warnings), 2 (something blocks),
 * 64 (a usage error: EX_USAGE, never mistaken for a finding).
 *
 *   ordk-doctor [--json] [-d devargs] [--netdev IFACE] [--pmtu N] [--mr-size BYTES]
 *               [--config FILE]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_version.h>

#include "app_common.h"
#include "doctor.h"
#include "doctor_cluster.h"

#define DOC_USAGE 64 /* sysexits.h EX_USAGE */

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ordk-doctor [--json] [-d devargs] [--netdev IFACE] [--pmtu N] [--mr-size BYTES]\n"
		"                   [--config FILE]\n"
		"  -d, --device   the device you will run on (blue:<bdf>[,vendor=..,device=..] or bluesim)\n"
		"  --netdev       the interface carrying the RDMA frames (MTU check)\n"
		"  --pmtu         the path MTU you will use (256..4096, default 4096)\n"
		"  --mr-size      bytes you will register (memory and memlock checks; K/M/G)\n"
		"  --config       a cluster config (MN_ips, CN_ips, memcached_ip, mr_size...): its\n"
		"                 memcached, routes, mr_size and registered nodes checked\n"
		"  --json         machine-readable output\n"
		"exit status: 0 fine, 1 warnings, 2 blocking, 64 usage error\n");
}

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },	  { "device", required_argument, NULL, 'd' },
	{ "netdev", required_argument, NULL, 'n' }, { "pmtu", required_argument, NULL, 'p' },
	{ "mr-size", required_argument, NULL, 'm' }, { "root", required_argument, NULL, 'r' },
	{ "config", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },	  { NULL, 0, NULL, 0 },
};

int
main(int argc, char **argv)
{
	struct doc_opts o = { .root = "", .pmtu = 4096, .dpdk_version = rte_version(),
			      .root_user = geteuid() == 0 };
	static struct doc_report r;
	bool json = false;
	const char *config = NULL;
	uint64_t v;
	int c, status;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "d:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'd':
			o.devargs = optarg;
			break;
		case 'n':
			o.netdev = optarg;
			break;
		case 'p':
			if (app_parse_size(optarg, &v) != 0 || v < 256 || v > 4096 || (v & (v - 1))) {
				fprintf(stderr, "ordk-doctor: --pmtu %s: 256, 512, 1024, 2048 or 4096\n",
					optarg);
				return DOC_USAGE;
			}
			o.pmtu = (uint32_t)v;
			break;
		case 'm':
			if (app_parse_size(optarg, &v) != 0) {
				fprintf(stderr, "ordk-doctor: --mr-size %s: a size in bytes (K/M/G)\n",
					optarg);
				return DOC_USAGE;
			}
			o.mr_bytes = v;
			break;
		case 'r': /* a fabricated /sys and /proc (tests): judged as a user */
			o.root = optarg;
			o.root_user = false;
			break;
		case 'c':
			config = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "ordk-doctor: %s: unknown option or missing value\n",
				argv[optind - 1]);
			usage(stderr);
			return DOC_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ordk-doctor: %s: unexpected argument\n", argv[optind]);
		return DOC_USAGE;
	}
	status = doc_run(&o, &r);
	if (config != NULL) { /* the cluster's pitfalls (doctor_cluster.c) */
		int cs = doc_run_cluster(&o, config, &r);

		status = cs > status ? cs : status;
	}
	if (json)
		doc_print_json(stdout, &r, status);
	else {
		doc_print_text(stdout, &r);
		printf("%s\n", status == 0 ? "ordk-doctor: all good" :
			       status == 1 ? "ordk-doctor: warnings (runs may be slow or limited)" :
					     "ordk-doctor: something blocks a run: see the fixes above");
	}
	return status;
}
