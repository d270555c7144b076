/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-doctor's checks. Every path is read under a root directory ("" for
 * the machine itself; a fabricated tree in the tests), so each finding and
 * its fix can be tested without the hardware.
 */
#ifndef ORDK_DOCTOR_H
#define ORDK_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum doc_level { DOC_OK = 0, DOC_INFO, DOC_WARN, DOC_FAIL };

#define DOC_MAX_FINDINGS 32

struct doc_finding {
	const char *check;	/* "hugepages", "iommu", ... */
	enum doc_level level;
	char detail[256];
	char fix[384];		/* empty when there is nothing to do */
};

struct doc_opts {
	const char *root;	/* "" or a fabricated tree */
	const char *devargs;	/* the device the user will use, or NULL */
	const char *netdev;	/* the interface carrying RoCE frames, or NULL */
	uint32_t pmtu;		/* path MTU in use (default 4096) */
	uint64_t mr_bytes;	/* memory the user will register (default 0) */
	const char *dpdk_version; /* rte_version(), or a test's */
	bool root_user;		/* running as root: no memlock limit applies */
};

struct doc_report {
	struct doc_finding f[DOC_MAX_FINDINGS];
	unsigned int n;
};

/** Run every check. @return the exit status: 0 all fine, 1 warnings, 2 something blocks. */
int doc_run(const struct doc_opts *o, struct doc_report *r);

/** The finding of @p check, or NULL. */
const struct doc_finding *doc_find(const struct doc_report *r, const char *check);

void doc_print_text(FILE *f, const struct doc_report *r);
void doc_print_json(FILE *f, const struct doc_report *r, int status);

/* the individual checks (exposed for the tests) */
void doc_check_hugepages(const struct doc_opts *o, struct doc_report *r, bool card);
void doc_check_iommu(const struct doc_opts *o, struct doc_report *r, bool card);
void doc_check_vfio(const struct doc_opts *o, struct doc_report *r, bool card);
void doc_check_card(const struct doc_opts *o, struct doc_report *r);
void doc_check_memlock(const struct doc_opts *o, struct doc_report *r);
void doc_check_dpdk(const struct doc_opts *o, struct doc_report *r);
void doc_check_mtu(const struct doc_opts *o, struct doc_report *r);
void doc_check_memory(const struct doc_opts *o, struct doc_report *r);

/** The L3 MTU a path MTU needs on the port (headers, ICRC, bluesim's FCS trailer). */
uint32_t doc_mtu_needed(uint32_t pmtu);

#endif /* ORDK_DOCTOR_H */
