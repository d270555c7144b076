/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A running ORDK seen from outside: DPDK telemetry endpoints under /ordk/
 * (verbs_tele_ep.c; doc/guides/tools/operations.md), registered once per
 * process at the first ordk_dev_open(), so every program that opens a
 * device has them: the tools, the examples, a verbs program on ORDK's
 * libibverbs. Telemetry's commands cannot be unregistered (DPDK 22.11):
 * they look the device up by name at query time, in this registry.
 *
 * Threads. The callbacks run on DPDK's telemetry threads (one per client
 * connection), never on a device's lcore, and the lcore changes its
 * device's structures without locks: the QP hash, the transport's queues,
 * the counters, the MR list. So a callback reads none of them. It asks the
 * device's own poll instead: it fills a request (struct tele_req: what it
 * wants, and room for the answer) and stores ASKED in the device's request
 * word (release). ordk_dev_poll(), after the driver's work, loads that word
 * (relaxed: one load of a line that stays in the lcore's cache until a
 * request writes it, the only cost on the data path), claims the request
 * (ASKED -> SERVING, acquire), copies what was asked with the ordk_* calls
 * an application would make (ordk_dev_stats(), ordk_qp_info(), ...) while
 * the transport stands still between two polls, and stores DONE (release).
 * The callback, waiting on the word (acquire), formats the copy. What it
 * returns is what those calls returned on the lcore at one poll: counters
 * consistent with each other, equal to ordk_dev_stats() at that instant.
 *
 * A device whose owner does not poll (it waits on a socket, it is exiting)
 * does not answer: the callback waits TELE_WAIT_MS, withdraws its request
 * (ASKED -> IDLE; if the poll has claimed it meanwhile, the callback waits
 * for DONE: bounded work) and answers {"error": ...}. The request word and
 * the entry are malloc'ed, outside DPDK's memory, so a process that exits
 * without closing its devices leaves nothing a callback can fault on.
 *
 * Lifetime. The registry (entries in open order) is guarded by reg_lock,
 * held briefly: a callback takes a reference on the entry it found, and
 * ordk_dev_close() unlinks the entry, then waits for the references to go,
 * answering the request that may be pending meanwhile (it is the lcore),
 * before the device is freed. One request at a time (req_lock, taken by
 * the callbacks only): telemetry threads queue there, lcores never do.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "verbs_internal.h"
#include "verbs_tele.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verbs_tele *reg_head;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static uint64_t epoch_tsc; /* the first ordk_dev_open(): the timelines' times count from it */

static void
tele_init(void)
{
	epoch_tsc = rte_get_tsc_cycles();
	tele_register_endpoints();
}

static uint64_t
mono_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

static void
pause_us(unsigned int us)
{
	struct timespec t = { 0, (long)us * 1000 };

	nanosleep(&t, NULL);
}

int
verbs_tele_open(struct ordk_dev *dev, const char *driver)
{
	struct verbs_tele *t = calloc(1, sizeof(*t)), **p;

	if (t == NULL)
		return -ENOMEM;
	t->dev = dev;
	t->attr = vdev(dev)->attr;
	snprintf(t->driver, sizeof(t->driver), "%s", driver);
	vdev(dev)->tele = t;
	pthread_once(&reg_once, tele_init);
	t->epoch_tsc = epoch_tsc;
	pthread_mutex_lock(&reg_lock);
	for (p = &reg_head; *p != NULL; p = &(*p)->next)
		;
	*p = t;
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

void
verbs_tele_close(struct ordk_dev *dev)
{
	struct verbs_tele *t = vdev(dev)->tele, **p;

	if (t == NULL)
		return;
	pthread_mutex_lock(&reg_lock);
	for (p = &reg_head; *p != NULL && *p != t; p = &(*p)->next)
		;
	if (*p == t)
		*p = t->next;
	/* found before it went: answer (this is the device's lcore) until they are done */
	while (t->refs > 0) {
		pthread_mutex_unlock(&reg_lock);
		if (__atomic_load_n(&t->state, __ATOMIC_RELAXED) == TELE_ASKED)
			verbs_tele_serve(dev);
		pause_us(20);
		pthread_mutex_lock(&reg_lock);
	}
	pthread_mutex_unlock(&reg_lock);
	vdev(dev)->tele = NULL;
	free(t);
}

void
verbs_tele_serve(struct ordk_dev *dev)
{
	struct verbs_tele *t = vdev(dev)->tele;
	uint32_t asked = TELE_ASKED;

	if (!__atomic_compare_exchange_n(&t->state, &asked, TELE_SERVING, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return; /* withdrawn meanwhile */
	tele_answer(dev, t->req);
	__atomic_store_n(&t->state, TELE_DONE, __ATOMIC_RELEASE);
}

int
tele_ask(struct verbs_tele *t, struct tele_req *r)
{
	uint64_t until;
	int rc = 0;

	pthread_mutex_lock(&req_lock);
	until = mono_us() + TELE_WAIT_MS * 1000u;
	t->req = r;
	__atomic_store_n(&t->state, TELE_ASKED, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t s = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

		if (s == TELE_DONE)
			break;
		if (s == TELE_ASKED && mono_us() >= until &&
		    __atomic_compare_exchange_n(&t->state, &s, TELE_IDLE, false, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE)) {
			rc = -ETIMEDOUT; /* withdrawn: the poll will not touch it */
			break;
		}
		pause_us(20);
	}
	if (rc == 0)
		__atomic_store_n(&t->state, TELE_IDLE, __ATOMIC_RELAXED);
	t->req = NULL;
	pthread_mutex_unlock(&req_lock);
	return rc;
}

struct verbs_tele *
tele_get(const char *name, bool by_index)
{
	char *end;
	unsigned long idx = strtoul(name, &end, 10);
	bool is_index = by_index && *name != '\0' && *end == '\0';
	struct verbs_tele *t;
	unsigned long i = 0;

	pthread_mutex_lock(&reg_lock);
	for (t = reg_head; t != NULL; t = t->next, i++)
		if (strcmp(t->attr.name, name) == 0 || (is_index && i == idx))
			break;
	if (t != NULL)
		t->refs++;
	pthread_mutex_unlock(&reg_lock);
	return t;
}

struct verbs_tele *
tele_get_nth(unsigned int n)
{
	struct verbs_tele *t;
	unsigned int i = 0;

	pthread_mutex_lock(&reg_lock);
	for (t = reg_head; t != NULL && i < n; t = t->next)
		i++;
	if (t != NULL)
		t->refs++;
	pthread_mutex_unlock(&reg_lock);
	return t;
}

void
tele_put(struct verbs_tele *t)
{
	pthread_mutex_lock(&reg_lock);
	t->refs--;
	pthread_mutex_unlock(&reg_lock);
}

int
tele_error(struct rte_tel_data *d, const char *fmt, ...)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", msg);
	return 0;
}
