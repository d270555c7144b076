/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The synchronous calls (rdma_create_ep, rdma_get_request: ids with no
 * channel of the application's, whose calls wait for their own events) and
 * what ORDK refuses: multicast (UD), ECE, rsockets. A refused call logs one
 * line naming it and fails with EOPNOTSUPP (a feature ORDK's card lacks) or
 * ENOSYS (rsockets, not provided).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "rcm_internal.h"

int
rdma_create_ep(struct rdma_cm_id **out, struct rdma_addrinfo *res, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cmid;
	struct rcm_id *id;
	int rc;

	if (out == NULL || res == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (rdma_create_id(NULL, &cmid, NULL, (enum rdma_port_space)res->ai_port_space) != 0)
		return -1;
	id = rcm_id_of(cmid);
	if (res->ai_flags & RAI_PASSIVE) {
		rc = rdma_bind_addr(cmid, res->ai_src_addr);
		if (rc == 0 && qp_init_attr != NULL) { /* each rdma_get_request() id gets one */
			id->ep_qp = true;
			id->ep_attr = *qp_init_attr;
			id->ep_pd = pd;
		}
	} else {
		rc = rdma_resolve_addr(cmid, res->ai_src_addr, res->ai_dst_addr, 2000);
		if (rc == 0)
			rc = rdma_resolve_route(cmid, 2000);
		if (rc == 0 && qp_init_attr != NULL)
			rc = rdma_create_qp(cmid, pd, qp_init_attr);
	}
	if (rc != 0) {
		int err = errno;

		rdma_destroy_id(cmid);
		errno = err;
		return -1;
	}
	*out = cmid;
	return 0;
}

void
rdma_destroy_ep(struct rdma_cm_id *cmid)
{
	if (rcm_id_of(cmid) == NULL)
		return;
	rdma_destroy_qp(cmid);
	rdma_destroy_id(cmid);
}

int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **out)
{
	struct rcm_id *l = rcm_id_of(listen);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *cmid;
	int rc;

	if (l == NULL || out == NULL || !l->sync) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&l->chan->lock);
	rcm_sync_keep(l, NULL); /* the listener's last one */
	pthread_mutex_unlock(&l->chan->lock);
	for (;;) {
		if (rdma_get_cm_event(listen->channel, &ev) != 0)
			return -1;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		RCM_LOG(INFO, "rdma_get_request: %s on the listener, skipped\n",
			rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	cmid = ev->id;
	/* the new id is synchronous too: a channel of its own */
	if (rdma_migrate_id(cmid, NULL) != 0) {
		rdma_ack_cm_event(ev);
		rdma_reject(cmid, NULL, 0);
		rdma_destroy_id(cmid);
		return -1;
	}
	/* the request stays as the new id's event (its private data), as rdma-core's */
	pthread_mutex_lock(&rcm_id_of(cmid)->chan->lock);
	rcm_sync_keep(rcm_id_of(cmid), ev);
	pthread_mutex_unlock(&rcm_id_of(cmid)->chan->lock);
	if (l->ep_qp) {
		struct ibv_qp_init_attr a = l->ep_attr;

		rc = rdma_create_qp(cmid, l->ep_pd, &a);
		if (rc != 0) {
			int err = errno;

			rdma_reject(cmid, NULL, 0);
			rdma_destroy_id(cmid);
			errno = err;
			return -1;
		}
	}
	*out = cmid;
	return 0;
}

static int
refuse(const char *call, int err, const char *why)
{
	RCM_REFUSE(call, err, why);
	rcm_count(RCM_C_REFUSED_CALL);
	return -1;
}

int
rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	(void)id, (void)addr, (void)context;
	return refuse("rdma_join_multicast", EOPNOTSUPP, "multicast is UD: ORDK has RC QPs");
}

int
rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
		       void *context)
{
	(void)id, (void)mc_join_attr, (void)context;
	return refuse("rdma_join_multicast_ex", EOPNOTSUPP, "multicast is UD: ORDK has RC QPs");
}

int
rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id, (void)addr;
	return refuse("rdma_leave_multicast", EOPNOTSUPP, "multicast is UD: ORDK has RC QPs");
}

int
rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id, (void)ece;
	return refuse("rdma_set_local_ece", EOPNOTSUPP, "ECE: no options to negotiate, as ibv_set_ece");
}

int
rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id, (void)ece;
	return refuse("rdma_get_remote_ece", EOPNOTSUPP, "ECE: no options to negotiate, as ibv_query_ece");
}

int
rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void)id, (void)private_data, (void)private_data_len;
	return refuse("rdma_reject_ece", EOPNOTSUPP, "ECE: no options to negotiate");
}

/*
 * rsockets (<rdma/rsocket.h>): sockets over RDMA, not provided. Each name
 * is exported so that a binary linking it loads; its first call says so.
 * The return types are what the callers read: int, ssize_t, off_t.
 */
#define RSOCK_REFUSE(type, name)                                                        \
	type name(void);                                                                \
	type name(void)                                                                 \
	{                                                                               \
		return (type)refuse(#name, ENOSYS, "rsockets are not provided");         \
	}
RSOCK_REFUSE(int, rsocket)
RSOCK_REFUSE(int, rbind)
RSOCK_REFUSE(int, rlisten)
RSOCK_REFUSE(int, raccept)
RSOCK_REFUSE(int, rconnect)
RSOCK_REFUSE(int, rshutdown)
RSOCK_REFUSE(int, rclose)
RSOCK_REFUSE(ssize_t, rrecv)
RSOCK_REFUSE(ssize_t, rrecvfrom)
RSOCK_REFUSE(ssize_t, rrecvmsg)
RSOCK_REFUSE(ssize_t, rsend)
RSOCK_REFUSE(ssize_t, rsendto)
RSOCK_REFUSE(ssize_t, rsendmsg)
RSOCK_REFUSE(ssize_t, rread)
RSOCK_REFUSE(ssize_t, rreadv)
RSOCK_REFUSE(ssize_t, rwrite)
RSOCK_REFUSE(ssize_t, rwritev)
RSOCK_REFUSE(int, rpoll)
RSOCK_REFUSE(int, rselect)
RSOCK_REFUSE(int, rgetpeername)
RSOCK_REFUSE(int, rgetsockname)
RSOCK_REFUSE(int, rsetsockopt)
RSOCK_REFUSE(int, rgetsockopt)
RSOCK_REFUSE(int, rfcntl)
RSOCK_REFUSE(off_t, riomap)
RSOCK_REFUSE(int, riounmap)
RSOCK_REFUSE(ssize_t, riowrite)
