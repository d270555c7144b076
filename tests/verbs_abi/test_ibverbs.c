/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ORDK's libibverbs through <infiniband/verbs.h> only, one process on a
 * loopback bluesim: the device's identity, the verbs it refuses (EOPNOTSUPP,
 * no crash), and an RC SEND between two QPs waited for on a completion
 * channel whose fd becomes readable.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <rte_log.h>

#include "abi_qp.h"

/* @p call returns NULL with errno EOPNOTSUPP: a verb ORDK refuses */
#define REFUSED_NULL(call)                             \
	do {                                           \
		errno = 0;                             \
		cr_assert_null(call);                  \
		cr_assert_eq(errno, EOPNOTSUPP, #call); \
	} while (0)

static struct ibv_context *
open_ordk(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *c;

	cr_assert(l != NULL && n == 1);
	cr_assert_str_eq(ibv_get_device_name(l[0]), "ordk0");
	c = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	cr_assert_not_null(c);
	return c;
}

Test(ibverbs, identity_and_refusals)
{
	struct ibv_context *c = open_ordk();
	struct ibv_port_attr pa;
	struct ibv_gid_entry ge;
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = ibv_create_cq(c, 8, NULL, NULL, 0);
	struct ibv_srq_init_attr_ex sx = { .attr = { .max_wr = 4, .max_sge = 1 },
					   .comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
							IBV_SRQ_INIT_ATTR_PD,
					   .srq_type = IBV_SRQT_XRC };
	struct ibv_qp_init_attr uc = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UC,
				       .cap = { .max_send_wr = 1, .max_recv_wr = 1 } };
	struct ibv_cq_init_attr_ex cx = { .cqe = 8 };
	char buf[64];

	cr_assert_eq(ibv_query_port(c, 1, &pa), 0);
	cr_assert_eq(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	cr_assert_eq(ibv_query_gid_ex(c, 1, 0, &ge, 0), 0);
	cr_assert_eq(ge.gid_type, IBV_GID_TYPE_ROCE_V2);
	cr_assert(ge.gid.raw[10] == 0xff && ge.gid.raw[11] == 0xff && ge.gid.raw[12] == 10);
	cr_assert(pd != NULL && cq != NULL);
	sx.pd = pd;
	REFUSED_NULL(ibv_create_srq_ex(c, &sx)); /* XRC (basic SRQs: ibverbs::srq_*) */
	sx.srq_type = IBV_SRQT_TM;
	REFUSED_NULL(ibv_create_srq_ex(c, &sx));
	REFUSED_NULL(ibv_create_qp(pd, &uc));
	REFUSED_NULL(ibv_alloc_mw(pd, IBV_MW_TYPE_1));
	REFUSED_NULL(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE));
	REFUSED_NULL(ibv_create_cq_ex(c, &cx));
	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_dealloc_pd(pd), 0);
}

Test(ibverbs, send_recv_on_a_completion_channel)
{
	struct ibv_context *c = open_ordk();
	struct ibv_comp_channel *ch = ibv_create_comp_channel(c);
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *scq = ibv_create_cq(c, 8, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(c, 8, (void *)0x5eed, ch, 0);
	char *buf = calloc(2, 4096);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp_init_attr ia = { .send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	struct ibv_sge ss = { (uintptr_t)buf, 100, 0 }, rs = { (uintptr_t)buf + 4096, 4096, 0 };
	struct ibv_recv_wr rw = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .wr_id = 9, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct pollfd pfd;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct ibv_wc wc;

	cr_assert(ch != NULL && pd != NULL && scq != NULL && rcq != NULL && mr != NULL);
	ss.lkey = rs.lkey = mr->lkey;
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	cr_assert(a != NULL && b != NULL);
	cr_assert_eq(ibv_query_gid(c, 1, 0, &gid), 0);
	abi_qp_to_rts(a, b->qp_num, &gid, 0x123456); /* a perftest-style random PSN */
	abi_qp_to_rts(b, a->qp_num, &gid, 0x123456); /* a perftest-style random PSN */
	memset(buf, 0xab, 100);
	cr_assert_eq(ibv_post_recv(b, &rw, &brw), 0);
	cr_assert_eq(ibv_req_notify_cq(rcq, 0), 0);
	cr_assert_eq(ibv_post_send(a, &sw, &bsw), 0);
	/* nobody polls: the progress thread delivers, and the fd becomes readable */
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	cr_assert_eq(poll(&pfd, 1, 10000), 1, "the completion channel never became readable");
	cr_assert_eq(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	cr_assert(ev_cq == rcq && ev_ctx == (void *)0x5eed);
	ibv_ack_cq_events(rcq, 1);
	cr_assert_eq(ibv_poll_cq(rcq, 1, &wc), 1);
	cr_assert(wc.status == IBV_WC_SUCCESS && wc.wr_id == 7 && wc.opcode == IBV_WC_RECV &&
		  wc.byte_len == 100);
	cr_assert_eq(buf[4096 + 99], (char)0xab);
	for (int i = 0; i < 1000000 && ibv_poll_cq(scq, 1, &wc) == 0; i++)
		;
	cr_assert(wc.wr_id == 9 && wc.status == IBV_WC_SUCCESS);
	cr_assert_eq(ibv_destroy_qp(a), 0);
	cr_assert_eq(ibv_destroy_qp(b), 0);
	cr_assert_eq(ibv_destroy_cq(rcq), 0);
	cr_assert_eq(ibv_destroy_comp_channel(ch), 0);
	cr_assert_eq(ibv_destroy_cq(scq), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dealloc_pd(pd), 0);
	cr_assert_eq(ibv_close_device(c), 0);
	free(buf);
}

/*
 * An SRQ through the ABI: a SEND lands in one of its RECVs, reported on the
 * QP it came through (wc.qp_num); bad_wr names a bad RECV; an SRQ in use is
 * not destroyed; resizing is refused; the limit arms and fires through
 * async_fd; LAST_WQE_REACHED when its QP goes to ERR.
 */
Test(ibverbs, srq_send_recv_limit_and_misuse)
{
	struct ibv_context *c = open_ordk();
	struct ibv_device_attr da;
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = ibv_create_cq(c, 16, NULL, NULL, 0);
	char *buf = calloc(4, 4096);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4 * 4096, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_srq_init_attr sa = { .srq_context = (void *)0x51,
					.attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	struct ibv_sge ss = { (uintptr_t)buf, 100, 0 };
	struct ibv_sge rs[2] = { { (uintptr_t)buf + 4096, 4096, 0 },
				 { (uintptr_t)buf + 8192, 4096, 0 } };
	struct ibv_recv_wr rw[2] = { { .wr_id = 7, .sg_list = &rs[0], .num_sge = 1 },
				     { .wr_id = 8, .sg_list = &rs[1], .num_sge = 2 } }, *brw = NULL;
	struct ibv_send_wr sw = { .wr_id = 9, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct ibv_srq_attr at = { .srq_limit = 2 };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;
	struct ibv_wc wc;
	int got = 0;

	cr_assert_eq(ibv_query_device(c, &da), 0);
	cr_assert(da.max_srq > 0 && da.max_srq_wr >= 4 && da.max_srq_sge == 1);
	cr_assert(pd != NULL && cq != NULL && mr != NULL && srq != NULL);
	cr_assert_eq(srq->srq_context, (void *)0x51);
	ss.lkey = rs[0].lkey = rs[1].lkey = mr->lkey;
	a = ibv_create_qp(pd, &ia);
	ia.srq = srq;
	b = ibv_create_qp(pd, &ia);
	cr_assert(a != NULL && b != NULL && b->srq == srq);
	cr_assert_eq(ibv_destroy_srq(srq), EBUSY);
	cr_assert_eq(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR), EOPNOTSUPP);
	cr_assert_eq(ibv_query_gid(c, 1, 0, &gid), 0);
	abi_qp_to_rts(a, b->qp_num, &gid, 0);
	abi_qp_to_rts(b, a->qp_num, &gid, 0);
	rw[0].next = &rw[1];
	cr_assert_eq(ibv_post_srq_recv(srq, rw, &brw), EINVAL, "the second has 2 SGEs");
	cr_assert_eq(brw, &rw[1]);
	cr_assert_eq(ibv_post_recv(b, &rw[0], &brw), EINVAL, "b receives from its SRQ");
	/* 1 outstanding: the limit fires at the next consumption */
	cr_assert_eq(ibv_modify_srq(srq, &at, IBV_SRQ_LIMIT), 0);
	memset(buf, 0xcd, 100);
	cr_assert_eq(ibv_post_send(a, &sw, &bsw), 0);
	for (int i = 0; i < 2000000 && got < 2; i++)
		if (ibv_poll_cq(cq, 1, &wc) == 1) {
			cr_assert_eq(wc.status, IBV_WC_SUCCESS);
			if (wc.wr_id == 7)
				cr_assert(wc.qp_num == b->qp_num && wc.byte_len == 100 &&
					  wc.opcode == IBV_WC_RECV);
			got++;
		}
	cr_assert_eq(got, 2);
	cr_assert_eq(buf[4096 + 99], (char)0xcd);
	cr_assert_eq(ibv_get_async_event(c, &ev), 0);
	cr_assert(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq);
	ibv_ack_async_event(&ev);
	cr_assert_eq(ibv_query_srq(srq, &at), 0);
	cr_assert(at.max_wr == 4 && at.srq_limit == 0);
	cr_assert_eq(ibv_modify_qp(b, &err, IBV_QP_STATE), 0);
	cr_assert_eq(ibv_get_async_event(c, &ev), 0);
	cr_assert(ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED && ev.element.qp == b);
	ibv_ack_async_event(&ev);
	cr_assert_eq(ibv_destroy_qp(a), 0);
	cr_assert_eq(ibv_destroy_qp(b), 0);
	cr_assert_eq(ibv_destroy_srq(srq), 0);
	cr_assert_eq(ibv_destroy_srq(srq), EINVAL);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dealloc_pd(pd), 0);
	cr_assert_eq(ibv_close_device(c), 0);
	free(buf);
}

/* A UD QP of @p pd in RTS with Q_Key 0x11111111, as ibv_ud_pingpong makes one. */
static struct ibv_qp *
ud_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
				       .cap = { .max_send_wr = 1, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				 .qkey = 0x11111111 };
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	cr_assert_not_null(qp, "UD QP: errno %d", errno);
	cr_assert_eq(qp->qp_type, IBV_QPT_UD);
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						   IBV_QP_QKEY), 0);
	a.qp_state = IBV_QPS_RTR;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x654321;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	return qp;
}

static void
wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i = 0;

	while (ibv_poll_cq(cq, 1, wc) == 0 && i++ < 10000000)
		;
	cr_assert_lt(i, 10000000, "no completion");
}

/* The log's writer of exit_inside_a_verb: exit() at the first line, as a signal handler may. */
static ssize_t
exit_now(void *cookie, const char *buf, size_t len)
{
	static int exiting;

	(void)cookie, (void)buf;
	if (exiting++ == 0)
		exit(0);
	return (ssize_t)len;
}

/* In a child: a UD SEND too long for a frame, which the driver logs from inside the verb. */
static void
post_and_log(void)
{
	cookie_io_functions_t io = { .write = exit_now };
	struct ibv_context *c = open_ordk();
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = ibv_create_cq(c, 4, NULL, NULL, 0);
	static uint8_t buf[8192];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_qp *qp = ud_qp(pd, cq);
	struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND }, *bad;
	FILE *log = fopencookie(NULL, "w", io);

	ibv_query_gid(c, 1, 0, &aa.grh.dgid);
	wr.wr.ud.ah = ibv_create_ah(pd, &aa);
	wr.wr.ud.remote_qpn = qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	if (log == NULL || wr.wr.ud.ah == NULL)
		_exit(2);
	setvbuf(log, NULL, _IONBF, 0);
	rte_openlog_stream(log);
	ibv_post_send(qp, &wr, &bad); /* 8192 bytes, above the MTU: refused, one line from inside the verb */
	_exit(3);
}

/*
 * A program that exits from inside a verb (libfabric's psm provider loads
 * libinfinipath, whose SIGTERM handler calls exit(); here the log's writer)
 * ends: the report at exit must not wait for the device's lock that its own
 * thread holds (fi_pingpong hung so under timeout's SIGTERM).
 */
Test(ibverbs, exit_inside_a_verb_ends)
{
	pid_t pid = fork();
	int st = 0, i;

	cr_assert_geq(pid, 0);
	if (pid == 0)
		post_and_log();
	for (i = 0; i < 2000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 2000) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		cr_assert_fail("the process still runs 20 s after exit() from inside a verb");
	}
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x (2: no AH, 3: no log line)", st);
}

/* UD through the ABI on one device (to itself): an AH from the LID, the GRH, and the answer
 * through an AH from the completion */
Test(ibverbs, ud_to_itself_and_back)
{
	struct ibv_context *c = open_ordk();
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = ibv_create_cq(c, 16, NULL, NULL, 0);
	uint8_t *buf = calloc(1, 8192);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp *a, *b;
	struct ibv_port_attr pa;
	struct ibv_ah_attr aa = { .port_num = 1 }, back;
	struct ibv_ah *ah, *ah2;
	struct ibv_sge ss = { (uintptr_t)buf, 500, 0 }, rs = { (uintptr_t)buf + 4096, 4096, 0 };
	struct ibv_recv_wr rw = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .wr_id = 9, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct ibv_wc wc;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;

	cr_assert(pd != NULL && cq != NULL && mr != NULL);
	ss.lkey = rs.lkey = mr->lkey;
	a = ud_qp(pd, cq);
	b = ud_qp(pd, cq);
	cr_assert_eq(ibv_query_qp(b, &qa, IBV_QP_QKEY, &qi), 0);
	cr_assert(qa.qkey == 0x11111111 && qi.qp_type == IBV_QPT_UD);
	cr_assert_eq(ibv_query_port(c, 1, &pa), 0);
	aa.dlid = pa.lid; /* no GRH: the LID says where, as ibv_ud_pingpong's AH does */
	ah = ibv_create_ah(pd, &aa);
	cr_assert_not_null(ah, "errno %d", errno);
	for (int i = 0; i < 500; i++)
		buf[i] = (uint8_t)(i + 1);
	cr_assert_eq(ibv_post_recv(b, &rw, &brw), 0);
	sw.wr.ud.ah = ah;
	sw.wr.ud.remote_qpn = b->qp_num;
	sw.wr.ud.remote_qkey = 0x11111111;
	cr_assert_eq(ibv_post_send(a, &sw, &bsw), 0);
	for (int got = 0; got < 2; got++) {
		wait_wc(cq, &wc);
		cr_assert_eq(wc.status, IBV_WC_SUCCESS, "%s", ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_RECV)
			break;
	}
	cr_assert_eq(wc.opcode, IBV_WC_RECV);
	cr_assert_eq(wc.byte_len, 40u + 500);
	cr_assert_eq(wc.src_qp, a->qp_num);
	cr_assert(wc.wc_flags & IBV_WC_GRH);
	cr_assert_eq(buf[4096 + 40 + 499], (uint8_t)500);
	cr_assert_eq(buf[4096 + 20], 0x45, "the IPv4 header in the GRH's last 20 bytes");
	cr_assert_eq(ibv_init_ah_from_wc(c, 1, &wc, (struct ibv_grh *)(buf + 4096), &back), 0);
	cr_assert(back.is_global && back.grh.dgid.raw[10] == 0xff && back.grh.dgid.raw[12] == 10);
	ah2 = ibv_create_ah_from_wc(pd, &wc, (struct ibv_grh *)(buf + 4096), 1);
	cr_assert_not_null(ah2);
	rw.wr_id = 8;
	cr_assert_eq(ibv_post_recv(a, &rw, &brw), 0);
	sw.wr.ud.ah = ah2;
	sw.wr.ud.remote_qpn = wc.src_qp;
	sw.sg_list->length = 4097; /* above the port's MTU */
	cr_assert_eq(ibv_post_send(b, &sw, &bsw), EINVAL);
	sw.sg_list->length = 4096 - 40; /* three frames, and the GRH: the RECV's 4096 bytes */
	cr_assert_eq(ibv_post_send(b, &sw, &bsw), 0);
	do
		wait_wc(cq, &wc);
	while (wc.opcode != IBV_WC_RECV);
	cr_assert(wc.wr_id == 8 && wc.status == IBV_WC_SUCCESS && wc.src_qp == b->qp_num &&
		  wc.byte_len == 4096u);
	/* RoCE v2 over IPv4 in sl, as mlx5 says it (UCX reads the GRH's family there) */
	cr_assert_eq(wc.sl, 0xA);
	cr_assert_eq(ibv_dealloc_pd(pd), EBUSY, "AHs hold the PD");
	cr_assert_eq(ibv_destroy_ah(ah), 0);
	cr_assert_eq(ibv_destroy_ah(ah2), 0);
	cr_assert_eq(ibv_destroy_ah(ah2), EINVAL);
	cr_assert_eq(ibv_destroy_qp(a), 0);
	cr_assert_eq(ibv_destroy_qp(b), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dealloc_pd(pd), 0);
	cr_assert_eq(ibv_close_device(c), 0);
	free(buf);
}

/*
 * Gather lists through the ABI, as UCX uses them: QPs of 5 send SGEs (above
 * max_sge: EINVAL; a RECV of 2: EINVAL), a SEND of three SGEs and one inline of
 * two, a zero-length WRITE with no SGE and rkey 0 (UCX's flush), a READ
 * scattering over two.
 */
Test(ibverbs, gather_lists_as_ucx_posts_them)
{
	struct ibv_context *c = open_ordk();
	struct ibv_device_attr da;
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = ibv_create_cq(c, 16, NULL, NULL, 0);
	uint8_t *buf = calloc(1, 16384);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 16384, IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 8, .max_recv_wr = 8,
						.max_send_sge = 5, .max_recv_sge = 1,
						.max_inline_data = 64 } };
	struct ibv_sge g[3], rs = { (uintptr_t)buf + 8192, 4096, 0 };
	struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .wr_id = 2, .sg_list = g, .num_sge = 3, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	struct ibv_wc wc;

	cr_assert(pd != NULL && cq != NULL && mr != NULL);
	cr_assert_eq(ibv_query_device(c, &da), 0);
	cr_assert_eq(da.max_sge, 16);
	ia.cap.max_send_sge = 17;
	cr_assert_null(ibv_create_qp(pd, &ia));
	cr_assert_eq(errno, EINVAL);
	ia.cap.max_send_sge = 5;
	ia.cap.max_recv_sge = 2;
	cr_assert_null(ibv_create_qp(pd, &ia), "a RECV lands in one buffer");
	ia.cap.max_recv_sge = 1;
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	cr_assert(a != NULL && b != NULL);
	cr_assert_eq(ia.cap.max_send_sge, 5, "what the QP got");
	cr_assert_eq(ibv_query_gid(c, 1, 0, &gid), 0);
	abi_qp_to_rts(a, b->qp_num, &gid, 0);
	abi_qp_to_rts(b, a->qp_num, &gid, 0);
	for (int i = 0; i < 3000; i++)
		buf[i] = (uint8_t)(i * 7);
	g[0] = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };	    /* a header */
	g[1] = (struct ibv_sge){ (uintptr_t)buf + 8, 1000, mr->lkey };  /* two payload parts */
	g[2] = (struct ibv_sge){ (uintptr_t)buf + 1008, 1992, mr->lkey };
	rs.lkey = mr->lkey;
	cr_assert_eq(ibv_post_recv(b, &rw, &brw), 0);
	cr_assert_eq(ibv_post_send(a, &sw, &bsw), 0);
	do
		wait_wc(cq, &wc);
	while (wc.opcode != IBV_WC_RECV);
	cr_assert(wc.status == IBV_WC_SUCCESS && wc.byte_len == 3000);
	cr_assert_eq(memcmp(buf + 8192, buf, 3000), 0);
	wait_wc(cq, &wc);
	cr_assert(wc.wr_id == 2 && wc.status == IBV_WC_SUCCESS);
	/* a short AM: inline, two SGEs */
	sw.send_flags |= IBV_SEND_INLINE;
	sw.num_sge = 2;
	g[1].length = 40; /* 48 bytes: within the QP's 64 */
	rw.wr_id = 3;
	cr_assert_eq(ibv_post_recv(b, &rw, &brw), 0);
	cr_assert_eq(ibv_post_send(a, &sw, &bsw), 0);
	do
		wait_wc(cq, &wc);
	while (wc.opcode != IBV_WC_RECV);
	cr_assert(wc.wr_id == 3 && wc.byte_len == 48);
	wait_wc(cq, &wc);
	/* the flush: a WRITE of nothing, no SGE, rkey 0 */
	sw = (struct ibv_send_wr){ .wr_id = 4, .opcode = IBV_WR_RDMA_WRITE, .num_sge = 0,
				   .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE };
	cr_assert_eq(ibv_post_send(a, &sw, &bsw), 0);
	wait_wc(cq, &wc);
	cr_assert(wc.wr_id == 4 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_WRITE);
	/* a READ scattering over two SGEs (b answers READs: abi_qp_to_rts() gives REMOTE_WRITE) */
	cr_assert_eq(ibv_modify_qp(b, &(struct ibv_qp_attr){ .qp_access_flags =
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ }, IBV_QP_ACCESS_FLAGS), 0);
	memset(buf + 12288, 0, 2000);
	g[0] = (struct ibv_sge){ (uintptr_t)buf + 12288, 500, mr->lkey };
	g[1] = (struct ibv_sge){ (uintptr_t)buf + 13000, 1500, mr->lkey };
	sw = (struct ibv_send_wr){ .wr_id = 5, .sg_list = g, .num_sge = 2,
				   .opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED };
	sw.wr.rdma.remote_addr = (uintptr_t)buf;
	sw.wr.rdma.rkey = mr->rkey;
	cr_assert_eq(ibv_post_send(a, &sw, &bsw), 0);
	wait_wc(cq, &wc);
	cr_assert(wc.wr_id == 5 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_READ,
		  "wr_id %lu %s opcode %d", (unsigned long)wc.wr_id, ibv_wc_status_str(wc.status), wc.opcode);
	cr_assert_eq(memcmp(buf + 12288, buf, 500), 0);
	cr_assert_eq(memcmp(buf + 13000, buf + 500, 1500), 0);
	cr_assert_eq(ibv_destroy_qp(a), 0);
	cr_assert_eq(ibv_destroy_qp(b), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dealloc_pd(pd), 0);
	cr_assert_eq(ibv_close_device(c), 0);
	free(buf);
}

/* stderr into a pipe from now until stderr_end() */
static int
stderr_begin(int *saved)
{
	int p[2];

	cr_assert_eq(pipe(p), 0);
	fflush(stderr);
	*saved = dup(2);
	cr_assert(*saved >= 0 && dup2(p[1], 2) == 2);
	close(p[1]);
	return p[0];
}

/* stderr back, and what was written to it in @p out */
static void
stderr_end(int rd, int saved, char *out, size_t len)
{
	size_t n = 0;
	ssize_t k;

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	while (n + 1 < len && (k = read(rd, out + n, len - 1 - n)) > 0)
		n += (size_t)k;
	out[n] = '\0';
	close(rd);
}

/* The rest of rdma-core's symbols: answered, or refused with errno and one line naming the verb */
Test(ibverbs, every_symbol_answers)
{
	struct ibv_context *c = open_ordk();
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = ibv_create_cq(c, 8, NULL, NULL, 0);
	char *buf = calloc(1, 4096), err[4096] = "";
	struct ibv_mr *mr = ibv_reg_mr_iova(pd, buf, 4096, (uintptr_t)buf, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *qp;
	struct ibv_gid_entry g[4];
	struct ibv_qp_rate_limit_attr rl = { .rate_limit = 1000 };
	struct ibv_rwq_ind_table_init_attr rw = { 0 };
	struct ibv_flow_action_esp_attr esp = { 0 };
	static const char *const refused[] = {
		"ibv_rereg_mr", "ibv_resize_cq", "ibv_modify_qp_rate_limit",
		"ibv_create_rwq_ind_table", "ibv_create_flow_action_esp", "ibv_import_mr",
		"ibv_reg_dmabuf_mr",
	};
	int saved, rd;

	cr_assert(pd != NULL && cq != NULL && mr != NULL);
	rd = stderr_begin(&saved);
	qp = ibv_create_qp(pd, &ia);
	cr_assert_not_null(qp);
	cr_assert_eq(ibv_query_gid_table(c, g, 4, 0), 1);
	cr_assert(g[0].gid_type == IBV_GID_TYPE_ROCE_V2 && g[0].port_num == 1 && g[0].gid.raw[11] == 0xff);
	cr_assert_eq(ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE, 0), 0);
	cr_assert_eq(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 103125);
	cr_assert_str_eq(ibv_node_type_str(IBV_NODE_CA), "InfiniBand channel adapter");
	errno = 0;
	cr_assert_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, pd, NULL, 0, 0), IBV_REREG_MR_ERR_INPUT);
	cr_assert_eq(errno, EOPNOTSUPP);
	cr_assert_eq(ibv_resize_cq(cq, 16), EOPNOTSUPP);
	cr_assert_eq(ibv_modify_qp_rate_limit(qp, &rl), EOPNOTSUPP);
	REFUSED_NULL(ibv_create_rwq_ind_table(c, &rw));
	REFUSED_NULL(ibv_create_flow_action_esp(c, &esp));
	REFUSED_NULL(ibv_import_mr(pd, 1));
	REFUSED_NULL(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE));
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_dealloc_pd(pd), 0);
	stderr_end(rd, saved, err, sizeof(err));
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char line[128];

		snprintf(line, sizeof(line), "ordk-ibverbs: %s: not supported by ORDK (", refused[i]);
		cr_expect_not_null(strstr(err, line), "no line '%s...' in:\n%s", line, err);
	}
	ibv_close_device(c);
	free(buf);
}

/*
 * A careless caller: a handle used after its destroy, a scatter list that is
 * not there, access bits that do not exist. Each verb returns an error and
 * touches nothing else (each Criterion test runs in a child process of its
 * own: a crash fails it).
 */
struct misuse {
	struct ibv_context *c;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp_init_attr ia;
};

static void
misuse_open(struct misuse *m)
{
	m->c = open_ordk();
	m->pd = ibv_alloc_pd(m->c);
	m->cq = ibv_create_cq(m->c, 8, NULL, NULL, 0);
	cr_assert(m->pd != NULL && m->cq != NULL);
	m->ia = (struct ibv_qp_init_attr){ .send_cq = m->cq, .recv_cq = m->cq, .qp_type = IBV_QPT_RC,
					   .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						    .max_send_sge = 1, .max_recv_sge = 1 } };
}

Test(ibverbs_misuse, a_second_destroy_qp_is_refused_and_spares_the_next_qp)
{
	struct misuse m;
	struct ibv_qp *a, *b;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				    .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	const int init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	struct ibv_send_wr sw = { .opcode = IBV_WR_SEND }, *bad = NULL;
	struct ibv_recv_wr rw = { .wr_id = 1 }, *rbad = NULL;

	misuse_open(&m);
	a = ibv_create_qp(m.pd, &m.ia);
	cr_assert_not_null(a);
	cr_assert_eq(ibv_destroy_qp(a), 0);
	b = ibv_create_qp(m.pd, &m.ia); /* where malloc() would put a's wrapper again */
	cr_assert_not_null(b);
	cr_assert_eq(ibv_destroy_qp(a), EINVAL, "a second destroy is refused");
	cr_assert_eq(ibv_modify_qp(a, &init, init_mask), EINVAL);
	cr_assert_eq(ibv_query_qp(a, &qa, IBV_QP_STATE, &qi), EINVAL);
	cr_assert_eq(ibv_post_send(a, &sw, &bad), EINVAL);
	cr_assert(bad == &sw);
	cr_assert_eq(ibv_post_recv(a, &rw, &rbad), EINVAL);
	cr_assert(rbad == &rw);
	/* b is untouched: still there, still in RESET, and it moves on */
	cr_assert_eq(ibv_query_qp(b, &qa, IBV_QP_STATE, &qi), 0);
	cr_assert_eq(qa.qp_state, IBV_QPS_RESET);
	cr_assert_eq(ibv_modify_qp(b, &init, init_mask), 0);
	cr_assert_eq(ibv_destroy_qp(b), 0);
	cr_assert_eq(ibv_destroy_qp(b), EINVAL);
	cr_assert_eq(ibv_destroy_cq(m.cq), 0);
	cr_assert_eq(ibv_dealloc_pd(m.pd), 0);
	cr_assert_eq(ibv_close_device(m.c), 0);
}

Test(ibverbs_misuse, second_dereg_dealloc_and_destroys_are_refused)
{
	struct misuse m;
	char *buf = calloc(1, 4096);
	struct ibv_mr *mr, *mr2;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq2;

	misuse_open(&m);
	mr = ibv_reg_mr(m.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	cr_assert_not_null(mr);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	mr2 = ibv_reg_mr(m.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	cr_assert_not_null(mr2);
	cr_assert_eq(ibv_dereg_mr(mr), EINVAL, "a second dereg is refused");
	cr_assert_eq(ibv_dereg_mr(mr2), 0, "and the MR registered since is still there");
	ch = ibv_create_comp_channel(m.c);
	cr_assert_not_null(ch);
	cq2 = ibv_create_cq(m.c, 4, NULL, ch, 0);
	cr_assert_not_null(cq2);
	cr_assert_eq(ibv_destroy_cq(cq2), 0);
	cr_assert_eq(ibv_destroy_cq(cq2), EINVAL);
	cr_assert_eq(ibv_req_notify_cq(cq2, 0), EINVAL);
	cr_assert_lt(ibv_poll_cq(cq2, 1, &(struct ibv_wc){ 0 }), 0);
	cr_assert_eq(ibv_destroy_comp_channel(ch), 0);
	cr_assert_eq(ibv_destroy_comp_channel(ch), EINVAL);
	errno = 0;
	cr_assert_null(ibv_create_cq(m.c, 4, NULL, ch, 0), "a destroyed channel is no channel");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(ibv_destroy_cq(m.cq), 0);
	errno = 0;
	cr_assert_null(ibv_create_qp(m.pd, &m.ia), "a QP on a destroyed CQ");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(ibv_dealloc_pd(m.pd), 0);
	cr_assert_eq(ibv_dealloc_pd(m.pd), EINVAL);
	errno = 0;
	cr_assert_null(ibv_reg_mr(m.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE), "an MR on a freed PD");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(ibv_close_device(m.c), 0);
	free(buf);
}

Test(ibverbs_misuse, a_missing_scatter_list_and_unknown_access_bits_are_einval)
{
	struct misuse m;
	struct ibv_qp *qp;
	struct ibv_send_wr sw = { .wr_id = 1, .opcode = IBV_WR_SEND, .num_sge = 1, .sg_list = NULL };
	struct ibv_recv_wr rw = { .wr_id = 2, .num_sge = 1, .sg_list = NULL };
	struct ibv_send_wr *bad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | (1u << 20) };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	const int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;

	misuse_open(&m);
	qp = ibv_create_qp(m.pd, &m.ia);
	cr_assert_not_null(qp);
	cr_assert_eq(ibv_modify_qp(qp, &a, mask), EINVAL, "an access bit ibverbs does not have");
	cr_assert_eq(ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi), 0);
	cr_assert_eq(qa.qp_state, IBV_QPS_RESET, "a refused modify changes nothing");
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	cr_assert_eq(ibv_modify_qp(qp, &a, mask), 0);
	cr_assert_eq(ibv_post_send(qp, &sw, &bad), EINVAL);
	cr_assert(bad == &sw);
	cr_assert_eq(ibv_post_recv(qp, &rw, &rbad), EINVAL);
	cr_assert(rbad == &rw);
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_cq(m.cq), 0);
	cr_assert_eq(ibv_dealloc_pd(m.pd), 0);
	cr_assert_eq(ibv_close_device(m.c), 0);
}

/*
 * fio's rdma engine: its control message (8204 bytes: 3 packets at PMTU 4096)
 * is received into a member of a malloc'd struct registered LOCAL_WRITE, the
 * next members (its send buffer) registered again with no access at all.
 * The driver pins and DMA-maps each MR's pages that no other MR covers, so
 * the sender's buffer was mapped in two pieces, and bluesim refused a packet
 * whose payload spanned them (an IOMMU translates page by page): that packet
 * was lost on every retry until RETRY_EXC_ERR (model tests
 * sim_tx/a_payload_across_two_dma_mappings, sim_rx/a_packet_across_...).
 */
struct fio_like {
	uint32_t hdr[3];
	uint8_t recv_buf[8204];
	void *ptrs[12];
	uint8_t send_buf[8204];
};

Test(ibverbs, a_send_into_a_buffer_beside_another_mr)
{
	struct ibv_context *c = open_ordk();
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = ibv_create_cq(c, 16, NULL, NULL, 0);
	struct fio_like *x = malloc(sizeof(*x)), *y = malloc(sizeof(*y));
	struct ibv_mr *xr, *xs, *yr, *ys;
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	struct ibv_sge ss, rs;
	struct ibv_recv_wr rw = { .wr_id = 512, .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .wr_id = 512, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct ibv_wc wc;
	int got = 0, st[2] = { -1, -1 };

	cr_assert(pd != NULL && cq != NULL && x != NULL && y != NULL);
	xr = ibv_reg_mr(pd, x->recv_buf, sizeof(x->recv_buf), IBV_ACCESS_LOCAL_WRITE);
	xs = ibv_reg_mr(pd, x->send_buf, sizeof(x->send_buf), 0);
	yr = ibv_reg_mr(pd, y->recv_buf, sizeof(y->recv_buf), IBV_ACCESS_LOCAL_WRITE);
	ys = ibv_reg_mr(pd, y->send_buf, sizeof(y->send_buf), 0);
	cr_assert(xr != NULL && xs != NULL && yr != NULL && ys != NULL);
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	cr_assert(a != NULL && b != NULL);
	cr_assert_eq(ibv_query_gid(c, 1, 0, &gid), 0);
	abi_qp_to_rts(a, b->qp_num, &gid, 0);
	abi_qp_to_rts(b, a->qp_num, &gid, 0);
	for (size_t i = 0; i < sizeof(y->send_buf); i++)
		y->send_buf[i] = (uint8_t)(i * 7);
	rs = (struct ibv_sge){ (uintptr_t)x->recv_buf, sizeof(x->recv_buf), xr->lkey };
	ss = (struct ibv_sge){ (uintptr_t)y->send_buf, sizeof(y->send_buf), ys->lkey };
	cr_assert_eq(ibv_post_recv(a, &rw, &brw), 0);
	cr_assert_eq(ibv_post_send(b, &sw, &bsw), 0);
	for (long i = 0; i < 100000000L && got < 2; i++)
		if (ibv_poll_cq(cq, 1, &wc) == 1)
			st[got++] = wc.status;
	cr_assert_eq(got, 2, "the SEND and its RECV complete");
	cr_assert(st[0] == IBV_WC_SUCCESS && st[1] == IBV_WC_SUCCESS, "statuses %s, %s",
		  ibv_wc_status_str(st[0]), ibv_wc_status_str(st[1]));
	cr_assert_eq(memcmp(x->recv_buf, y->send_buf, sizeof(x->recv_buf)), 0);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(xr);
	ibv_dereg_mr(xs);
	ibv_dereg_mr(yr);
	ibv_dereg_mr(ys);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(c);
	free(x);
	free(y);
}
