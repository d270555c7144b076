/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices and contexts: the one ORDK device of the process (ORDK_DEV), EAL
 * brought up on first open (ORDK_EAL, else ORDK's defaults with ORDK_LCORE
 * and ORDK_VDEV; apps/ordk-run sets them), the device's attributes as ibverbs
 * reports them, and its GID: RoCE v2, the device's IPv4 address mapped into
 * IPv6 (::ffff:a.b.c.d).
 *
 * A peer's MAC: the card's receive filter drops ARP, so nothing can be asked.
 * The MAC is derived from the IP instead: every ORDK device under this
 * library gets MAC 02:00:a:b:c:d for IP a.b.c.d (a locally administered
 * address), and an address vector's IP gives the peer's MAC the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>


#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "ibv_internal.h"
#include "ordk_env.h"

/* "ordk.ibverbs": --log-level=ordk.ibverbs:info (ordk-run --log-level) shows the report at close */
RTE_LOG_REGISTER(ov_logtype, ordk.ibverbs, NOTICE);

/*
 * The device with rdma-core's names: ordk0 is the RDMA device, uverbs0 its
 * verbs node (/dev/infiniband/uverbs0, which UCX checks), the sysfs paths
 * those of the two classes; ordk-run's mount namespace shows them
 * (verbs_compat.md, "Where UCX and libfabric look"). The real providers'
 * mlx5dv_is_supported() and friends read a struct verbs_device's ops pointer
 * just past the ibv_device: NULL here, no provider of theirs.
 */
static struct {
	struct ibv_device device;
	const void *ops;
} ov_verbs_device = {
	.device = {
		.node_type = IBV_NODE_CA,
		.transport_type = IBV_TRANSPORT_IB,
		.name = "ordk0",
		.dev_name = "uverbs0",
		.dev_path = "/sys/class/infiniband_verbs/uverbs0",
		.ibdev_path = "/sys/class/infiniband/ordk0",
	},
};
#define ov_device ov_verbs_device.device

static struct ov_dev ov_the_dev = { .lock = PTHREAD_MUTEX_INITIALIZER, .port = -1 };
static pthread_mutex_t ov_open_lock = PTHREAD_MUTEX_INITIALIZER;
static bool ov_eal_up;

uint64_t
ov_mac_of(uint32_t ip)
{
	return 0x020000000000ull | ip;
}

/* "-l 1 --no-huge ..." into argv (whitespace separated, no quoting). */
static int
eal_from_env(const char *s, char **argv, char *store, size_t len)
{
	static char prog[] = "ordk-ibverbs"; /* rte_eal_init() takes char ** */
	int argc = 0;

	snprintf(store, len, "%s", s);
	argv[argc++] = prog;
	for (char *save = NULL, *t = strtok_r(store, " \t", &save); t != NULL;
	     t = strtok_r(NULL, " \t", &save)) {
		if (argc >= 63)
			return -1;
		argv[argc++] = t;
	}
	argv[argc] = NULL;
	return argc;
}

/* ORDK_IBV_STATS asks for the report: ordk.ibverbs at INFO, and INFO not hidden globally */
static void
stats_level(void)
{
	if (getenv("ORDK_IBV_STATS") == NULL)
		return;
	rte_log_set_level((uint32_t)ov_logtype, RTE_LOG_INFO);
	if (rte_log_get_global_level() < RTE_LOG_INFO)
		rte_log_set_global_level(RTE_LOG_INFO);
}

static int
eal_up(void)
{
	static char store[2048], level[256];
	static char *argv[64];
	const char *env = getenv("ORDK_EAL"), *lv = getenv("ORDK_LOG_LEVEL");
	int argc;

	if (ov_eal_up)
		return 0;
	if (env != NULL) {
		argc = eal_from_env(env, argv, store, sizeof(store));
		/* ordk-run --log-level: after the user's own EAL arguments */
		if (argc >= 63 && lv != NULL) {
			argc = -1;
		} else if (argc > 0 && lv != NULL) {
			snprintf(level, sizeof(level), "--log-level=%s", lv);
			argv[argc++] = level;
			argv[argc] = NULL;
		}
	} else {
		/* ORDK's defaults (lib/env), with ordk-run's lcore, port and log level */
		const char *lc = getenv("ORDK_LCORE");
		struct ordk_env_eal d = { .prog = "ordk-ibverbs", .prefix = "ordk-ibv",
					  .lcore = lc != NULL ? atoi(lc) : 0, .mem_mb = 512,
					  .vdev = getenv("ORDK_VDEV"), .log_level = lv };

		argc = ordk_env_eal_argv(&d, argv, store, sizeof(store));
	}
	if (argc < 0) {
		OV_LOG(ERR, "ORDK_EAL has too many arguments\n");
		return -EINVAL;
	}
	/* a memif server's socket file left by a process that ended with its port */
	if (env == NULL && ordk_env_memif_claim(getenv("ORDK_VDEV"), ORDK_ENV_PEER_LEAVE_S) < 0)
		return -EADDRINUSE;
	if (rte_eal_init(argc, argv) < 0) {
		OV_LOG(ERR, "EAL initialisation failed: %s (check ORDK_EAL; see ordk-doctor)\n",
		       rte_strerror(rte_errno));
		return -ENODEV;
	}
	ov_eal_up = true;
	stats_level();
	return 0;
}

/* ORDK_DEV with the ethdev port started and ip= / mac= settled. */
static int
dev_args(struct ov_dev *d, char *out, size_t len)
{
	const char *env = getenv("ORDK_DEV"), *role = getenv("ORDK_ROLE"), *p;
	unsigned int a, b, c, e;
	uint32_t ip = 0x0A000001;
	size_t n;

	if (env == NULL || *env == '\0')
		env = "bluesim,port=loopback";
	d->client = role != NULL && strcmp(role, "client") == 0;
	n = (size_t)snprintf(out, len, "%s", env);
	if (strncmp(env, "bluesim", 7) != 0)
		return 0;
	p = strstr(env, "ip=");
	if (p != NULL && sscanf(p + 3, "%u.%u.%u.%u", &a, &b, &c, &e) == 4)
		ip = a << 24 | b << 16 | c << 8 | e;
	else if (p == NULL && n < len)
		n += (size_t)snprintf(out + n, len - n, ",ip=10.0.0.1");
	if (strstr(env, "mac=") == NULL && n < len)
		snprintf(out + n, len - n, ",mac=02:00:%02x:%02x:%02x:%02x", ip >> 24,
			 ip >> 16 & 0xff, ip >> 8 & 0xff, ip & 0xff);
	p = strstr(env, "port=");
	if (p != NULL && p[5] >= '0' && p[5] <= '9')
		d->port = atoi(p + 5);
	return 0;
}

/*
 * The report at close or exit: the device's counters, what its progress
 * thread did and its lingers, at INFO on ordk.ibverbs (ORDK_IBV_STATS=1 or
 * --log-level=ordk.ibverbs:info shows it).
 */
static void
log_stats(struct ov_dev *d)
{
	struct ordk_stats st;

	if (d->dev == NULL || d->stats_done || !rte_log_can_log((uint32_t)ov_logtype, RTE_LOG_INFO))
		return;
	d->stats_done = true;
	ordk_dev_stats(d->dev, &st);
	OV_LOG(INFO, "%s: progress thread: %" PRIu64 " polls, %" PRIu64 " with work\n",
	       d->attr.name, (uint64_t)d->thread_polls, (uint64_t)d->thread_work);
	OV_LOG(INFO,
	       "%s: linger: %" PRIu64 " times, %" PRIu64 " saw work, %.2f us on average, %" PRIu64
	       " answered later, %" PRIu64 " left a request arriving\n",
	       d->attr.name, d->linger.n, d->linger.hits,
	       d->linger.n ? (double)d->linger.cycles / d->linger.n * 1e6 / rte_get_tsc_hz() : 0.,
	       d->linger.late, d->linger.left_open);
	OV_LOG(INFO, "%s: event waits: %" PRIu64 " polled first, %" PRIu64 " found their event\n",
	       d->attr.name, d->ev_spins, d->ev_spin_hits);
	if (d->rejoins > 0)
		OV_LOG(INFO, "%s: link: %" PRIu64 " starts of the port to rejoin a server\n",
		       d->attr.name, d->rejoins);
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++)
		if (ordk_stats_value(&st, i) != 0)
			OV_LOG(INFO, "%s:   %-22s %" PRIu64 "\n", d->attr.name, ordk_stats_name(i),
			       ordk_stats_value(&st, i));
}

/*
 * At exit(). A program may exit from inside a verb (a signal handler that
 * calls exit(), as libinfinipath's for SIGTERM): its own thread holds the
 * lock then, and waiting for it would never end. Other threads hold it a
 * linger at most: 2 s tells the two apart.
 */
static void
stats_at_exit(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (pthread_mutex_timedlock(&ov_the_dev.lock, &until) != 0) {
		OV_LOG(WARNING, "exit with the device locked (from inside a verb?): no report\n");
		return;
	}
	log_stats(&ov_the_dev);
	pthread_mutex_unlock(&ov_the_dev.lock);
}

/*
 * The first open of the process brings up EAL, the port and the ORDK device;
 * they stay for the process (EAL cannot come up twice). An open after the
 * last close finds them: it starts a port the last close stopped (a memif
 * client connects to its server again) and the progress thread.
 */
static int
dev_get(struct ov_dev *d)
{
	char args[512];
	int rc;

	if (d->refs > 0) {
		d->refs++;
		return 0;
	}
	if (d->dev == NULL) {
		rc = eal_up();
		if (rc == 0)
			rc = dev_args(d, args, sizeof(args));
		if (rc == 0)
			rc = ov_port_up(d);
		if (rc != 0)
			return rc;
		d->dev = ordk_dev_open(args);
		if (d->dev == NULL) {
			OV_LOG(ERR, "cannot open ORDK device '%s': %s (check ORDK_DEV)\n", args,
			       rte_strerror(rte_errno));
			return -rte_errno;
		}
		ordk_dev_query(d->dev, &d->attr);
		ordk_dev_set_async_cb(d->dev, ov_async_cb, d);
		if (!d->atexit_set)
			atexit(stats_at_exit);
		d->atexit_set = true;
		d->mac = d->attr.mac;
		if (d->mac != ov_mac_of(d->attr.ip))
			OV_LOG(WARNING, "mac= is not 02:00:<ip>: peers will not reach this device\n");
	} else if (d->port_stopped || d->port_unplugged) {
		rc = ov_port_up(d);
		if (rc != 0)
			return rc;
		d->port_stopped = false;
	}
	rc = ov_progress_start(d);
	if (rc != 0)
		return rc;
	d->stats_done = false;
	d->refs = 1;
	return 0;
}

static void
dev_put(struct ov_dev *d)
{
	if (--d->refs > 0)
		return;
	ov_progress_stop(d);
	log_stats(d);
	ov_port_end(d);
}

struct ibv_device **
ibv_get_device_list(int *num)
{
	struct ibv_device **l = calloc(2, sizeof(*l));

	if (l == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	l[0] = &ov_device;
	if (num != NULL)
		*num = 1;
	return l;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device != NULL ? device->name : NULL;
}

int
ibv_get_device_index(struct ibv_device *device)
{
	return device == &ov_device ? 0 : -1;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	uint64_t m = ov_the_dev.mac, g;

	(void)device;
	/* EUI-64 from the MAC: ff:fe in the middle, the U/L bit flipped */
	g = (m >> 24 & 0xffffff) << 40 | 0xfffeull << 24 | (m & 0xffffff);
	g ^= 0x0200000000000000ull;
	return htobe64(g);
}

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct ov_ctx *x;
	int rc;

	if (device != &ov_device) {
		errno = ENODEV;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* asynchronous events: readable while one is pending (ibv_async.c) */
	x->vctx.context.async_fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (x->vctx.context.async_fd < 0) {
		free(x);
		return NULL;
	}
	pthread_mutex_lock(&ov_open_lock); /* no progress thread runs while refs is 0 */
	rc = dev_get(&ov_the_dev);
	pthread_mutex_unlock(&ov_open_lock);
	if (rc != 0) {
		close(x->vctx.context.async_fd);
		free(x);
		errno = -rc;
		return NULL;
	}
	x->d = &ov_the_dev;
	x->vctx.sz = sizeof(x->vctx);
	x->vctx.context.device = device;
	x->vctx.context.cmd_fd = -1;
	x->vctx.context.num_comp_vectors = 1;
	x->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&x->vctx.context.mutex, NULL);
	x->vctx.context.ops.poll_cq = ov_poll_cq;
	x->vctx.context.ops.req_notify_cq = ov_req_notify_cq;
	x->vctx.context.ops.post_send = ov_post_send;
	x->vctx.context.ops.post_recv = ov_post_recv;
	x->vctx.context.ops.post_srq_recv = ov_post_srq_recv;
	x->vctx.query_port = ov_query_port;
	x->vctx.create_qp_ex = ov_create_qp_ex;
	ov_set_refused_ops(&x->vctx);
	pthread_mutex_lock(&x->d->lock);
	x->next = x->d->ctxs;
	x->d->ctxs = x;
	pthread_mutex_unlock(&x->d->lock);
	return &x->vctx.context;
}

int
ibv_close_device(struct ibv_context *c)
{
	struct ov_ctx *x = (struct ov_ctx *)verbs_get_ctx(c);

	pthread_mutex_lock(&x->d->lock);
	for (struct ov_ctx **p = &x->d->ctxs; *p != NULL; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
	pthread_mutex_unlock(&x->d->lock);
	close(c->async_fd);
	pthread_mutex_lock(&ov_open_lock); /* refs change under it; dev_put() joins the thread */
	dev_put(x->d);
	pthread_mutex_unlock(&ov_open_lock);
	pthread_mutex_destroy(&c->mutex);
	free(x);
	return 0;
}

int
ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	struct ov_dev *d = ov_dev_of(c);
	const struct ordk_dev_attr *o = &d->attr;

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "ordk %s", o->name);
	a->node_guid = ibv_get_device_guid(c->device);
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = o->max_mr_size;
	a->page_size_cap = 4096 | (2u << 20);
	a->vendor_id = 0; /* no vendor: tools take no vendor-specific path */
	a->max_qp = (int)o->max_qp;
	a->max_qp_wr = (int)o->max_qp_wr - 16;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT;
	a->max_sge = (int)o->max_sge;
	a->max_sge_rd = (int)o->max_sge;
	a->max_cq = (int)o->max_cq;
	a->max_cqe = (int)o->max_cqe;
	a->max_mr = (int)o->max_mr;
	a->max_pd = (int)o->max_pd;
	a->max_srq = (int)o->max_srq; /* no IBV_DEVICE_SRQ_RESIZE: ibv_modify_srq() cannot resize */
	a->max_srq_wr = (int)o->max_srq_wr;
	a->max_srq_sge = (int)o->max_srq_sge;
	a->max_qp_rd_atom = 16; /* ibv_qp.c reserves as many send queue slots for READ answers */
	a->max_qp_init_rd_atom = 16;
	a->max_res_rd_atom = 16 * a->max_qp;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_pkeys = 1;
	a->max_ah = 65536; /* software objects (lib/verbs): the PD's count is the bound */
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
	return 0;
}

int
ov_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a, size_t len)
{
	struct ov_dev *d = ov_dev_of(c);
	struct ibv_port_attr p = {
		.state = IBV_PORT_ACTIVE,
		.max_mtu = IBV_MTU_4096,
		.active_mtu = IBV_MTU_4096,
		.gid_tbl_len = 1,
		.port_cap_flags = 0,
		.max_msg_sz = d->attr.max_msg_sz,
		.pkey_tbl_len = 1,
		/* no LID on Ethernet; the IP's low half lets a non-GRH AV find the peer */
		.lid = (uint16_t)(d->attr.ip & 0xffff),
		.max_vl_num = 1,
		.active_width = 2,  /* 4X */
		.active_speed = 32, /* EDR: 4X = 100 Gb/s, a nominal figure */
		.phys_state = 5,    /* LinkUp */
		.link_layer = IBV_LINK_LAYER_ETHERNET,
	};

	if (port != 1)
		return EINVAL;
	memcpy(a, &p, len < sizeof(p) ? len : sizeof(p));
	return 0;
}

#undef ibv_query_port
int ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *a);
int
ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *a)
{
	/* the compat layout ends where ibv_port_attr grew (flags) */
	return ov_query_port(c, port, (struct ibv_port_attr *)a, offsetof(struct ibv_port_attr, flags));
}

int
ibv_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	uint32_t ip = ov_dev_of(c)->attr.ip;

	if (port != 1 || index != 0)
		return -1;
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	gid->raw[12] = (uint8_t)(ip >> 24);
	gid->raw[13] = (uint8_t)(ip >> 16);
	gid->raw[14] = (uint8_t)(ip >> 8);
	gid->raw[15] = (uint8_t)ip;
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index,
		      struct ibv_gid_entry *e, uint32_t flags, size_t len);
int
_ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index, struct ibv_gid_entry *e,
		  uint32_t flags, size_t len)
{
	struct ibv_gid_entry g = { .gid_index = index, .port_num = port,
				   .gid_type = IBV_GID_TYPE_ROCE_V2 };

	if (flags != 0 || port != 1 || index != 0 || len < sizeof(g))
		return EINVAL;
	ibv_query_gid(c, 1, 0, &g.gid);
	memcpy(e, &g, sizeof(g));
	return 0;
}

/* what ibv_query_gid_table() calls: one entry, index 0 */
ssize_t _ibv_query_gid_table(struct ibv_context *c, struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags, size_t entry_size);
ssize_t
_ibv_query_gid_table(struct ibv_context *c, struct ibv_gid_entry *entries, size_t max_entries,
		     uint32_t flags, size_t entry_size)
{
	if (max_entries < 1)
		return -ENOMEM;
	return _ibv_query_gid_ex(c, 1, 0, entries, flags, entry_size) == 0 ? 1 : -EINVAL;
}

/* rdma-core's private ibv_query_gid_type (librdmacm calls it): 1 = RoCE v2 */
int ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned int index, int *type);
int
ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned int index, int *type)
{
	(void)c;
	if (port != 1 || index != 0)
		return -1;
	*type = 1;
	return 0;
}

int
ibv_query_pkey(struct ibv_context *c, uint8_t port, int index, __be16 *pkey)
{
	(void)c;
	if (port != 1 || index != 0)
		return -1;
	*pkey = htobe16(0xffff);
	return 0;
}

int
ibv_get_pkey_index(struct ibv_context *c, uint8_t port, __be16 pkey)
{
	(void)c;
	return port == 1 && (be16toh(pkey) & 0x7fff) == 0x7fff ? 0 : -1;
}

/*
 * rdma-core's helpers: read <dir>/<file> (without its last newline); sysfs
 * is /sys. Under ordk-run the device's class entries are its mount
 * namespace's view (ordk-run.in); elsewhere there are none.
 */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
const char *ibv_get_sysfs_path(void);

int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	if (dir == NULL || file == NULL || buf == NULL || size == 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	if (n <= 0)
		return (int)n;
	if (buf[n - 1] == '\n')
		buf[--n] = '\0';
	else if ((size_t)n < size)
		buf[n] = '\0';
	else
		return -1; /* no room for the terminator: rdma-core fails too */
	return (int)n;
}

const char *
ibv_get_sysfs_path(void)
{
	return "/sys";
}

const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const s[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	if ((unsigned int)status >= sizeof(s) / sizeof(s[0]) || s[status] == NULL)
		return "unknown";
	return s[status];
}
