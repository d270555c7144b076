/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-doctor's cluster checks (--config FILE): the seed's deployment
 * pitfalls. The config, memcached reachable by the other nodes (not bound
 * to 127.0.0.1), no TUN device routing the peers' traffic, mr_size against
 * memory and hugepages, and the nodes registered against the config.
 */
#ifndef ORDK_DOCTOR_CLUSTER_H
#define ORDK_DOCTOR_CLUSTER_H

#include "doctor.h"
#include "ordk_cm.h"

/** Every cluster check on the config in @p path. @return the exit status (as doc_run). */
int doc_run_cluster(const struct doc_opts *o, const char *path, struct doc_report *r);

/* the individual checks (exposed for the tests); @p c is a loaded config */
void doc_check_memcached(const struct doc_opts *o, const struct ordk_cm_config *c,
			 struct doc_report *r);
void doc_check_capture(const struct doc_opts *o, const struct ordk_cm_config *c,
		       struct doc_report *r);
void doc_check_mr_size(const struct doc_opts *o, const struct ordk_cm_config *c,
		       struct doc_report *r);
void doc_check_nodes(const struct doc_opts *o, const struct ordk_cm_config *c,
		     struct doc_report *r);

#endif /* ORDK_DOCTOR_CLUSTER_H */
