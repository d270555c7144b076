/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An endpoint: the device, PD, CQ and registered buffer that the tools, the
 * examples and the tests open on every device before their QPs.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "env_internal.h"
#include "ordk_devargs.h"
#include "ordk_env.h"

int
ordk_env_ep_open(struct ordk_env_ep *ep, const char *devargs, uint32_t cqe, void *buf,
		 size_t len, unsigned int access)
{
	char why[128];

	memset(ep, 0, sizeof(*ep));
	ep->dev = ordk_dev_open(devargs);
	if (ep->dev == NULL || ordk_dev_query(ep->dev, &ep->attr) != 0)
		return -1;
	ep->pd = ordk_pd_alloc(ep->dev);
	if (ep->pd == NULL)
		return -1;
	ep->cq = ordk_cq_create(ep->dev, cqe);
	if (ep->cq == NULL)
		return -1;
	/* one MR: said before a buffer of that size is asked for */
	if (ordk_devargs_check_range("endpoint buffer", len, 1, ep->attr.max_mr_size, why,
				     sizeof(why)) != 0) {
		ENV_LOG(ERR, "%s: %s, the device's max_mr_size", ep->attr.name, why);
		rte_errno = EINVAL;
		return -1;
	}
	if (buf == NULL) {
		buf = rte_zmalloc("ordk_env_ep", len, 4096);
		if (buf == NULL) {
			rte_errno = ENOMEM;
			return -1;
		}
		ep->buf_owned = true;
	}
	ep->buf = buf;
	ep->len = len;
	ep->mr = ordk_mr_reg(ep->pd, buf, len, access);
	return ep->mr != NULL ? 0 : -1;
}

/* Keep the first failure: the later steps still run. */
static void
first_error(int *rc, int r)
{
	if (*rc == 0)
		*rc = r;
}

int
ordk_env_ep_close(struct ordk_env_ep *ep)
{
	int rc = 0;

	if (ep->mr != NULL)
		first_error(&rc, ordk_mr_dereg(ep->mr));
	if (ep->cq != NULL)
		first_error(&rc, ordk_cq_destroy(ep->cq));
	if (ep->pd != NULL)
		first_error(&rc, ordk_pd_free(ep->pd));
	if (ep->dev != NULL)
		first_error(&rc, ordk_dev_close(ep->dev));
	if (ep->buf_owned)
		rte_free(ep->buf);
	memset(ep, 0, sizeof(*ep));
	return rc;
}
