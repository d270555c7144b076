/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ORDK's librdmacm through <rdma/rdma_cma.h> in one process (loopback
 * bluesim): the event channel, the exchange between a listener and its
 * clients with private data, a SEND over the connected QPs, reject and
 * disconnect; what a stranger can do to the listener's TCP port (garbage,
 * a REQ naming no QP) and what a client meets (nobody listening, a peer
 * that dies or stays silent mid-handshake, garbage back): each ends in an
 * event or an error and is counted, none in a hang.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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
#include <rdma/rdma_verbs.h>

int ordk_rdmacm_counter(const char *name, uint64_t *value);
/* rsockets' first name, refused (not declared by <rdma/rdma_cma.h>) */
int rsocket(int domain, int type, int protocol);

#define WAIT_MS 20000 /* a bound that tells a hang from a slow machine */

static uint64_t
counter(const char *name)
{
	uint64_t v = 0;

	cr_assert_eq(ordk_rdmacm_counter(name, &v), 0, "counter %s", name);
	return v;
}

/* The next event on @p ch, waited for by poll() on its fd; NULL when none came. */
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

static void
expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type, int status)
{
	struct rdma_cm_event *ev = next_event(ch);

	cr_assert_not_null(ev, "no event, waited for %s", rdma_event_str(type));
	cr_assert_eq(ev->event, type, "got %s (status %d), waited for %s", rdma_event_str(ev->event),
		     ev->status, rdma_event_str(type));
	cr_assert_eq(ev->status, status, "%s: status %d, want %d", rdma_event_str(type), ev->status,
		     status);
	/* an id of a program's channel keeps no event (rdma-core's: only synchronous ids do) */
	cr_assert_null(ev->id->event, "%s left in id->event, freed by its ack", rdma_event_str(type));
	rdma_ack_cm_event(ev);
}

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

/* A listener on every address, an ephemeral port; @return the port. */
static uint16_t
listener(struct rdma_event_channel *ch, struct rdma_cm_id **l)
{
	struct sockaddr_in any = sin_of("0.0.0.0", 0);

	cr_assert_eq(rdma_create_id(ch, l, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_bind_addr(*l, (struct sockaddr *)&any), 0, "bind: %s", strerror(errno));
	cr_assert_eq(rdma_listen(*l, 8), 0);
	cr_assert_not_null((*l)->verbs, "a bound id has the device");
	return ntohs(rdma_get_src_port(*l));
}

/* A client id with its route and a QP of the defaults (no PD, no CQs given). */
static struct rdma_cm_id *
client(struct rdma_event_channel *ch, uint16_t port)
{
	struct sockaddr_in dst = sin_of("127.0.0.1", port);
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct rdma_cm_id *c;

	cr_assert_eq(rdma_create_id(ch, &c, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_resolve_addr(c, NULL, (struct sockaddr *)&dst, 2000), 0);
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
	cr_assert_eq(rdma_resolve_route(c, 2000), 0);
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	cr_assert_eq(rdma_create_qp(c, NULL, &qa), 0, "rdma_create_qp: %s", strerror(errno));
	cr_assert(c->pd != NULL && c->send_cq != NULL && c->recv_cq != NULL && c->qp != NULL,
		  "rdma_create_qp with NULLs makes the PD and CQs, as rdma-core");
	return c;
}

static void
connect_with(struct rdma_cm_id *c, const char *pdata)
{
	struct rdma_conn_param p = { .private_data = pdata,
				     .private_data_len = (uint8_t)(strlen(pdata) + 1),
				     .initiator_depth = 1, .responder_resources = 1, .retry_count = 7,
				     .rnr_retry_count = 7 };

	cr_assert_eq(rdma_connect(c, &p), 0, "rdma_connect: %s", strerror(errno));
}

/* The listener's next CONNECT_REQUEST: its new id, with a QP; the REQ's private data checked. */
/* The two ends of a connection, each with its QP. */
static void
destroy_pair(struct rdma_cm_id *s, struct rdma_cm_id *c)
{
	rdma_destroy_qp(s);
	rdma_destroy_id(s);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
}

static struct rdma_cm_id *
request(struct rdma_event_channel *ch, struct rdma_cm_id *l, const char *pdata)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct rdma_cm_event *ev = next_event(ch);
	struct rdma_cm_id *s;

	cr_assert_not_null(ev, "no CONNECT_REQUEST");
	cr_assert_eq(ev->event, RDMA_CM_EVENT_CONNECT_REQUEST, "got %s", rdma_event_str(ev->event));
	cr_assert_eq(ev->listen_id, l);
	cr_assert_eq(ev->param.conn.private_data_len, 56, "a REQ's private data as IB's: 56 bytes");
	cr_assert_str_eq(ev->param.conn.private_data, pdata);
	cr_assert_eq(ev->param.conn.responder_resources, 1);
	s = ev->id;
	cr_assert_neq(s, l);
	cr_assert_not_null(s->verbs);
	rdma_ack_cm_event(ev);
	cr_assert_eq(rdma_create_qp(s, NULL, &qa), 0, "rdma_create_qp: %s", strerror(errno));
	return s;
}

static void
accept_with(struct rdma_cm_id *s, const char *pdata)
{
	struct rdma_conn_param p = { .private_data = pdata,
				     .private_data_len = (uint8_t)(strlen(pdata) + 1),
				     .initiator_depth = 1, .responder_resources = 1, .rnr_retry_count = 7 };

	cr_assert_eq(rdma_accept(s, &p), 0, "rdma_accept: %s", strerror(errno));
}

static void
established_with(struct rdma_event_channel *ch, const char *pdata)
{
	struct rdma_cm_event *ev = next_event(ch);

	cr_assert_not_null(ev, "no ESTABLISHED");
	cr_assert_eq(ev->event, RDMA_CM_EVENT_ESTABLISHED, "got %s (status %d)",
		     rdma_event_str(ev->event), ev->status);
	cr_assert_eq(ev->param.conn.private_data_len, 196, "a REP's private data: 196 bytes");
	cr_assert_str_eq(ev->param.conn.private_data, pdata);
	rdma_ack_cm_event(ev);
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

/* A SEND from @p a to @p b: the QPs are each other's peers. */
static void
send_between(struct rdma_cm_id *a, struct rdma_cm_id *b, const char *msg)
{
	char src[64] = { 0 }, dst[64] = { 0 };
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
	cr_assert_eq(ibv_post_recv(b->qp, &rw, &brw), 0);
	cr_assert_eq(ibv_post_send(a->qp, &sw, &bsw), 0);
	cr_assert_eq(poll_one(a->send_cq, &wc), 1, "no send completion");
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "send: %s", ibv_wc_status_str(wc.status));
	cr_assert_eq(poll_one(b->recv_cq, &wc), 1, "no receive completion");
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "recv: %s", ibv_wc_status_str(wc.status));
	cr_assert_str_eq(dst, msg);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
}

Test(rdmacm, channel_fd_readable_only_with_an_event)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst = sin_of("127.0.0.1", 9);
	struct pollfd p;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	cr_assert_not_null(ch, "rdma_create_event_channel: %s", strerror(errno));
	p = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 0), 0, "an empty channel is not readable");
	cr_assert_eq(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	cr_assert_eq(rdma_get_cm_event(ch, &ev), -1);
	cr_assert_eq(errno, EAGAIN, "non-blocking and empty: EAGAIN, not %s", strerror(errno));
	cr_assert_eq(rdma_create_id(ch, &id, (void *)0x1234, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 100), 0);
	cr_assert_eq(poll(&p, 1, WAIT_MS), 1, "an event waits: readable");
	cr_assert_eq(rdma_get_cm_event(ch, &ev), 0);
	cr_assert_eq(ev->event, RDMA_CM_EVENT_ADDR_RESOLVED);
	cr_assert_eq(ev->id, id);
	cr_assert_eq(ev->id->context, (void *)0x1234);
	cr_assert_not_null(id->verbs, "resolved: id->verbs is ORDK's device");
	cr_assert_eq(poll(&p, 1, 0), 0, "taken: not readable any more");
	cr_assert_eq(rdma_ack_cm_event(ev), 0);
	cr_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_REJECTED), "RDMA_CM_EVENT_REJECTED");
	cr_assert_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}

/*
 * rdma_migrate_id() as rdma-core's: a synchronous id (no channel, as
 * libfabric's endpoints resolve their address) moved to a channel reports its
 * next events there; NULL makes an id synchronous; a synchronous id cannot be
 * made synchronous again.
 */
Test(rdmacm, migrate_between_synchronous_and_a_channel)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst = sin_of("127.0.0.1", 9);
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_id *id;

	cr_assert_eq(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_migrate_id(id, NULL), -1, "already synchronous");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 100), 0,
		     "synchronous: returns resolved");
	cr_assert_eq(rdma_migrate_id(id, ch), 0, "rdma_migrate_id: %s", strerror(errno));
	cr_assert_eq(id->channel, ch);
	cr_assert_eq(rdma_resolve_route(id, 100), 0);
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	cr_assert_eq(poll(&p, 1, 0), 0, "one event, taken");
	cr_assert_eq(rdma_destroy_id(id), 0);
	/* the other way: an id of the channel made synchronous, nothing left on the channel */
	cr_assert_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_migrate_id(id, NULL), 0, "rdma_migrate_id(NULL): %s", strerror(errno));
	cr_assert_neq(id->channel, ch);
	cr_assert_eq(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 100), 0);
	cr_assert_eq(poll(&p, 1, 0), 0, "a synchronous id's events are its calls'");
	cr_assert_eq(rdma_destroy_id(id), 0);
	/* libfabric's passive endpoint: bound without a channel, moved to its EQ's, then listening */
	struct sockaddr_in any = sin_of("0.0.0.0", 0);

	cr_assert_eq(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_bind_addr(id, (struct sockaddr *)&any), 0);
	cr_assert_eq(rdma_migrate_id(id, ch), 0);
	cr_assert_eq(rdma_listen(id, 4), 0, "a migrated bound id listens: %s", strerror(errno));
	cr_assert_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}

/* rdma_listen() on an id never bound listens on every address, a port chosen, as the kernel's */
Test(rdmacm, listen_without_bind_binds_any)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;

	cr_assert_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_listen(id, 4), 0, "rdma_listen: %s", strerror(errno));
	cr_assert_neq(rdma_get_src_port(id), 0, "a port was chosen");
	cr_assert_not_null(id->verbs);
	cr_assert_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}

static void *
resolve_later(void *arg)
{
	struct rdma_cm_id *id = arg;
	struct sockaddr_in dst = sin_of("127.0.0.1", 9);

	usleep(100 * 1000); /* only so that the main thread is inside the call first, not a bound */
	rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 100);
	return NULL;
}

Test(rdmacm, blocking_get_cm_event_waits)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	pthread_t t;

	cr_assert_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(pthread_create(&t, NULL, resolve_later, id), 0);
	cr_assert_eq(rdma_get_cm_event(ch, &ev), 0, "a blocking channel waits for the event");
	cr_assert_eq(ev->event, RDMA_CM_EVENT_ADDR_RESOLVED);
	rdma_ack_cm_event(ev);
	pthread_join(t, NULL);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm, connect_accept_send_disconnect)
{
	struct rdma_event_channel *sch = rdma_create_event_channel(), *cch = rdma_create_event_channel();
	struct rdma_cm_id *l, *c[3], *s[3];
	uint64_t est = counter("established");
	uint16_t port = listener(sch, &l);

	/* three connections to one listener, each with its own private data both ways */
	for (int i = 0; i < 3; i++) {
		char req[16], rep[16];

		snprintf(req, sizeof(req), "req%d", i);
		snprintf(rep, sizeof(rep), "rep%d", i);
		c[i] = client(cch, port);
		connect_with(c[i], req);
		s[i] = request(sch, l, req);
		accept_with(s[i], rep);
		established_with(cch, rep);
		expect(sch, RDMA_CM_EVENT_ESTABLISHED, 0);
		cr_assert_eq(s[i]->qp->qp_num != c[i]->qp->qp_num, 1);
	}
	cr_assert_eq(counter("established"), est + 6);
	for (int i = 0; i < 3; i++) {
		send_between(c[i], s[i], "ping over rdma_cm");
		send_between(s[i], c[i], "pong");
	}
	/* the client ends one: DISCONNECTED both sides; the server another */
	cr_assert_eq(rdma_disconnect(c[0]), 0);
	expect(cch, RDMA_CM_EVENT_DISCONNECTED, 0);
	expect(sch, RDMA_CM_EVENT_DISCONNECTED, 0);
	cr_assert_eq(rdma_disconnect(s[1]), 0);
	expect(sch, RDMA_CM_EVENT_DISCONNECTED, 0);
	expect(cch, RDMA_CM_EVENT_DISCONNECTED, 0);
	/* a peer that goes without a word: its connection is DISCONNECTED too */
	rdma_destroy_qp(s[2]);
	rdma_destroy_id(s[2]);
	expect(cch, RDMA_CM_EVENT_DISCONNECTED, 0);
	for (int i = 0; i < 3; i++) {
		rdma_destroy_qp(c[i]);
		rdma_destroy_id(c[i]);
		if (i < 2) {
			rdma_destroy_qp(s[i]);
			rdma_destroy_id(s[i]);
		}
	}
	rdma_destroy_id(l);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

Test(rdmacm, reject_with_reason_and_private_data)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *l, *c, *s;
	struct rdma_cm_event *ev;
	uint16_t port = listener(ch, &l);

	c = client(ch, port);
	connect_with(c, "let me in");
	s = request(ch, l, "let me in");
	cr_assert_eq(rdma_reject(s, "full", 5), 0);
	ev = next_event(ch);
	cr_assert_not_null(ev);
	cr_assert_eq(ev->event, RDMA_CM_EVENT_REJECTED, "got %s", rdma_event_str(ev->event));
	cr_assert_eq(ev->id, c);
	cr_assert_eq(ev->status, 28, "IB's consumer-defined reject, as the kernel reports it");
	cr_assert_str_eq(ev->param.conn.private_data, "full");
	rdma_ack_cm_event(ev);
	destroy_pair(s, c);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm, nobody_listening_is_rejected_and_counted)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *l, *c;
	uint64_t before = counter("no_listener");
	uint16_t port = listener(ch, &l);

	rdma_destroy_id(l); /* a port that was just free: nobody listens there now */
	c = client(ch, port);
	connect_with(c, "anyone?");
	expect(ch, RDMA_CM_EVENT_REJECTED, 8); /* IB's invalid service ID */
	cr_assert_eq(counter("no_listener"), before + 1);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_event_channel(ch);
}

/*
 * perftest -R's client connects its data QPs while its server is between two
 * listeners on the port (~0.7 ms on bluesim): a refused connect is tried
 * again for ORDK_RDMACM_REFUSED_MS (default 1 s) before it is REJECTED.
 */
Test(rdmacm, a_listener_that_comes_late_is_found)
{
	struct rdma_event_channel *ch = rdma_create_event_channel(), *sch = rdma_create_event_channel();
	struct rdma_cm_id *l, *c, *s;
	uint64_t retries = counter("refused_retry"), none = counter("no_listener");
	uint16_t port = listener(sch, &l);
	struct sockaddr_in at = sin_of("0.0.0.0", port);

	rdma_destroy_id(l); /* nobody listens on the port now */
	c = client(ch, port);
	connect_with(c, "early");
	usleep(50 * 1000); /* the listener comes 50 ms after the connect: the delay under test */
	cr_assert_eq(rdma_create_id(sch, &l, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_bind_addr(l, (struct sockaddr *)&at), 0, "bind: %s", strerror(errno));
	cr_assert_eq(rdma_listen(l, 8), 0);
	s = request(sch, l, "early");
	accept_with(s, "late");
	established_with(ch, "late");
	expect(sch, RDMA_CM_EVENT_ESTABLISHED, 0);
	cr_assert_gt(counter("refused_retry"), retries, "the refused connects were tried again");
	cr_assert_eq(counter("no_listener"), none, "and not taken for nobody listening");
	destroy_pair(s, c);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
	rdma_destroy_event_channel(sch);
}

/* A TCP connection to 127.0.0.1:@p port, as a stranger. */
static int
raw_connect(uint16_t port)
{
	struct sockaddr_in a = sin_of("127.0.0.1", port);
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 }; /* its reads fail rather than hang */
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_geq(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0, "connect: %s", strerror(errno));
	return fd;
}

/* Wait for @p name to reach @p want (the listener's thread counts): false after WAIT_MS. */
static bool
counted(const char *name, uint64_t want)
{
	for (int i = 0; i < WAIT_MS; i++) {
		if (counter(name) >= want)
			return true;
		usleep(1000);
	}
	return false;
}

/* The listener still serves a real client, and nothing reached the application meanwhile. */
static void
still_serves(struct rdma_event_channel *ch, struct rdma_cm_id *l, uint16_t port)
{
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct rdma_cm_id *c = client(cch, port), *s;

	connect_with(c, "after");
	s = request(ch, l, "after"); /* the next event is this REQ: the garbage made none */
	accept_with(s, "ok");
	established_with(cch, "ok");
	expect(ch, RDMA_CM_EVENT_ESTABLISHED, 0);
	destroy_pair(s, c);
	rdma_destroy_event_channel(cch);
}

Test(rdmacm, garbage_on_the_port_is_counted_and_dropped)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *l;
	uint64_t before = counter("garbage");
	uint16_t port = listener(ch, &l);
	char junk[256], buf[16];
	int fd;

	memset(junk, 'x', sizeof(junk));
	fd = raw_connect(port); /* a whole message's worth */
	cr_assert_eq(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	cr_assert(counted("garbage", before + 1), "256 bytes of junk not counted");
	cr_assert_eq(read(fd, buf, sizeof(buf)), 0, "the listener closes a stranger's connection");
	close(fd);
	fd = raw_connect(port); /* a few bytes, then gone */
	cr_assert_eq(write(fd, "GET / HTTP/1.0\r\n", 16), 16);
	close(fd);
	cr_assert(counted("garbage", before + 2), "a part of a message, then EOF: not counted");
	still_serves(ch, l, port);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

/* A REQ as ORDK's exchange writes it (lib/rdmacm/rcm_conn.c), naming QP @p qpn. */
static void
forge_req(uint8_t *m, uint32_t qpn)
{
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 9 };

	memset(m, 0, 256);
	memcpy(m, "ORDKRCM1", 8);
	m[8] = 1;	     /* REQ */
	m[11] = IBV_MTU_1024;
	m[16] = (uint8_t)(qpn >> 24);
	m[17] = (uint8_t)(qpn >> 16);
	m[18] = (uint8_t)(qpn >> 8);
	m[19] = (uint8_t)qpn;
	memcpy(m + 24, gid, 16);
}

Test(rdmacm, req_naming_no_qp_is_rejected)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	static const uint32_t bad[] = { 0, 1, 0x1000000, 0xffffffff };
	struct rdma_cm_id *l;
	uint64_t before = counter("bad_req");
	uint16_t port = listener(ch, &l);

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t m[256], r[256];
		size_t got = 0;
		int fd = raw_connect(port);

		forge_req(m, bad[i]);
		cr_assert_eq(write(fd, m, sizeof(m)), (ssize_t)sizeof(m));
		while (got < sizeof(r)) {
			ssize_t k = read(fd, r + got, sizeof(r) - got);

			cr_assert_gt(k, 0, "QPN 0x%x: no REJ before the connection closed", bad[i]);
			got += (size_t)k;
		}
		cr_assert_eq(r[8], 4, "QPN 0x%x: answered with message %u, not REJ", bad[i], r[8]);
		cr_assert_eq(r[9], 1, "REJ reason %u, want 1 (no QP)", r[9]);
		close(fd);
	}
	cr_assert_eq(counter("bad_req"), before + 4);
	still_serves(ch, l, port);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm, client_dies_before_rtu)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *s;
	uint64_t before = counter("reset");
	uint16_t port = listener(ch, &l);
	uint8_t m[256], r[256];
	int fd = raw_connect(port);

	forge_req(m, 0x100); /* a REQ that passes: a stranger's QP 0x100 at 10.0.0.9 */
	cr_assert_eq(write(fd, m, sizeof(m)), (ssize_t)sizeof(m));
	ev = next_event(ch);
	cr_assert_not_null(ev);
	cr_assert_eq(ev->event, RDMA_CM_EVENT_CONNECT_REQUEST, "got %s", rdma_event_str(ev->event));
	cr_assert_eq(ev->param.conn.qp_num, 0x100);
	s = ev->id;
	rdma_ack_cm_event(ev);
	cr_assert_eq(rdma_create_qp(s, NULL, &qa), 0);
	cr_assert_eq(rdma_accept(s, NULL), 0, "accept: %s", strerror(errno));
	cr_assert_eq(recv(fd, r, sizeof(r), MSG_WAITALL), (ssize_t)sizeof(r));
	cr_assert_eq(r[8], 2, "answered with message %u, not REP", r[8]);
	close(fd); /* no RTU: the client is gone */
	expect(ch, RDMA_CM_EVENT_CONNECT_ERROR, -ECONNRESET);
	cr_assert_eq(counter("reset"), before + 1);
	rdma_destroy_qp(s);
	rdma_destroy_id(s);
	still_serves(ch, l, port);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm, silent_stranger_is_dropped)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *l;
	uint64_t before = counter("timeout");
	uint16_t port;
	char b;
	int fd;

	setenv("ORDK_RDMACM_TIMEOUT_MS", "300", 1); /* the bound on a REQ's coming, short here */
	ch = rdma_create_event_channel();
	port = listener(ch, &l);
	fd = raw_connect(port); /* connects, says nothing */
	cr_assert_eq(read(fd, &b, 1), 0, "the listener closes a connection that sends no REQ");
	cr_assert_eq(counter("timeout"), before + 1);
	close(fd);
	still_serves(ch, l, port);
	rdma_destroy_id(l);
	rdma_destroy_event_channel(ch);
}

/* A TCP listener of the test's own, standing in for a broken peer. @return its fd; *port set. */
static int
raw_listener(uint16_t *port)
{
	struct sockaddr_in a = sin_of("127.0.0.1", 0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fd, 4), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Connect a client to a broken peer that takes the REQ, then does @p what. */
static void
broken_peer(const char *what, enum rdma_cm_event_type want, int status, const char *count)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint64_t before = counter(count);
	struct rdma_cm_id *c;
	uint8_t req[256];
	uint16_t port;
	int lfd = raw_listener(&port), fd;

	c = client(ch, port);
	connect_with(c, "hello");
	fd = accept(lfd, NULL, NULL);
	cr_assert_geq(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_sec = WAIT_MS / 1000 },
		   sizeof(struct timeval));
	cr_assert_eq(recv(fd, req, sizeof(req), MSG_WAITALL), (ssize_t)sizeof(req));
	cr_assert_eq(memcmp(req, "ORDKRCM1", 8), 0);
	if (strcmp(what, "close") == 0) {
		close(fd);
		fd = -1;
	} else if (strcmp(what, "garbage") == 0) {
		memset(req, 0x5a, sizeof(req));
		cr_assert_eq(write(fd, req, sizeof(req)), (ssize_t)sizeof(req));
	} /* "silent": nothing */
	expect(ch, want, status);
	cr_assert_eq(counter(count), before + 1, "%s not counted", count);
	if (fd >= 0)
		close(fd);
	close(lfd);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm, peer_dies_mid_handshake)
{
	broken_peer("close", RDMA_CM_EVENT_CONNECT_ERROR, -ECONNRESET, "reset");
}

Test(rdmacm, peer_answers_garbage)
{
	broken_peer("garbage", RDMA_CM_EVENT_CONNECT_ERROR, -EPROTO, "garbage");
}

Test(rdmacm, silent_peer_is_unreachable)
{
	/* the handshake's bound, short here; the event is waited for, not timed */
	setenv("ORDK_RDMACM_TIMEOUT_MS", "300", 1);
	broken_peer("silent", RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, "timeout");
}

Test(rdmacm, refused_calls_say_so)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in mc = sin_of("239.1.1.1", 0);
	struct rdma_cm_id *id;
	uint64_t before = counter("refused_call");

	cr_assert_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	cr_assert_eq(rdma_join_multicast(id, (struct sockaddr *)&mc, NULL), -1);
	cr_assert_eq(errno, EOPNOTSUPP);
	cr_assert_eq(rsocket(AF_INET, SOCK_STREAM, 0), -1);
	cr_assert_eq(errno, ENOSYS);
	cr_assert_eq(counter("refused_call"), before + 2);
	cr_assert_eq(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &(uint8_t){ 0 }, 1), 0,
		     "TOS: accepted, ignored");
	cr_assert_eq(rdma_create_id(ch, &(struct rdma_cm_id *){ NULL }, NULL, RDMA_PS_IPOIB), -1);
	cr_assert_eq(errno, EOPNOTSUPP, "IPoIB port space refused (UDP's: test_rdmacm_ud.c)");
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

Test(rdmacm, getaddrinfo_passive_and_active)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP }, *res;
	const struct sockaddr_in *a;

	cr_assert_eq(rdma_getaddrinfo(NULL, "7471", &hints, &res), 0);
	cr_assert_not_null(res->ai_src_addr);
	a = (const struct sockaddr_in *)res->ai_src_addr;
	cr_assert_eq(ntohs(a->sin_port), 7471);
	cr_assert_eq(a->sin_addr.s_addr, htonl(INADDR_ANY));
	rdma_freeaddrinfo(res);
	hints.ai_flags = 0;
	cr_assert_eq(rdma_getaddrinfo("10.0.0.2", "7471", &hints, &res), 0);
	a = (const struct sockaddr_in *)res->ai_dst_addr;
	cr_assert_eq(a->sin_addr.s_addr, inet_addr("10.0.0.2"));
	cr_assert_eq(res->ai_qp_type, IBV_QPT_RC);
	rdma_freeaddrinfo(res);
}

/* No node and no service: the hints' addresses, as rdma-core (libfabric names a peer so). */
Test(rdmacm, getaddrinfo_from_hints_alone)
{
	struct sockaddr_in dst = sin_of("10.0.0.2", 7471), src = sin_of("10.0.0.1", 0);
	struct rdma_addrinfo hints = { .ai_family = AF_INET, .ai_port_space = RDMA_PS_TCP,
				       .ai_dst_addr = (struct sockaddr *)&dst, .ai_dst_len = sizeof(dst),
				       .ai_src_addr = (struct sockaddr *)&src, .ai_src_len = sizeof(src) };
	struct rdma_addrinfo *res;

	cr_assert_eq(rdma_getaddrinfo(NULL, NULL, &hints, &res), 0, "hints alone: %s", strerror(errno));
	cr_assert_eq(res->ai_dst_len, sizeof(dst));
	cr_assert_eq(memcmp(res->ai_dst_addr, &dst, sizeof(dst)), 0);
	cr_assert_neq((void *)res->ai_dst_addr, (void *)&dst, "a copy, freed by rdma_freeaddrinfo");
	cr_assert_eq(memcmp(res->ai_src_addr, &src, sizeof(src)), 0);
	cr_assert_eq(res->ai_qp_type, IBV_QPT_RC);
	rdma_freeaddrinfo(res);
	cr_assert_eq(rdma_getaddrinfo(NULL, NULL, NULL, &res), -1);
	cr_assert_eq(errno, EINVAL, "nothing to resolve");
	hints.ai_dst_len = 100000;
	cr_assert_eq(rdma_getaddrinfo(NULL, NULL, &hints, &res), -1);
	cr_assert_eq(errno, EINVAL, "an address longer than any");
}

/*
 * The synchronous API: rdma_create_ep, rdma_get_request, rdma_verbs.h's inline
 * helpers. As rdma-core's, a synchronous call leaves the event it waited for as
 * id->event (the request's private data, the ESTABLISHED) until the id's next
 * call; the server closes its side as soon as the message is in, and the
 * client's SEND still completes SUCCESS (its ACK is not lost to the server's
 * rdma_disconnect(), nor flushed by the DREQ: 1 run in 40 failed before).
 */
struct ep_server {
	struct rdma_cm_id *l;
	char got[32];
	char pdata[8];
	int rc;
};

static void *
ep_serve(void *arg)
{
	struct ep_server *sv = arg;
	struct rdma_cm_id *s;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	sv->rc = -1;
	if (rdma_get_request(sv->l, &s) != 0)
		return NULL;
	if (s->event == NULL || s->event->event != RDMA_CM_EVENT_CONNECT_REQUEST ||
	    s->event->param.conn.private_data_len < sizeof(sv->pdata))
		return NULL;
	memcpy(sv->pdata, s->event->param.conn.private_data, sizeof(sv->pdata));
	mr = rdma_reg_msgs(s, sv->got, sizeof(sv->got));
	if (mr == NULL || rdma_post_recv(s, NULL, sv->got, sizeof(sv->got), mr) != 0 ||
	    rdma_accept(s, NULL) != 0 || rdma_get_recv_comp(s, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return NULL;
	rdma_dereg_mr(mr);
	rdma_disconnect(s);
	rdma_destroy_ep(s);
	sv->rc = 0;
	return NULL;
}

Test(rdmacm, synchronous_endpoints)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ep_server sv = { 0 };
	char port[8], msg[32] = "sync hello";
	struct rdma_cm_id *c;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	pthread_t t;

	cr_assert_eq(rdma_getaddrinfo(NULL, "0", &hints, &res), 0);
	cr_assert_eq(rdma_create_ep(&sv.l, res, NULL, &qa), 0, "passive ep: %s", strerror(errno));
	rdma_freeaddrinfo(res);
	cr_assert_eq(rdma_listen(sv.l, 4), 0);
	snprintf(port, sizeof(port), "%u", ntohs(rdma_get_src_port(sv.l)));
	cr_assert_eq(pthread_create(&t, NULL, ep_serve, &sv), 0);
	hints.ai_flags = 0;
	cr_assert_eq(rdma_getaddrinfo("127.0.0.1", port, &hints, &res), 0);
	cr_assert_eq(rdma_create_ep(&c, res, NULL, &qa), 0, "active ep: %s", strerror(errno));
	rdma_freeaddrinfo(res);
	cr_assert_not_null(c->qp);
	cr_assert_eq(rdma_connect(c, &(struct rdma_conn_param){ .private_data = "ep-req",
							  .private_data_len = 7 }),
		     0, "synchronous connect: %s", strerror(errno));
	cr_assert_not_null(c->event, "the synchronous connect's ESTABLISHED stays as id->event");
	cr_assert_eq(c->event->event, RDMA_CM_EVENT_ESTABLISHED);
	mr = rdma_reg_msgs(c, msg, sizeof(msg));
	cr_assert_not_null(mr);
	cr_assert_eq(rdma_post_send(c, NULL, msg, sizeof(msg), mr, 0), 0);
	cr_assert_eq(rdma_get_send_comp(c, &wc), 1);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "send: %s (vendor 0x%x)", ibv_wc_status_str(wc.status), wc.vendor_err);
	pthread_join(t, NULL);
	cr_assert_eq(sv.rc, 0, "the server's side failed");
	cr_assert_str_eq(sv.got, "sync hello");
	cr_assert_str_eq(sv.pdata, "ep-req", "the request's private data, read from id->event");
	rdma_dereg_mr(mr);
	rdma_disconnect(c);
	rdma_destroy_ep(c);
	rdma_destroy_ep(sv.l);
}
