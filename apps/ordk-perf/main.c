/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf: perftest's twin over ORDK.
 *
 *   ordk-perf <test> [EAL args --] [options] [server host]
 *
 * No host: this side is the server. A host: the client, which runs the test
 * and prints perftest's tables. --loopback: both sides in this process over
 * two bluesim devices joined by net_ring. Without EAL arguments the tool
 * picks ones that work on a fresh machine (see perf_usage()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include "app_common.h"
#include "perf.h"

int
main(int argc, char **argv)
{
	struct perf_opts o;
	enum perf_test t;
	char err[256], vdev[160], sock[64];
	int dd = -1, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		perf_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 1 : 0;
	}
	if (perf_test_from_name(argv[1], &t) != 0) {
		fprintf(stderr, "ordk-perf: '%s' is not a test\n", argv[1]);
		perf_usage(stderr);
		return 1;
	}
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dd = i;
			break;
		}
	/* tool options: after "--", or everything after the test name */
	{
		int first = dd >= 0 ? dd : 1;
		char *borrowed = argv[first];

		argv[first] = argv[0];
		if (perf_opts_parse(t, argc - first, argv + first, &o, err, sizeof(err)) != 0) {
			fprintf(stderr, "ordk-perf: %s\n", err);
			return 1;
		}
		argv[first] = borrowed;
	}
	if (o.help) {
		perf_usage(stdout);
		return 0;
	}
	if (o.version) {
		printf("Version: %s (ordk-perf, perftest's options and output)\n", ORDK_VERSION);
		return 0;
	}
	for (unsigned int i = 0; i < o.nnotes; i++)
		fprintf(stderr, "ordk-perf: %s\n", o.notes[i]);
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		unsigned int mem = 256 + (unsigned int)((uint64_t)o.qps * 2 *
			(o.all_sizes ? PERF_ALL_MAX_SIZE : o.size) * (o.loopback ? 2 : 1) >> 20);
		struct ordk_env_eal d = {
			.prog = argv[0], .prefix = "ordk-perf",
			.lcore = o.host != NULL && ncpu > 1 ? 1 : 0,
			.mem_mb = mem + (o.loopback ? 128 : 64), .vdev = NULL,
		};

		if (!o.loopback && strncmp(o.devargs, "bluesim", 7) == 0) {
			snprintf(sock, sizeof(sock), "/tmp/ordk-perf-%u.sock", o.port);
			snprintf(vdev, sizeof(vdev), "net_memif0,role=%s,socket=%s,bsize=8192",
				 o.host ? "client" : "server", sock);
			d.vdev = vdev;
			if (dd < 0)
				o.memif_sock = sock;
		}
		/* EAL arguments: argv[0] and what stands before "--" */
		if (app_eal_init(dd >= 0 ? dd : 1, argv, dd >= 0, &d) != 0)
			return 1;
	}
	rc = perf_run(&o);
	ordk_env_eal_cleanup();
	return rc;
}
