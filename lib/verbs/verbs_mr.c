/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration, the library's part: the range and the access flags are
 * checked, the memory must be there with the permissions the access needs,
 * then the driver registers it with its device (ops->mr_reg).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "mem_internal.h"
#include "ordk_devargs.h"
#include "verbs_internal.h"

#define MR_POPULATE_MAX (1u << 20) /* ranges checked by MADV_POPULATE_*, larger by the maps */

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

/*
 * /proc/self/maps: is every byte of [a, end) mapped with @p perm ('r' or 'w')?
 * The fallback for kernels without MADV_POPULATE_*.
 */
static bool
maps_allow(uint64_t a, uint64_t end, char perm)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool ok = false;

	if (f == NULL)
		return true; /* cannot tell: let the pinning decide */
	while (a < end && fgets(line, sizeof(line), f) != NULL) {
		uint64_t lo, hi;
		char p[5];

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", &lo, &hi, p) != 3 || hi <= a)
			continue;
		if (lo > a || strchr(p, perm) == NULL)
			break; /* a hole, or a mapping without the permission */
		a = hi;
	}
	ok = a >= end;
	fclose(f);
	return ok;
}

/*
 * Can the process back what the MR grants? The card writes where LOCAL_WRITE,
 * REMOTE_WRITE or REMOTE_ATOMIC allow, and reads the rest: memory mapped
 * read-only (or not at all) would fault in the model's copies, or be written
 * behind the mapping's back by a card. ibv_reg_mr refuses it the same way
 * (get_user_pages with FOLL_WRITE). MADV_POPULATE_WRITE/READ ask the kernel
 * exactly that, and fault the pages in, which pinning does anyway.
 */
static int
mr_backable(void *addr, size_t len, unsigned int access)
{
	static int populate = -1; /* -1 not probed, 0 unsupported, 1 supported */
	static uint8_t probe[2 * 4096];
	uint64_t pgsz = (uint64_t)sysconf(_SC_PAGESIZE);
	bool write = access & (ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE |
			       ORDK_ACCESS_REMOTE_ATOMIC);
	uint64_t a = RTE_ALIGN_FLOOR((uint64_t)(uintptr_t)addr, pgsz);
	uint64_t end = (uint64_t)(uintptr_t)addr + len;
	int rc;

	if (populate < 0) /* probe on a page we know is writable */
		populate = pgsz <= 4096 && madvise(RTE_PTR_ALIGN_CEIL(&probe[0], pgsz), pgsz,
						   MADV_POPULATE_WRITE) == 0;
	/*
	 * Populating walks every page (5 ms for 128 MiB already in memory), the
	 * maps file costs what the process's mappings do: large ranges use that.
	 */
	if (!populate || end - a > MR_POPULATE_MAX) {
		if (maps_allow(a, end, write ? 'w' : 'r'))
			return 0;
		VERBS_LOG(ERR, "mr_reg: [%p, +%zu) is not all mapped %s (access 0x%x needs it)",
			  addr, len, write ? "writable" : "readable", access);
		return -EFAULT;
	}
	rc = madvise((void *)(uintptr_t)a, end - a,
		     write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
	if (rc == 0)
		return 0;
	VERBS_LOG(ERR, "mr_reg: [%p, +%zu) is %s (access 0x%x needs it %s)", addr, len,
		  errno == ENOMEM ? "not mapped" :
		  errno == EINVAL ? (write ? "not writable" : "not readable") :
				    "not backed (SIGBUS on access)",
		  access, write ? "writable" : "readable");
	return -EFAULT;
}

/* What ordk_mr_reg() refuses before the driver sees it: @return 0 or a negative errno. */
static int
mr_check(const struct verbs_dev *dev, void *addr, size_t length, unsigned int access)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;
	char why[96];

	/* the caller's size, against what the device can register */
	if (ordk_devargs_check_range("mr_reg: length", length, 1, dev->attr.max_mr_size, why,
				     sizeof(why)) != 0) {
		VERBS_LOG(ERR, "%s, the device's max_mr_size", why);
		return -EINVAL;
	}
	if (a + length < a) {
		VERBS_LOG(ERR, "mr_reg: 0x%" PRIx64 " + length %zu wraps", a, length);
		return -EINVAL;
	}
	if ((access & ~(unsigned int)VERBS_ACCESS_ALL) != 0 ||
	    /* ibverbs: remote write or atomic needs local write */
	    ((access & (ORDK_ACCESS_REMOTE_WRITE | ORDK_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & ORDK_ACCESS_LOCAL_WRITE))) {
		VERBS_LOG(ERR, "mr_reg: invalid access 0x%x", access);
		return -EINVAL;
	}
	return mr_backable(addr, length, access);
}

struct ordk_mr *
ordk_mr_reg(struct ordk_pd *pd, void *addr, size_t length, unsigned int access)
{
	struct verbs_dev *dev;
	struct verbs_mr *m;
	int rc;

	if (!pd_live(pd) || addr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = vdev(pd->dev);
	rc = mr_check(dev, addr, length, access);
	if (rc != 0) {
		rte_errno = -rc;
		return NULL;
	}
	m = verbs_handle_alloc(dev->ops->mr_size, 0);
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->pub = (struct ordk_mr){ .pd = pd, .addr = addr, .length = length, .access = access };
	rc = dev->ops->mr_reg(pd->dev, m);
	if (rc != 0) {
		verbs_handle_free(m, dev->ops->mr_size);
		rte_errno = -rc;
		return NULL;
	}
	m->magic = VERBS_MAGIC_MR;
	TAILQ_INSERT_TAIL(&dev->mrs, m, link);
	dev->nmr++;
	pd->refs++;
	return &m->pub;
}

int
ordk_mr_dereg(struct ordk_mr *mr)
{
	struct verbs_mr *m = (struct verbs_mr *)mr;
	struct verbs_dev *dev;
	int rc;

	if (!mr_live(m))
		return -EINVAL;
	dev = vdev(mr->pd->dev);
	rc = dev->ops->mr_dereg(mr->pd->dev, m);
	if (rc != 0)
		return rc; /* the device still has it: the MR stays registered */
	TAILQ_REMOVE(&dev->mrs, m, link);
	dev->nmr--;
	mr->pd->refs--;
	verbs_handle_free(m, dev->ops->mr_size);
	return 0;
}

int
verbs_mr_atomic(uint64_t *p, bool cas, uint64_t compare_add, uint64_t swap, uint64_t *orig)
{
	sigjmp_buf env;
	uint64_t v;

	/* memory unmapped under the MR: the atomic fails, the process lives */
	if (sigsetjmp(env, 0) != 0)
		return -EFAULT;
	mem_guard_env = &env;
	if (cas) {
		uint64_t expect = compare_add;

		__atomic_compare_exchange_n(p, &expect, swap, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		v = expect;
	} else {
		v = __atomic_fetch_add(p, compare_add, __ATOMIC_SEQ_CST);
	}
	mem_guard_env = NULL;
	*orig = v;
	return 0;
}
