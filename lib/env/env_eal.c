/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL: the default command line, the clocks, and a cleanup that does not race
 * EAL's own interrupt thread.
 */
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_interrupts.h>

#include "env_internal.h"
#include "ordk_env.h"

RTE_LOG_REGISTER(env_logtype, ordk.env, NOTICE);

unsigned long
ordk_env_hugepages_free_mb(const char *huge_dir)
{
	char path[512];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/hugepages-2048kB/free_hugepages",
		 huge_dir ? huge_dir : "/sys/kernel/mm/hugepages");
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	return n * 2;
}

bool
ordk_env_hugetlbfs_mounted(const char *mounts, char *where, size_t where_len)
{
	char line[512], dev[128], dir[256], type[64];
	bool found = false;
	FILE *f = fopen(mounts ? mounts : "/proc/mounts", "r");

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, "%127s %255s %63s", dev, dir, type) == 3 &&
			strcmp(type, "hugetlbfs") == 0;
	fclose(f);
	if (found && where != NULL)
		snprintf(where, where_len, "%s", dir);
	return found;
}

int
ordk_env_eal_argv(const struct ordk_env_eal *d, char **argv, char *store, size_t store_len)
{
	size_t used = 0;
	int argc = 0;
	bool huge = ordk_env_hugepages_free_mb(d->huge_dir) >= d->mem_mb + 64 &&
		    ordk_env_hugetlbfs_mounted(d->mounts, NULL, 0);

#define ADD(...)                                                                      \
	do {                                                                          \
		int n_ = snprintf(store + used, store_len - used, __VA_ARGS__);       \
		if (n_ < 0 || (size_t)n_ >= store_len - used ||                       \
		    argc >= ORDK_ENV_EAL_MAX_ARGS)                                    \
			return -1;                                                    \
		argv[argc++] = store + used;                                          \
		used += (size_t)n_ + 1;                                               \
	} while (0)

	ADD("%s", d->prog);
	ADD("--no-pci");
	ADD("-l");
	ADD("%d", d->lcore);
	if (!huge)
		ADD("--no-huge");
	ADD("-m");
	ADD("%u", d->mem_mb);
	/* telemetry stays on: its thread sleeps in accept() until a client comes (the /ordk/ endpoints) */
	ADD("--file-prefix=%s-%d", d->prefix, (int)getpid());
	/* a pattern, not the global level: one type can still be raised (d->log_level) */
	ADD("--log-level=*:4");
	if (d->log_level != NULL)
		ADD("--log-level=%s", d->log_level);
	if (d->vdev != NULL)
		ADD("--vdev=%s", d->vdev);
#undef ADD
	argv[argc] = NULL;
	return argc;
}

double
ordk_env_wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double
ordk_env_now_s(void)
{
	return (double)rte_get_tsc_cycles() / (double)rte_get_tsc_hz();
}

/*
 * EAL's cleanup races its own interrupt thread in DPDK 22.11: net_memif's
 * server frees its listener at close without unregistering it, and the
 * thread's copies of memif's handles live in DPDK memory anyway. When
 * rte_eal_cleanup() unregisters the alarm callback (rte_eal_alarm_cleanup()),
 * the thread wakes and walks its sources again, reading those handles, while
 * the main thread unmaps that memory (rte_eal_memory_detach()): SIGSEGV in
 * rte_intr_fd_get(), seen under load in kv_transfer's worker and ordk-perf's
 * server even after their clients had left. So the thread is parked first:
 * a callback of our own source (an eventfd) holds it until the process ends
 * (bounded), and it walks nothing while the memory goes. Not an EAL alarm:
 * rte_eal_alarm_cleanup() would wait for an alarm callback that never returns.
 */
struct intr_park {
	int efd;
	int parked;
};

static void
intr_park_cb(void *arg)
{
	struct intr_park *p = arg;
	uint64_t v;
	double until = ordk_env_wall_s() + ORDK_ENV_INTR_PARK_S;

	if (read(p->efd, &v, sizeof(v)) < 0)
		return; /* not ours after all: no event */
	__atomic_store_n(&p->parked, 1, __ATOMIC_RELEASE);
	while (ordk_env_wall_s() < until)
		usleep(10000);
}

int
ordk_env_intr_fire(void (*fn)(void *arg), void *arg, int *efd)
{
	struct rte_intr_handle *h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	uint64_t one = 1;

	*efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h != NULL && *efd >= 0 && rte_intr_fd_set(h, *efd) == 0 &&
	    rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) == 0 &&
	    rte_intr_callback_register(h, fn, arg) == 0 &&
	    write(*efd, &one, sizeof(one)) == sizeof(one))
		return 0;
	return -1;
}

int
ordk_env_eal_cleanup(void)
{
	static struct intr_park p = { .efd = -1 };
	double until = ordk_env_wall_s() + 2.0;

	if (ordk_env_intr_fire(intr_park_cb, &p, &p.efd) == 0)
		while (!__atomic_load_n(&p.parked, __ATOMIC_ACQUIRE) && ordk_env_wall_s() < until)
			usleep(1000);
	if (!__atomic_load_n(&p.parked, __ATOMIC_ACQUIRE))
		ENV_LOG(ERR, "EAL's interrupt thread was not parked: cleaning up regardless");
	/* the source and its eventfd stay: the parked callback holds them until the process ends */
	return rte_eal_cleanup();
}
