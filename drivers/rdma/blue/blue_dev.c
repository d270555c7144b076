/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Blue driver under lib/verbs: devices "bluesim[,args]" (the model on a
 * DPDK port) and "blue:<bdf>[,args]" (the card through VFIO), one ops table.
 * Open: the driver's devargs (mac=, ip=, cc=, cc_<key>=, cc_trace=), the
 * backend (by name, from the build's blue_backends[]), the MR-table keys, the
 * PGT, the QP numbers, the rings (blue_hw_start()), the congestion-control
 * settings, the transport's engine.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "blue_args.h"
#include "blue_backend.h"
#include "blue_verbs.h"
#include "ordk_devargs.h"

RTE_LOG_REGISTER(blue_verbs_logtype, ordk.blue.verbs, NOTICE);
#define BV_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, blue_verbs_logtype, "blue: " fmt "\n", ##__VA_ARGS__)

static unsigned int dev_count; /* default addresses: 02:00:00:00:00:<n>, 10.0.0.<n> */

/* The build's provider named @p name (blue_backends[]), or NULL. */
static const struct blue_backend_provider *
backend_find(const char *name)
{
	for (unsigned int i = 0; blue_backends[i] != NULL; i++)
		if (strcmp(blue_backends[i]->name, name) == 0)
			return blue_backends[i];
	return NULL;
}

/*
 * The backend behind BAR0, after the driver's own keys (mac=, ip=, ...) are
 * parsed. @p what: the device string's prefix, for the message.
 */
static int
backend_open(const char *args, const char *backend, const char *what, struct blue_backend *be,
	     struct blue_net_args *net)
{
	const struct ordk_devargs_set driver_keys = { blue_net_devargs, BLUE_NET_DEVARGS_COUNT,
						      NULL, true };
	const struct blue_backend_provider *p = backend_find(backend);
	char err[256] = "";
	int rc;

	if (p == NULL) {
		BV_LOG(ERR, "%s%s: no %s backend in this build", what, args, backend);
		return -ENODEV;
	}
	rc = blue_net_args_parse(p->key_part != NULL ? p->key_part(args) : args, p->keys,
				 p->n_keys, net, err, sizeof(err));
	if (rc == 0)
		rc = p->open(args, &driver_keys, be, err, sizeof(err));
	if (rc != 0)
		BV_LOG(ERR, "%s%s: %s", what, args, err);
	return rc;
}

static void
tables_fini(struct blue_dev *dev)
{
	mem_keys_fini(&dev->mr_keys);
	mem_keys_fini(&dev->qp_keys);
	mem_pgt_fini(&dev->pgt);
	mem_pins_fini(&dev->pins);
}

/* lib/verbs' timeline event, for the backend's capture (verbs_dev.trace_note). */
static void
trace_note(struct ordk_dev *odev, const char *text)
{
	struct blue_dev *dev = to_bdev(odev);

	dev->hw.be.ops->note(&dev->hw.be, text);
}

static int
dev_open(struct blue_dev *dev, const char *args, const char *backend, const char *what)
{
	unsigned int n = dev_count;
	struct blue_cc_args cc;
	struct blue_net_args net = { .mac = 0x020000000000ull | (n + 1),
				     .ip = 0x0A000000u | ((n + 1) & 0xFF), .cc = &cc };
	int rc;

	blue_cc_args_default(&cc);
	rc = backend_open(args, backend, what, &dev->hw.be, &net);
	if (rc != 0)
		return rc; /* the errno of where it failed: EINVAL, ENODEV, ENOMEM, ... */
	snprintf(dev->vdev.name, sizeof(dev->vdev.name), "%s", dev->hw.be.name);
	if (mem_keys_init(&dev->mr_keys, BLUE_MAX_MR, 0, rte_rdtsc()) ||
	    mem_keys_init(&dev->qp_keys, BLUE_MAX_QP, 1, rte_rdtsc() ^ 0x5555) ||
	    mem_pgt_init(&dev->pgt, BLUE_PGT_ENTRIES))
		rc = -ENOMEM;
	if (rc == 0)
		rc = blue_cc_open(dev, &cc);
	if (rc == 0)
		rc = blue_hw_start(&dev->hw, net.mac, net.ip);
	if (rc != 0) {
		blue_cc_close(dev);
		blue_hw_close(&dev->hw);
		tables_fini(dev);
		return rc;
	}
	dev->vdev.trace_depth = net.trace; /* lib/verbs keeps the QPs' timelines */
	/* and with a model writing a capture, its events are comments there too */
	if (net.trace != 0 && dev->hw.be.ops->note != NULL &&
	    dev->hw.be.ops->note(&dev->hw.be, "ordk: QP event timelines on (trace=): each event is a "
						  "comment of the next frame"))
		dev->vdev.trace_note = trace_note;
	TAILQ_INIT(&dev->rc.active);
	dev->rc.tsc_hz = rte_get_tsc_hz();
	rc_wheel_init(dev);
	dev_count++;
	BV_LOG(INFO, "%s: open, MAC %012" PRIx64 ", IP %u.%u.%u.%u", dev->vdev.name, net.mac,
	       net.ip >> 24, (net.ip >> 16) & 0xFF, (net.ip >> 8) & 0xFF, net.ip & 0xFF);
	return 0;
}

static int
sim_open(struct ordk_dev *dev, const char *args)
{
	return dev_open(to_bdev(dev), args, "bluesim", "bluesim,");
}

static int
vfio_open(struct ordk_dev *dev, const char *args)
{
	return dev_open(to_bdev(dev), args, "vfio", "blue:");
}

static void
dev_close(struct ordk_dev *odev)
{
	struct blue_dev *dev = to_bdev(odev);

	blue_cc_close(dev);
	blue_hw_close(&dev->hw);
	tables_fini(dev);
}

static void
dev_query(const struct ordk_dev *odev, struct ordk_dev_attr *a)
{
	const struct blue_dev *dev = to_bdev_const(odev);

	a->mac = dev->hw.mac;
	a->ip = dev->hw.ip;
	a->max_qp = BLUE_MAX_QP - 1; /* index 0 is reserved */
	a->max_qp_wr = ORDK_MAX_QP_WR;
	/* a send WR gathers (rc_sgl.c, UD copies), a receive lands in one buffer */
	a->max_sge = BLUE_MAX_SEND_SGE;
	a->max_recv_sge = 1;
	a->max_mr = BLUE_MAX_MR;
	a->max_mr_size = 0x7FFFFFFFull; /* the MR length is 32 bits */
	a->max_msg_sz = 1u << 31;
	a->pgt_entries = BLUE_PGT_ENTRIES;
	/* inline bytes wait in a registered slot per send WR (lib/verbs): the
	 * card reads them as any SGE; 256 covers perftest's and qperf's sizes */
	a->max_inline_data = BLUE_MAX_INLINE;
	/* UD is the driver's, over SimpleNic: a message is one frame of an RX slot */
	a->max_ud_msg = blue_ud_max_msg(dev);
}

static unsigned int
dev_poll(struct ordk_dev *odev, unsigned int budget)
{
	struct blue_dev *dev = to_bdev(odev);
	unsigned int work = blue_backend_poll(&dev->hw, budget);

	work += blue_cmd_poll(&dev->hw);
	return work + rc_poll(dev, budget);
}

enum {
#define PMD_XSTAT_ENUM(n) PMD_XSTAT_##n,
	BLUE_HW_STATS(PMD_XSTAT_ENUM)
#undef PMD_XSTAT_ENUM
	PMD_XSTATS
};

/* The driver's counters ("pmd_<name>", blue_hw.h's BLUE_HW_STATS), then the backend's. */
static int
dev_xstats(const struct ordk_dev *odev, const char **names, uint64_t *values, unsigned int n)
{
	const struct blue_dev *dev = to_bdev_const(odev);
	const struct blue_backend *be = &dev->hw.be;
	unsigned int total = PMD_XSTATS, i = 0;

	if (be->ops->xstats != NULL)
		total += be->ops->xstats(be, NULL, NULL, 0);
	if (names == NULL || values == NULL || n < total)
		return (int)total;
#define PMD_XSTAT_GET(s) names[i] = "pmd_" #s, values[i++] = dev->hw.st.s;
	BLUE_HW_STATS(PMD_XSTAT_GET)
#undef PMD_XSTAT_GET
	if (be->ops->xstats != NULL)
		i += be->ops->xstats(be, names + i, values + i, n - i);
	return (int)i;
}

static void
dev_xstats_reset(struct ordk_dev *odev)
{
	struct blue_dev *dev = to_bdev(odev);

	memset(&dev->hw.st, 0, sizeof(dev->hw.st));
	if (dev->hw.be.ops->xstats_reset != NULL)
		dev->hw.be.ops->xstats_reset(&dev->hw.be);
}

/* The poller's declared sleep: the transport's polling time runs through it (rc_idle()). */
static void
dev_idle(struct ordk_dev *odev, uint64_t ns)
{
	rc_idle(&to_bdev(odev)->rc, ns);
}

/* The model steps alone: the host's part of dev_poll() does not run. */
static int
dev_card_poll(struct ordk_dev *odev, unsigned int budget)
{
	struct blue_dev *dev = to_bdev(odev);

	if (dev->hw.be.ops->poll == NULL)
		return -ENOTSUP; /* the card runs by itself */
	return (int)blue_backend_poll(&dev->hw, budget);
}

static int
dev_set_faults(struct ordk_dev *odev, const char *spec)
{
	struct blue_dev *dev = to_bdev(odev);
	char err[160] = "";
	int rc;

	if (dev->hw.be.ops->set_faults == NULL)
		return -ENOTSUP;
	rc = dev->hw.be.ops->set_faults(&dev->hw.be, spec, err, sizeof(err));
	if (rc != 0)
		BV_LOG(ERR, "%s: faults '%s': %s", dev->vdev.name, spec, err);
	return rc;
}

/* The model's port's link (the card's is its own: no backend op). */
static void
dev_port_link(struct ordk_dev *odev, bool up)
{
	struct blue_dev *dev = to_bdev(odev);

	if (dev->hw.be.ops->link != NULL)
		dev->hw.be.ops->link(&dev->hw.be, up);
}

#define BLUE_OPS(open_fn)                                                                   \
	{                                                                                    \
		.dev_size = sizeof(struct blue_dev), .qp_size = sizeof(struct blue_qp),      \
		.mr_size = sizeof(struct blue_mr), .open = open_fn, .close = dev_close,  \
		.query = dev_query, .poll = dev_poll, .idle = dev_idle, .xstats = dev_xstats, \
		.xstats_reset = dev_xstats_reset, .set_faults = dev_set_faults,             \
		.card_poll = dev_card_poll, .port_link = dev_port_link,                     \
		.mr_reg = blue_mr_reg, .mr_dereg = blue_mr_dereg, .qp_create = blue_qp_create, \
		.qp_destroy = blue_qp_destroy, .qp_check = blue_qp_check,                   \
		.qp_modify = blue_qp_modify, .qp_flush = blue_qp_flush,                     \
		.qp_info = blue_qp_info, .post_send = blue_post_send,                       \
		.post_recv = blue_post_recv, .post_done = blue_post_done,                       \
		.srq_recv_check = blue_srq_recv_check,                   \
		.qp_cc_enable = blue_qp_cc_enable, .qp_cc_query = blue_qp_cc_query,         \
	}

static const struct ordk_dev_ops sim_ops = BLUE_OPS(sim_open);
static const struct ordk_dev_ops vfio_ops = BLUE_OPS(vfio_open);

/* In the build's driver table (ordk_drivers.c, from drivers/rdma/blue/meson.build). */
const struct ordk_driver ordk_driver_bluesim = { "bluesim", &sim_ops };
const struct ordk_driver ordk_driver_blue = { "blue", &vfio_ops };
