/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/env's log type, shared by its files. */
#ifndef ENV_INTERNAL_H
#define ENV_INTERNAL_H

#include <rte_log.h>

extern int env_logtype;
#define ENV_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, env_logtype, "env: " fmt "\n", ##__VA_ARGS__)

#endif /* ENV_INTERNAL_H */
