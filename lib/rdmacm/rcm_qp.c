/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device and the QPs: ORDK's one device opened through ORDK's
 * libibverbs (id->verbs), the QPs rdma_create_qp() makes on it and the
 * transitions the exchange drives (INIT at creation, RTR and RTS with the
 * peer's QPN and GID, ERR at disconnect; a UD QP to RTS at creation with
 * the id's Q_Key, as rdma-core), all through ibv_* calls.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcm_internal.h"

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ibv_context *dev_ctx;
static struct ibv_pd *dev_pd;
static union ibv_gid dev_gid;
static uint8_t dev_mtu = IBV_MTU_1024, dev_max_rd = 1;

/* Open ORDK's device once per process, as rdma-core opens each device once. */
struct ibv_context *
rcm_device(void)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	int n = 0;

	pthread_mutex_lock(&dev_lock);
	if (dev_ctx != NULL)
		goto out;
	list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) {
		RCM_LOG(ERR, "no RDMA device (is this run through ordk-run?)\n");
		if (list != NULL)
			ibv_free_device_list(list);
		errno = ENODEV;
		goto out;
	}
	dev_ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (dev_ctx == NULL) {
		RCM_LOG(ERR, "cannot open the RDMA device: %s\n", strerror(errno));
		goto out;
	}
	if (ibv_query_gid(dev_ctx, 1, 0, &dev_gid) != 0)
		memset(&dev_gid, 0, sizeof(dev_gid));
	if (ibv_query_port(dev_ctx, 1, &pa) == 0)
		dev_mtu = (uint8_t)pa.active_mtu;
	if (ibv_query_device(dev_ctx, &da) == 0 && da.max_qp_rd_atom > 0)
		dev_max_rd = (uint8_t)(da.max_qp_rd_atom > 255 ? 255 : da.max_qp_rd_atom);
out:
	pthread_mutex_unlock(&dev_lock);
	return dev_ctx;
}

int
rcm_dev_gid(union ibv_gid *gid)
{
	if (rcm_device() == NULL)
		return -1;
	*gid = dev_gid;
	return 0;
}

uint8_t
rcm_dev_mtu(void)
{
	return dev_mtu;
}

uint8_t
rcm_dev_max_rd(void)
{
	return dev_max_rd;
}

/* The device's IPv4 (network order): its GID is ::ffff:<ip> */
uint32_t
rcm_dev_ip(void)
{
	uint32_t ip;

	if (rcm_device() == NULL)
		return 0;
	memcpy(&ip, &dev_gid.raw[12], 4);
	return ip;
}

/* The PD rdma_create_qp() uses when given none and the id has none: one per device. */
struct ibv_pd *
rcm_dev_pd(void)
{
	struct ibv_context *ctx = rcm_device();

	if (ctx == NULL)
		return NULL;
	pthread_mutex_lock(&dev_lock);
	if (dev_pd == NULL)
		dev_pd = ibv_alloc_pd(ctx);
	pthread_mutex_unlock(&dev_lock);
	return dev_pd;
}

/*
 * ORDK_CM_PEERS="10.0.0.2=127.0.0.1,10.0.0.1=127.0.0.1": which TCP address
 * serves a device IP (the device's IP is not the host's and the card
 * answers no ARP). Read once; a bad entry is logged and skipped.
 */
#define MAX_PEERS 64
static struct {
	uint32_t ip, host;
} peers[MAX_PEERS];
static unsigned int n_peers;
static pthread_once_t peers_once = PTHREAD_ONCE_INIT;

static void
peers_load(void)
{
	const char *env = getenv("ORDK_CM_PEERS");
	char buf[1024], *save = NULL, *tok;

	if (env == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(tok, '=');
		struct in_addr a, h;

		if (eq != NULL)
			*eq = '\0';
		if (eq == NULL || inet_pton(AF_INET, tok, &a) != 1 || inet_pton(AF_INET, eq + 1, &h) != 1) {
			RCM_LOG(ERR, "ORDK_CM_PEERS: '%s%s%s' is not <device ip>=<tcp ip>: skipped\n", tok,
				eq != NULL ? "=" : "", eq != NULL ? eq + 1 : "");
			continue;
		}
		if (n_peers == MAX_PEERS) {
			RCM_LOG(ERR, "ORDK_CM_PEERS: more than %d entries: the rest skipped\n", MAX_PEERS);
			break;
		}
		peers[n_peers].ip = a.s_addr;
		peers[n_peers++].host = h.s_addr;
	}
}

uint32_t
rcm_peer_host(uint32_t ip)
{
	pthread_once(&peers_once, peers_load);
	for (unsigned int i = 0; i < n_peers; i++)
		if (peers[i].ip == ip)
			return peers[i].host;
	return ip;
}

bool
rcm_gid_ok(const uint8_t *gid)
{
	static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	uint32_t ip = (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 | (uint32_t)gid[14] << 8 | gid[15];

	return memcmp(gid, v4, 12) == 0 && ip >> 24 != 0 && ip >> 24 != 127 && ip >> 28 != 0xe &&
	       ip != 0xffffffff;
}

/* A UD id's Q_Key: the one it has, else RDMA_UDP_QKEY (the kernel's cma_set_qkey() for the UDP port space) */
static uint32_t
ud_qkey(struct rcm_id *id)
{
	if (id->qkey == 0)
		id->qkey = RDMA_UDP_QKEY;
	return id->qkey;
}

/* A UD QP of @p id: INIT with its Q_Key, RTR, RTS (SQ PSN 0), as rdma-core's ucma_init_ud_qp(). */
int
rcm_qp_init_ud(struct rcm_id *id, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .pkey_index = 0 };
	int rc;

	a.qkey = ud_qkey(id);
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	if (rc == 0) {
		a.qp_state = IBV_QPS_RTR;
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	}
	if (rc == 0) {
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	return rc;
}

/* RESET -> INIT, as rdma-core does at creation: the exchange later needs only RTR and RTS. */
int
rcm_qp_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.pkey_index = 0,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void
rtr_attr(struct rcm_id *id, struct ibv_qp_attr *a, int *mask)
{
	uint8_t mtu = id->peer_mtu < rcm_dev_mtu() ? id->peer_mtu : rcm_dev_mtu();

	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = (enum ibv_mtu)mtu;
	a->dest_qp_num = id->peer_qpn;
	a->rq_psn = id->peer_psn;
	a->max_dest_rd_atomic = id->resp_res;
	a->min_rnr_timer = 12;
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.dgid = id->peer_gid;
	a->ah_attr.grh.sgid_index = 0;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.port_num = 1;
	*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

static void
rts_attr(struct rcm_id *id, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->sq_psn = 0; /* ours: the exchange says 0 (rcm_conn.c) */
	a->timeout = 14;
	a->retry_cnt = id->retry;
	a->rnr_retry = id->rnr_retry;
	a->max_rd_atomic = id->init_depth;
	*mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		IBV_QP_MAX_QP_RD_ATOMIC;
}

/* INIT -> RTR -> RTS with the peer the exchange named. @return 0 or an errno. */
int
rcm_qp_rtr_rts(struct rcm_id *id)
{
	struct ibv_qp_attr a;
	int mask, rc;

	if (id->id.qp == NULL)
		return 0; /* the application's own QP (conn_param's qp_num): it moves it */
	rtr_attr(id, &a, &mask);
	rc = ibv_modify_qp(id->id.qp, &a, mask);
	if (rc == 0) {
		rts_attr(id, &a, &mask);
		rc = ibv_modify_qp(id->id.qp, &a, mask);
	}
	if (rc != 0)
		RCM_LOG(ERR, "QP %u to RTR/RTS with peer QP %u: %s\n", id->id.qp->qp_num, id->peer_qpn,
			strerror(rc));
	return rc;
}

void
rcm_qp_err(struct rcm_id *id)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	if (id->id.qp != NULL)
		ibv_modify_qp(id->id.qp, &a, IBV_QP_STATE);
}

int
rdma_init_qp_attr(struct rdma_cm_id *cmid, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct rcm_id *id = rcm_id_of(cmid);

	if (id == NULL || qp_attr == NULL || qp_attr_mask == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cmid->qp_type == IBV_QPT_UD) { /* as the kernel's: INIT's attributes, whatever state is asked */
		enum ibv_qp_state st = qp_attr->qp_state;

		memset(qp_attr, 0, sizeof(*qp_attr));
		qp_attr->qp_state = st;
		qp_attr->port_num = 1;
		qp_attr->qkey = ud_qkey(id);
		*qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
		return 0;
	}
	switch (qp_attr->qp_state) {
	case IBV_QPS_INIT:
		memset(qp_attr, 0, sizeof(*qp_attr));
		qp_attr->qp_state = IBV_QPS_INIT;
		qp_attr->port_num = 1;
		qp_attr->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		*qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		return 0;
	case IBV_QPS_RTR:
	case IBV_QPS_RTS:
		if (id->peer_qpn == 0) { /* no REQ or REP seen yet: no peer to name */
			errno = EINVAL;
			return -1;
		}
		if (qp_attr->qp_state == IBV_QPS_RTR)
			rtr_attr(id, qp_attr, qp_attr_mask);
		else
			rts_attr(id, qp_attr, qp_attr_mask);
		return 0;
	default:
		errno = EINVAL;
		return -1;
	}
}

static int
make_cqs(struct rcm_id *id, struct ibv_qp_init_attr_ex *a)
{
	struct rdma_cm_id *c = &id->id;
	int ns = a->cap.max_send_wr > 0 ? (int)a->cap.max_send_wr : 1;
	int nr = a->cap.max_recv_wr > 0 ? (int)a->cap.max_recv_wr : 1;

	/* rdma-core's ucma_create_cqs(): a channel and a CQ each, for what the caller left NULL */
	if (a->send_cq == NULL) {
		c->send_cq_channel = ibv_create_comp_channel(c->verbs);
		c->send_cq = c->send_cq_channel ? ibv_create_cq(c->verbs, ns, c, c->send_cq_channel, 0)
						: NULL;
		if (c->send_cq == NULL)
			return -1;
		a->send_cq = c->send_cq;
		id->own_cqs = true;
	}
	if (a->recv_cq == NULL) {
		c->recv_cq_channel = ibv_create_comp_channel(c->verbs);
		c->recv_cq = c->recv_cq_channel ? ibv_create_cq(c->verbs, nr, c, c->recv_cq_channel, 0)
						: NULL;
		if (c->recv_cq == NULL)
			return -1;
		a->recv_cq = c->recv_cq;
		id->own_cqs = true;
	}
	return 0;
}

static void
free_cqs(struct rcm_id *id)
{
	struct rdma_cm_id *c = &id->id;

	if (!id->own_cqs)
		return;
	if (c->send_cq != NULL)
		ibv_destroy_cq(c->send_cq);
	if (c->send_cq_channel != NULL)
		ibv_destroy_comp_channel(c->send_cq_channel);
	if (c->recv_cq != NULL)
		ibv_destroy_cq(c->recv_cq);
	if (c->recv_cq_channel != NULL)
		ibv_destroy_comp_channel(c->recv_cq_channel);
	c->send_cq = c->recv_cq = NULL;
	c->send_cq_channel = c->recv_cq_channel = NULL;
	id->own_cqs = false;
}

int
rdma_create_qp_ex(struct rdma_cm_id *cmid, struct ibv_qp_init_attr_ex *attr)
{
	struct rcm_id *id = rcm_id_of(cmid);
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;
	int err;

	if (id == NULL || attr == NULL || cmid->qp != NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cmid->verbs == NULL) {
		RCM_LOG(ERR, "rdma_create_qp: the id is not bound to the device (bind or resolve first)\n");
		errno = EINVAL;
		return -1;
	}
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD) {
		RCM_LOG(ERR, "rdma_create_qp: QP type %d: ORDK's rdma_cm has RC and UD QPs\n",
			attr->qp_type);
		errno = EOPNOTSUPP;
		return -1;
	}
	if (attr->qp_type != cmid->qp_type) {
		RCM_LOG(ERR, "rdma_create_qp: %s QP on an id of port space 0x%x (UD: RDMA_PS_UDP)\n",
			attr->qp_type == IBV_QPT_UD ? "a UD" : "an RC", cmid->ps);
		errno = EINVAL;
		return -1;
	}
	a = *attr;
	if (!(a.comp_mask & IBV_QP_INIT_ATTR_PD) || a.pd == NULL) {
		a.pd = cmid->pd != NULL ? cmid->pd : rcm_dev_pd();
		a.comp_mask |= IBV_QP_INIT_ATTR_PD;
		if (a.pd == NULL)
			return -1;
	}
	if (make_cqs(id, &a) != 0) {
		err = errno != 0 ? errno : ENOMEM;
		free_cqs(id);
		errno = err;
		return -1;
	}
	if ((a.comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD) == 0) {
		struct ibv_qp_init_attr ia = {
			.qp_context = a.qp_context, .send_cq = a.send_cq, .recv_cq = a.recv_cq,
			.srq = a.srq, .cap = a.cap, .qp_type = a.qp_type, .sq_sig_all = a.sq_sig_all,
		};

		qp = ibv_create_qp(a.pd, &ia);
		if (qp != NULL)
			a.cap = ia.cap;
	} else {
		qp = ibv_create_qp_ex(cmid->verbs, &a); /* ORDK's libibverbs refuses what it lacks */
	}
	if (qp == NULL) {
		err = errno != 0 ? errno : ENOMEM;
		free_cqs(id);
		errno = err;
		return -1;
	}
	err = qp->qp_type == IBV_QPT_UD ? rcm_qp_init_ud(id, qp) : rcm_qp_init(qp);
	if (err != 0) {
		RCM_LOG(ERR, "rdma_create_qp: QP %u to %s: %s\n", qp->qp_num,
			qp->qp_type == IBV_QPT_UD ? "RTS" : "INIT", strerror(err));
		ibv_destroy_qp(qp);
		free_cqs(id);
		errno = err;
		return -1;
	}
	attr->cap = a.cap;
	cmid->qp = qp;
	if (cmid->pd == NULL)
		cmid->pd = a.pd;
	return 0;
}

int
rdma_create_qp(struct rdma_cm_id *cmid, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex a;
	int rc;

	if (qp_init_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_context = qp_init_attr->qp_context;
	a.send_cq = qp_init_attr->send_cq;
	a.recv_cq = qp_init_attr->recv_cq;
	a.srq = qp_init_attr->srq;
	a.cap = qp_init_attr->cap;
	a.qp_type = qp_init_attr->qp_type;
	a.sq_sig_all = qp_init_attr->sq_sig_all;
	a.pd = pd;
	a.comp_mask = pd != NULL ? IBV_QP_INIT_ATTR_PD : 0;
	rc = rdma_create_qp_ex(cmid, &a);
	if (rc == 0)
		qp_init_attr->cap = a.cap;
	return rc;
}

void
rdma_destroy_qp(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = rcm_id_of(cmid);

	if (id == NULL || cmid->qp == NULL)
		return;
	ibv_destroy_qp(cmid->qp);
	cmid->qp = NULL;
	free_cqs(id);
}

int
rdma_create_srq_ex(struct rdma_cm_id *cmid, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr a;
	struct ibv_pd *pd;

	if (rcm_id_of(cmid) == NULL || attr == NULL || cmid->verbs == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (attr->comp_mask & ~(uint32_t)IBV_SRQ_INIT_ATTR_PD) {
		RCM_REFUSE("rdma_create_srq_ex", EOPNOTSUPP, "XRC and tag-matching SRQs");
		rcm_count(RCM_C_REFUSED_CALL);
		return -1;
	}
	pd = (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) && attr->pd != NULL ? attr->pd
		: cmid->pd != NULL ? cmid->pd : rcm_dev_pd();
	if (pd == NULL)
		return -1;
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	cmid->srq = ibv_create_srq(pd, &a);
	if (cmid->srq == NULL)
		return -1;
	if (cmid->pd == NULL)
		cmid->pd = pd;
	return 0;
}

int
rdma_create_srq(struct rdma_cm_id *cmid, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex a;

	if (attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	a.pd = pd;
	a.comp_mask = pd != NULL ? IBV_SRQ_INIT_ATTR_PD : 0;
	return rdma_create_srq_ex(cmid, &a);
}

void
rdma_destroy_srq(struct rdma_cm_id *cmid)
{
	if (rcm_id_of(cmid) == NULL || cmid->srq == NULL)
		return;
	ibv_destroy_srq(cmid->srq);
	cmid->srq = NULL;
}

struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context *ctx = rcm_device();
	struct ibv_context **list = calloc(2, sizeof(*list));

	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = ctx;
	if (num_devices != NULL)
		*num_devices = ctx != NULL ? 1 : 0;
	return list;
}

void
rdma_free_devices(struct ibv_context **list)
{
	free(list);
}
