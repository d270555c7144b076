/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the two-process benchmarks share: one ORDK end (device over bluesim on
 * port 0, one PD, CQ, RC QP and a registered buffer) connected through
 * ordk_cm on 127.0.0.1.
 */
#ifndef ORDK_BENCH_COMMON_H
#define ORDK_BENCH_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "ordk_cm.h"
#include "ordk_env.h"

struct bench_end {
	ORDK_ENV_EP_MEMBER; /* dev, attr, pd, cq, mr, buf, len */
	struct ordk_qp *qp;
	struct ordk_cm_info me, peer;
};

/** Pin the calling thread to one CPU. */
void bench_pin(int cpu);
/** qsort() comparator for doubles. */
int bench_cmp_double(const void *a, const void *b);
/**
 * EAL with @p vdev, port 0 up, a bluesim device (idx 1 = client, 2 = server;
 * @p extra_devargs appended, may be ""), QP with @p send_depth / @p recv_depth,
 * @p len bytes registered, connected through ordk_cm on TCP @p port.
 * Exits the process on failure.
 */
void bench_end_open(struct bench_end *e, const char *vdev, int idx, uint16_t port,
		    const char *extra_devargs, size_t len, uint32_t send_depth, uint32_t recv_depth);
/** Post one WRITE (or WRITE_WITH_IMM when @p imm is non-NULL) from buf+off to peer+roff. */
void bench_post_write(struct bench_end *e, uint32_t off, uint32_t len, uint32_t roff,
		      bool signaled, const uint32_t *imm);

#endif
