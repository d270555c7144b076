/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VM rig's host side: bluesim serves the register block a QEMU guest
 * sees as BAR 2 of an ivshmem-plain device (the shared file), and does the
 * card's DMA into the guest's RAM (a shared file whose offset is the
 * guest-physical address, which is what a guest in VFIO's no-IOMMU mode
 * gives the card). Its Ethernet port is a loopback: frames come back to it.
 *
 *   vm_host <bar file> <ram file> <ram MiB> <seconds>
 *
 * Runs until the time bound or SIGTERM, then prints the model's counters.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_pause.h>

#include "bluesim.h"

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void *
map_file(const char *path, size_t len)
{
	int fd = open(path, O_RDWR);
	void *p;

	if (fd < 0) {
		perror(path);
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	return p;
}

int
main(int argc, char **argv)
{
	/* rte_eal_init() takes char **: writable words (compound literals) */
	char *eal[] = { argv[0], (char[]){ "--no-pci" }, (char[]){ "--no-huge" }, (char[]){ "-m" },
			(char[]){ "256" }, (char[]){ "-l" }, (char[]){ "1" }, (char[]){ "--no-telemetry" },
			(char[]){ "--log-level=4" }, (char[]){ "--file-prefix=ordk-vmhost" }, NULL };
	struct bluesim_config cfg;
	struct bluesim *sim;
	size_t ram_len;
	void *bar, *ram;
	double secs;
	uint64_t end;

	if (argc != 5) {
		fprintf(stderr, "usage: vm_host <bar file> <ram file> <ram MiB> <seconds>\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	ram_len = (size_t)atol(argv[3]) << 20;
	secs = atof(argv[4]);
	bar = map_file(argv[1], 1u << 20);
	ram = map_file(argv[2], ram_len);
	if (bar == NULL || ram == NULL ||
	    rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0) {
		fprintf(stderr, "vm_host: setup failed\n");
		return 1;
	}
	bluesim_config_defaults(&cfg);
	cfg.name = "vmcard";
	cfg.port_id = BLUESIM_PORT_LOOPBACK;
	cfg.bar = bar;
	sim = bluesim_create(&cfg);
	/* the guest's physical addresses are offsets in its RAM file (q35, RAM < 2.75 GiB) */
	if (sim == NULL || bluesim_dma_map(sim, 0, ram, ram_len) != 0) {
		fprintf(stderr, "vm_host: cannot create the model or map guest RAM\n");
		return 1;
	}
	printf("vm_host: serving the BAR in %s, guest RAM %zu MiB in %s\n", argv[1], ram_len >> 20,
	       argv[2]);
	end = rte_get_tsc_cycles() + (uint64_t)(secs * (double)rte_get_tsc_hz());
	while (!stop && rte_get_tsc_cycles() < end)
		if (bluesim_poll(sim, 64) == 0)
			rte_pause();
	{
		unsigned int n = bluesim_xstats_count();
		uint64_t *v = calloc(n, sizeof(*v));

		bluesim_xstats_get(sim, v);
		for (unsigned int i = 0; i < n; i++)
			if (v[i])
				printf("vm_host: %s %" PRIu64 "\n", bluesim_xstat_name(i), v[i]);
		free(v);
	}
	bluesim_destroy(sim);
	rte_eal_cleanup();
	return 0;
}
