/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ORDK's librdmacm for UD ids (RDMA_PS_UDP) in one process (loopback
 * bluesim): the SIDR exchange (lib/rdmacm/rcm_sidr.c) between a listener and
 * a client, its UD QPs in RTS with RDMA_UDP_QKEY, param.ud on both sides, a
 * datagram each way with the address handles it gives; reject, nobody
 * listening, a silent port; what a stranger does to the listener's UDP port
 * (garbage, a request naming no device address, a request sent twice) and
 * what a client meets (an answer naming no QP, answers to other requests):
 * each ends in an event or an error and is counted, none in a hang.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rdma/rdma_cma.h>

int ordk_rdmacm_counter(const char *name, uint64_t *value);

#define WAIT_MS 20000 /* a bound that tells a hang from a slow machine */
#define MSG	256   /* ORDK's SIDR messages (rcm_sidr.c) */

static uint64_t
counter(const char *name)
{
	uint64_t v = 0;

	cr_assert_eq(ordk_rdmacm_counter(name, &v), 0, "counter %s", name);
	return v;
}

static struct rdma_cm_event *
next_event(struct rdma_event_channel *ch)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev = NULL;

	if (poll(&p, 1, WAIT_MS) != 1)
		return NULL;
	cr_assert_eq(rdma_get_cm_event(ch, &ev), 0, "fd readable but no event: %s", strerror(errno));
	return ev;
}

/* The next event, of @p type and @p status; the caller acks it. */
static struct rdma_cm_event *
want(struct rdma_event_channel *ch, enum rdma_cm_event_type type, int status)
{
	struct rdma_cm_event *ev = next_event(ch);

	cr_assert_not_null(ev, "no event, waited for %s", rdma_event_str(type));
	cr_assert_eq(ev->event, type, "got %s (status %d), waited for %s", rdma_event_str(ev->event),
		     ev->status, rdma_event_str(type));
	cr_assert_eq(ev->status, status, "%s: status %d, want %d", rdma_event_str(type), ev->status,
		     status);
	return ev;
}

static void
no_event(struct rdma_event_channel *ch)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	cr_assert_eq(poll(&p, 1, 100), 0, "an event reached the application");
}

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static bool
counted(const char *name, uint64_t n)
{
	for (int i = 0; i < WAIT_MS; i++) {
		if (counter(name) >= n)
			return true;
		usleep(1000);
	}
	return false;
}

/* A UD listener on every address, an ephemeral UDP port; @return the port. */
static uint16_t
listener(struct rdma_event_channel *ch, struct rdma_cm_id **l)
{
	struct sockaddr_in any = sin_of("0.0.0.0", 0);

	cr_assert_eq(rdma_create_id(ch, l, NULL, RDMA_PS_UDP), 0, "UDP port space: %s", strerror(errno));
	cr_assert_eq((*l)->qp_type, IBV_QPT_UD, "a UDP id is UD, as rdma-core's");
	cr_assert_eq(rdma_bind_addr(*l, (struct sockaddr *)&any), 0, "bind: %s", strerror(errno));
	cr_assert_eq(rdma_listen(*l, 8), 0, "listen: %s", strerror(errno));
	return ntohs(rdma_get_src_port(*l));
}

static struct ibv_qp_init_attr
ud_attr(void)
{
	return (struct ibv_qp_init_attr){ .qp_type = IBV_QPT_UD, .sq_sig_all = 1,
					  .cap = { .max_send_wr = 8, .max_recv_wr = 8,
						   .max_send_sge = 1, .max_recv_sge = 1 } };
}

/* The QP rdma_create_qp() made is in RTS with the UDP port space's Q_Key, as rdma-core's. */
static void
check_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	cr_assert_eq(ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_QKEY, &ia), 0);
	cr_assert_eq(a.qp_state, IBV_QPS_RTS, "a UD id's QP is ready at creation");
	cr_assert_eq(a.qkey, RDMA_UDP_QKEY, "Q_Key 0x%x, want RDMA_UDP_QKEY", a.qkey);
}

/* A UD client to 127.0.0.1:@p port, resolved, with a QP (no PD, no CQs given). */
static struct rdma_cm_id *
client(struct rdma_event_channel *ch, uint16_t port, bool qp)
{
	struct sockaddr_in dst = sin_of("127.0.0.1", port);
	struct ibv_qp_init_attr qa = ud_attr();
	struct rdma_cm_id *c;

	cr_assert_eq(rdma_create_id(ch, &c, NULL, RDMA_PS_UDP), 0);
	cr_assert_eq(rdma_resolve_addr(c, NULL, (struct sockaddr *)&dst, 2000), 0);
	rdma_ack_cm_event(want(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	cr_assert_eq(rdma_resolve_route(c, 2000), 0);
	rdma_ack_cm_event(want(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	if (qp) {
		cr_assert_eq(rdma_create_qp(c, NULL, &qa), 0, "rdma_create_qp: %s", strerror(errno));
		check_rts(c->qp);
	}
	return c;
}

static void
connect_with(struct rdma_cm_id *c, const char *pdata)
{
	struct rdma_conn_param p = { .private_data = pdata,
				     .private_data_len = (uint8_t)(strlen(pdata) + 1) };

	cr_assert_eq(rdma_connect(c, &p), 0, "rdma_connect: %s", strerror(errno));
}

/* The listener's next CONNECT_REQUEST (param.ud, the private data checked): its new id. */
static struct rdma_cm_id *
request(struct rdma_event_channel *ch, struct rdma_cm_id *l, const char *pdata)
{
	struct rdma_cm_event *ev = want(ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	struct rdma_cm_id *s = ev->id;

	cr_assert_eq(ev->listen_id, l);
	cr_assert_eq(ev->param.ud.private_data_len, 180, "a SIDR_REQ's private data: 180 bytes");
	cr_assert_str_eq(ev->param.ud.private_data, pdata);
	cr_assert_eq(s->qp_type, IBV_QPT_UD);
	cr_assert_not_null(s->verbs);
	rdma_ack_cm_event(ev);
	return s;
}

static void
accept_with(struct rdma_cm_id *s, const char *pdata)
{
	struct ibv_qp_init_attr qa = ud_attr();
	struct rdma_conn_param p = { .private_data = pdata,
				     .private_data_len = (uint8_t)(strlen(pdata) + 1) };

	cr_assert_eq(rdma_create_qp(s, NULL, &qa), 0, "rdma_create_qp: %s", strerror(errno));
	check_rts(s->qp);
	p.qp_num = s->qp->qp_num;
	cr_assert_eq(rdma_accept(s, &p), 0, "rdma_accept: %s", strerror(errno));
}

static int
poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	for (long i = 0; i < 200000000L; i++) { /* bounded: a lost completion fails, never hangs */
		int n = ibv_poll_cq(cq, 1, wc);

		if (n != 0)
			return n;
	}
	return 0;
}

/*
 * A datagram from @p a to @p qpn/@p qkey through @p ah, received by @p b;
 * @return its completion, its GRH in @p grh.
 */
static struct ibv_wc
datagram(struct rdma_cm_id *a, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey, struct rdma_cm_id *b,
	 const char *msg, struct ibv_grh *grh)
{
	char src[64] = { 0 }, dst[40 + 64] = { 0 };
	struct ibv_mr *ms = ibv_reg_mr(a->pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *md = ibv_reg_mr(b->pd, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge ss = { .addr = (uintptr_t)src, .length = sizeof(src), .lkey = ms->lkey };
	struct ibv_sge ds = { .addr = (uintptr_t)dst, .length = sizeof(dst), .lkey = md->lkey };
	struct ibv_recv_wr rw = { .wr_id = 2, .sg_list = &ds, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .wr_id = 1, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct ibv_wc wc;

	cr_assert(ms != NULL && md != NULL);
	snprintf(src, sizeof(src), "%s", msg);
	sw.wr.ud.ah = ah;
	sw.wr.ud.remote_qpn = qpn;
	sw.wr.ud.remote_qkey = qkey;
	cr_assert_eq(ibv_post_recv(b->qp, &rw, &brw), 0);
	cr_assert_eq(ibv_post_send(a->qp, &sw, &bsw), 0, "post_send: %s", strerror(errno));
	cr_assert_eq(poll_one(a->send_cq, &wc), 1, "no send completion");
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "send: %s", ibv_wc_status_str(wc.status));
	cr_assert_eq(poll_one(b->recv_cq, &wc), 1, "no receive completion");
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "recv: %s", ibv_wc_status_str(wc.status));
	cr_assert_eq(wc.src_qp, a->qp->qp_num);
	cr_assert_str_eq(dst + 40, msg, "the datagram after its 40-byte GRH");
	memcpy(grh, dst, sizeof(*grh));
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	return wc;
}

Test(rdmacm_ud, sidr_connect_accept_and_a_datagram_each_way)
{
	struct rdma_event_channel *ch = rdma_create_event_channel(), *cch = rdma_create_event_channel();
	uint64_t est = counter("established");
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *c, *s;
	struct ibv_ah *ah, *back;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_grh grh;
	union ibv_gid gid;
	struct ibv_wc wc;
	uint16_t port = listener(ch, &l);

	c = client(cch, port, true);
	connect_with(c, "ud hello");
	s = request(ch, l, "ud hello");
	accept_with(s, "ud welcome");
	no_event(ch); /* the passive side of a SIDR has no ESTABLISHED */
	ev = want(cch, RDMA_CM_EVENT_ESTABLISHED, 0);
	cr_assert_eq(ev->param.ud.qp_num, s->qp->qp_num, "the QPN the SIDR_REP names");
	cr_assert_eq(ev->param.ud.qkey, RDMA_UDP_QKEY);
	cr_assert_eq(ev->param.ud.private_data_len, 136, "a SIDR_REP's private data: 136 bytes");
	cr_assert_str_eq(ev->param.ud.private_data, "ud welcome");
	cr_assert_eq(ev->param.ud.ah_attr.is_global, 1);
	cr_assert_eq(ibv_query_gid(c->verbs, 1, 0, &gid), 0);
	cr_assert_eq(memcmp(ev->param.ud.ah_attr.grh.dgid.raw, gid.raw, 16), 0,
		     "the AH names the passive side's GID");
	ah = ibv_create_ah(c->pd, &ev->param.ud.ah_attr);
	cr_assert_not_null(ah, "ibv_create_ah from param.ud: %s", strerror(errno));
	wc = datagram(c, ah, ev->param.ud.qp_num, ev->param.ud.qkey, s, "to the server", &grh);
	rdma_ack_cm_event(ev);
	/* the answer as udaddy's server sends it: an AH from the completion, its own QP's Q_Key */
	back = ibv_create_ah_from_wc(s->pd, &wc, &grh, s->port_num);
	cr_assert_not_null(back, "ibv_create_ah_from_wc: %s", strerror(errno));
	cr_assert_eq(ibv_query_qp(s->qp, &qa, IBV_QP_QKEY, &qia), 0);
	datagram(s, back, wc.src_qp, qa.qkey, c, "to the client", &grh);
	cr_assert_eq(counter("established"), est + 2, "one each side");
	ibv_destroy_ah(back);
	rdma_destroy_qp(s);
	rdma_destroy_id(s);
	rdma_destroy_qp(c);
	ibv_destroy_ah(ah);
	rdma_destroy_id(c);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm_ud, reject_is_unreachable_with_its_status_and_data)
{
	struct rdma_event_channel *ch = rdma_create_event_channel(), *cch = rdma_create_event_channel();
	uint64_t sent = counter("rej_sent"), rcvd = counter("rej_rcvd");
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *c, *s;
	uint16_t port = listener(ch, &l);

	c = client(cch, port, true);
	connect_with(c, "may I");
	s = request(ch, l, "may I");
	cr_assert_eq(rdma_reject(s, "no", 3), 0, "rdma_reject: %s", strerror(errno));
	ev = want(cch, RDMA_CM_EVENT_UNREACHABLE, 2); /* IBA's SIDR status 2, as the kernel reports it */
	cr_assert_eq(ev->param.ud.private_data_len, 136);
	cr_assert_str_eq(ev->param.ud.private_data, "no");
	rdma_ack_cm_event(ev);
	cr_assert_eq(rdma_accept(s, NULL), -1, "answered already");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(counter("rej_sent"), sent + 1);
	cr_assert_eq(counter("rej_rcvd"), rcvd + 1);
	rdma_destroy_id(s);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(ch);
}

/* A UDP port nobody has (bound, then let go). */
static uint16_t
free_port(void)
{
	struct sockaddr_in a = sin_of("127.0.0.1", 0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	close(fd);
	return ntohs(a.sin_port);
}

Test(rdmacm_ud, nobody_listening_is_unreachable_and_counted)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint64_t none = counter("no_listener"), again = counter("refused_retry");
	struct rdma_cm_id *c;

	setenv("ORDK_RDMACM_REFUSED_MS", "100", 1); /* refusals tried again this long */
	c = client(ch, free_port(), true);
	connect_with(c, "anyone?");
	/* IBA's SIDR status 1 (no such service), which the kernel's IB CM answers */
	rdma_ack_cm_event(want(ch, RDMA_CM_EVENT_UNREACHABLE, 1));
	cr_assert_eq(counter("no_listener"), none + 1);
	cr_assert_gt(counter("refused_retry"), again, "a refused request is tried again");
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_event_channel(ch);
}

/* A UD listener on 0.0.0.0:@p port. */
static void
listener_on(struct rdma_event_channel *ch, struct rdma_cm_id **l, uint16_t port)
{
	struct sockaddr_in any = sin_of("0.0.0.0", port);

	cr_assert_eq(rdma_create_id(ch, l, NULL, RDMA_PS_UDP), 0);
	cr_assert_eq(rdma_bind_addr(*l, (struct sockaddr *)&any), 0, "bind: %s", strerror(errno));
	cr_assert_eq(rdma_listen(*l, 8), 0);
}

Test(rdmacm_ud, a_listener_that_comes_late_is_found)
{
	struct rdma_event_channel *ch = rdma_create_event_channel(), *cch = rdma_create_event_channel();
	uint64_t again = counter("refused_retry");
	uint16_t port = free_port();
	struct rdma_cm_id *l, *c, *s;

	setenv("ORDK_RDMACM_REFUSED_MS", "10000", 1);
	c = client(cch, port, true);
	connect_with(c, "early");
	cr_assert(counted("refused_retry", again + 1), "the request was never refused");
	listener_on(ch, &l, port);
	s = request(ch, l, "early");
	accept_with(s, "late");
	rdma_ack_cm_event(want(cch, RDMA_CM_EVENT_ESTABLISHED, 0));
	rdma_destroy_qp(s);
	rdma_destroy_id(s);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(ch);
}

/* A UDP socket of the test's own on 127.0.0.1: a stranger, or a peer that misbehaves. */
static int
raw_socket(uint16_t *port)
{
	struct sockaddr_in a = sin_of("127.0.0.1", 0);
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 }; /* its reads fail rather than hang */
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	cr_assert_geq(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	if (port != NULL)
		*port = ntohs(a.sin_port);
	return fd;
}

static void
put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* A SIDR message as rcm_sidr.c writes it: @p type 6 (REQ) or 7 (REP), from device IP 10.0.0.@p host. */
static void
forge(uint8_t *m, uint8_t type, uint8_t status, uint32_t req, uint32_t qpn, uint8_t host)
{
	memset(m, 0, MSG);
	memcpy(m, "ORDKRCM1", 8);
	m[8] = type;
	m[9] = status;
	put32(m + 12, req);
	put32(m + 16, qpn);
	put32(m + 20, RDMA_UDP_QKEY);
	m[34] = m[35] = 0xff;
	m[36] = 10;
	m[39] = host;
}

static void
send_raw(int fd, const void *m, size_t len, uint16_t port)
{
	struct sockaddr_in to = sin_of("127.0.0.1", port);

	cr_assert_eq(sendto(fd, m, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

/* The listener still serves a real client, and nothing else reached the application. */
static void
still_serves(struct rdma_event_channel *ch, struct rdma_cm_id *l, uint16_t port)
{
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct rdma_cm_id *c = client(cch, port, true), *s;

	connect_with(c, "after");
	s = request(ch, l, "after"); /* the next event is this one */
	accept_with(s, "ok");
	rdma_ack_cm_event(want(cch, RDMA_CM_EVENT_ESTABLISHED, 0));
	rdma_destroy_qp(s);
	rdma_destroy_id(s);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_event_channel(cch);
}

Test(rdmacm_ud, garbage_on_the_port_is_counted_and_dropped)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint64_t junk = counter("garbage"), bad = counter("bad_req"), rej = counter("rej_sent");
	uint8_t m[300], r[MSG];
	struct rdma_cm_id *l;
	uint16_t port = listener(ch, &l);
	int fd = raw_socket(NULL);

	memset(m, 'x', sizeof(m));
	send_raw(fd, m, 10, port);	 /* short */
	send_raw(fd, m, sizeof(m), port); /* long */
	send_raw(fd, m, MSG, port);	 /* no magic */
	forge(m, 7, 0, 1, 0x100, 9);	 /* an answer, to a listener */
	send_raw(fd, m, MSG, port);
	forge(m, 6, 0, 2, 0, 9);
	m[10] = 181; /* more private data than a SIDR_REQ has */
	send_raw(fd, m, MSG, port);
	cr_assert(counted("garbage", junk + 5), "junk not counted");
	forge(m, 6, 0, 3, 0, 9);
	memset(m + 24, 0, 16); /* a GID that is no device's address */
	send_raw(fd, m, MSG, port);
	cr_assert_eq(recv(fd, r, sizeof(r), 0), MSG, "no SIDR_REP");
	cr_assert_eq(r[8], 7);
	cr_assert_eq(r[9], 2, "status %u, want 2 (rejected)", r[9]);
	cr_assert_eq(get32(r + 12), 3, "the answer names the request");
	cr_assert_eq(counter("bad_req"), bad + 1);
	cr_assert_eq(counter("rej_sent"), rej + 1);
	close(fd);
	still_serves(ch, l, port);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm_ud, a_request_sent_again_gets_the_same_answer)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ibv_qp_init_attr qa = ud_attr();
	uint8_t m[MSG], r[MSG], r2[MSG];
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *s;
	uint16_t port = listener(ch, &l);
	int fd = raw_socket(NULL);

	forge(m, 6, 0, 77, 0, 9);
	memcpy(m + 40, "twice", 6);
	m[10] = 6;
	send_raw(fd, m, MSG, port);
	ev = want(ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	s = ev->id;
	cr_assert_str_eq(ev->param.ud.private_data, "twice");
	cr_assert_eq(ev->param.ud.qp_num, 0, "IBA's SIDR_REQ names no QP");
	rdma_ack_cm_event(ev);
	cr_assert_eq(s->route.addr.dst_sin.sin_addr.s_addr, inet_addr("10.0.0.9"), "the requester's device IP");
	send_raw(fd, m, MSG, port); /* not answered yet: it waits */
	no_event(ch);
	cr_assert_eq(rdma_create_qp(s, NULL, &qa), 0);
	cr_assert_eq(rdma_accept(s, NULL), 0, "accept with the id's QP: %s", strerror(errno));
	cr_assert_eq(recv(fd, r, sizeof(r), 0), MSG);
	cr_assert_eq(r[8], 7);
	cr_assert_eq(r[9], 0);
	cr_assert_eq(get32(r + 12), 77);
	cr_assert_eq(get32(r + 16), s->qp->qp_num);
	cr_assert_eq(get32(r + 20), RDMA_UDP_QKEY);
	send_raw(fd, m, MSG, port); /* its answer lost: the same again */
	cr_assert_eq(recv(fd, r2, sizeof(r2), 0), MSG);
	cr_assert_eq(memcmp(r, r2, MSG), 0);
	no_event(ch);
	rdma_destroy_qp(s);
	rdma_destroy_id(s);
	close(fd);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm_ud, a_request_its_id_drops_is_rejected)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint8_t m[MSG], r[MSG];
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l;
	uint16_t port = listener(ch, &l);
	int fd = raw_socket(NULL);

	forge(m, 6, 0, 5, 0, 9);
	send_raw(fd, m, MSG, port);
	ev = want(ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	rdma_destroy_id(ev->id); /* never answered: as the kernel's IB CM, a rejection */
	rdma_ack_cm_event(ev);
	cr_assert_eq(recv(fd, r, sizeof(r), 0), MSG);
	cr_assert_eq(r[9], 2);
	cr_assert_eq(get32(r + 12), 5);
	close(fd);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

/* A client whose peer is a raw socket: it gets the SIDR_REP @p how says. */
static void
bad_peer(const char *how, enum rdma_cm_event_type type, int status, const char *count)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint64_t before = counter(count);
	struct sockaddr_in from;
	socklen_t flen = sizeof(from);
	struct rdma_cm_id *c;
	uint8_t m[MSG];
	uint16_t port;
	int fd = raw_socket(&port);

	c = client(ch, port, true);
	connect_with(c, "hi");
	cr_assert_eq(recvfrom(fd, m, sizeof(m), 0, (struct sockaddr *)&from, &flen), MSG);
	cr_assert_eq(m[8], 6, "a SIDR_REQ");
	cr_assert_str_eq((char *)m + 40, "hi");
	if (strcmp(how, "silent") != 0) {
		uint32_t req = get32(m + 12);
		uint8_t a[MSG];

		memset(a, 0x5a, sizeof(a)); /* garbage, then an answer to another request: ignored */
		sendto(fd, a, sizeof(a), 0, (struct sockaddr *)&from, flen);
		forge(a, 7, 0, req + 1, 0x200, 9);
		sendto(fd, a, sizeof(a), 0, (struct sockaddr *)&from, flen);
		forge(a, 7, 0, req, strcmp(how, "qp0") == 0 ? 0 : 0x200, 9);
		if (strcmp(how, "qkey") == 0)
			put32(a + 20, 0x1111);
		sendto(fd, a, sizeof(a), 0, (struct sockaddr *)&from, flen);
	} else {
		cr_assert_eq(recv(fd, m, sizeof(m), 0), MSG, "a request not answered is sent again");
	}
	rdma_ack_cm_event(want(ch, type, status));
	cr_assert_eq(counter(count), before + 1, "%s not counted", count);
	close(fd);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm_ud, an_answer_naming_no_qp_ends_the_request)
{
	bad_peer("qp0", RDMA_CM_EVENT_UNREACHABLE, -EPROTO, "bad_req");
}

Test(rdmacm_ud, an_answer_with_another_qkey_is_an_address_error)
{
	/* the kernel's cma_set_qkey(): the id's QP has RDMA_UDP_QKEY already */
	bad_peer("qkey", RDMA_CM_EVENT_ADDR_ERROR, -EINVAL, "bad_req");
}

Test(rdmacm_ud, a_silent_port_is_unreachable)
{
	setenv("ORDK_RDMACM_TIMEOUT_MS", "1200", 1); /* the bound on an answer, short here */
	bad_peer("silent", RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, "timeout");
}

Test(rdmacm_ud, calls_that_do_not_fit_are_refused)
{
	struct rdma_event_channel *ch = rdma_create_event_channel(), *cch = rdma_create_event_channel();
	struct ibv_qp_init_attr rc = ud_attr();
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	char big[200] = { 0 };
	struct rdma_conn_param p = { .private_data = big, .private_data_len = 181 };
	struct rdma_cm_id *l, *c, *s;
	uint16_t port = listener(ch, &l);
	int mask = 0;

	c = client(cch, port, false);
	rc.qp_type = IBV_QPT_RC;
	cr_assert_eq(rdma_create_qp(c, NULL, &rc), -1, "an RC QP on a UD id");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(rdma_init_qp_attr(c, &a, &mask), 0);
	cr_assert_eq(mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
		     "a UD id's attributes are INIT's, as the kernel's");
	cr_assert_eq(a.qkey, RDMA_UDP_QKEY);
	cr_assert_eq(rdma_connect(c, &p), -1, "181 bytes in a SIDR_REQ");
	cr_assert_eq(errno, EINVAL);
	p.private_data_len = 180;
	cr_assert_eq(rdma_connect(c, &p), 0, "180 bytes: %s", strerror(errno));
	s = request(ch, l, "");
	p.private_data_len = 137;
	cr_assert_eq(rdma_accept(s, &p), -1, "137 bytes in a SIDR_REP");
	cr_assert_eq(errno, EINVAL);
	p.private_data_len = 0;
	cr_assert_eq(rdma_accept(s, &p), -1, "no QP and no qp_num");
	cr_assert_eq(errno, EINVAL);
	p.qp_num = 0x1234; /* a QP of the application's own */
	cr_assert_eq(rdma_accept(s, &p), 0, "%s", strerror(errno));
	rdma_ack_cm_event(want(cch, RDMA_CM_EVENT_ESTABLISHED, 0));
	cr_assert_eq(rdma_disconnect(c), 0, "nothing connected: 0, as the kernel");
	rdma_destroy_id(s);
	rdma_destroy_id(c);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(cch);
	rdma_destroy_event_channel(ch);
}

/* The synchronous API with UD ids: rdma_create_ep, rdma_get_request, rdma_connect's event kept. */
struct ud_server {
	struct rdma_cm_id *l, *s;
	int rc;
};

static void *
ud_serve(void *arg)
{
	struct ud_server *sv = arg;

	sv->rc = -1;
	if (rdma_get_request(sv->l, &sv->s) != 0 || sv->s->qp == NULL)
		return NULL;
	sv->rc = rdma_accept(sv->s, NULL); /* the QP rdma_get_request gave it names itself */
	return NULL;
}

Test(rdmacm_ud, synchronous_endpoints)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_UDP }, *res;
	struct ibv_qp_init_attr qa = ud_attr();
	struct ud_server sv = { 0 };
	struct rdma_cm_id *c;
	char port[8];
	pthread_t t;

	cr_assert_eq(rdma_getaddrinfo(NULL, "0", &hints, &res), 0);
	cr_assert_eq(res->ai_qp_type, IBV_QPT_UD, "the UDP port space's QPs are UD");
	cr_assert_eq(rdma_create_ep(&sv.l, res, NULL, &qa), 0, "passive ep: %s", strerror(errno));
	rdma_freeaddrinfo(res);
	cr_assert_eq(rdma_listen(sv.l, 4), 0);
	snprintf(port, sizeof(port), "%u", ntohs(rdma_get_src_port(sv.l)));
	cr_assert_eq(pthread_create(&t, NULL, ud_serve, &sv), 0);
	hints.ai_flags = 0;
	cr_assert_eq(rdma_getaddrinfo("127.0.0.1", port, &hints, &res), 0);
	cr_assert_eq(rdma_create_ep(&c, res, NULL, &qa), 0, "active ep: %s", strerror(errno));
	rdma_freeaddrinfo(res);
	check_rts(c->qp);
	cr_assert_eq(rdma_connect(c, NULL), 0, "synchronous connect: %s", strerror(errno));
	pthread_join(t, NULL);
	cr_assert_eq(sv.rc, 0, "the server's side failed");
	cr_assert_not_null(c->event, "rdma_connect leaves its ESTABLISHED in id->event, as rdma-core");
	cr_assert_eq(c->event->event, RDMA_CM_EVENT_ESTABLISHED);
	cr_assert_eq(c->event->param.ud.qp_num, sv.s->qp->qp_num);
	cr_assert_eq(c->event->param.ud.qkey, RDMA_UDP_QKEY);
	rdma_destroy_ep(c);
	rdma_destroy_ep(sv.s);
	rdma_destroy_ep(sv.l);
}
