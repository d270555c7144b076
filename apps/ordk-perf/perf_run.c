/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's run (perf_run()): the frame pool and the port, the devices,
 * the TCP exchange of the control QPs' attributes, then the server's loop,
 * the client's session, or both in one process (--loopback).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app_common.h"

#include "perf_engine.h"

static int
connect_ctrl(struct side *s)
{
	if (ordk_cm_connect_qp(s->cqp, &s->me, &s->peer, ORDK_MTU_4096, ORDK_ACCESS_LOCAL_WRITE) != 0) {
		fprintf(stderr, "ordk-perf: cannot connect the control QP\n");
		return -1;
	}
	for (uint32_t i = 0; i < CTRL_RECVS; i++)
		perf_ctrl_post_recv(s, i);
	return 0;
}

static int
run_server(struct ctx *x)
{
	struct side *s = &x->s;

	s->last_work = rte_get_tsc_cycles();
	while (!s->failed && !(s->quit && s->bye_done)) {
		perf_server_step(x, s);
		if (rte_get_tsc_cycles() - s->last_work > (uint64_t)(IDLE_S * 4 * (double)x->hz) &&
		    !s->in_round) {
			fprintf(stderr, "ordk-perf: server: the client went quiet\n");
			s->failed = true;
		}
		if (s->in_round && x->o->duration == 0 &&
		    rte_get_tsc_cycles() - s->last_work > (uint64_t)(600 * (double)x->hz)) {
			fprintf(stderr, "ordk-perf: server: round without progress for 600 s\n");
			s->failed = true;
		}
	}
	ordk_env_linger_server(s->dev, 1.0);
	return s->failed ? 2 : x->refused ? 1 : 0;
}

static int
run_loopback(struct ctx *x)
{
	const struct perf_opts *o = x->o;
	char args[512];
	uint16_t p[2];
	int rc;

	if (strncmp(o->devargs, "bluesim", 7) != 0) {
		fprintf(stderr, "ordk-perf: --loopback runs two bluesim devices; -d %s is not one\n",
			o->devargs);
		return 1;
	}
	if (ordk_env_ring_pair("perf_lb", x->mp, p) != 0) {
		fprintf(stderr, "ordk-perf: cannot make the net_ring pair\n");
		return 1;
	}
	app_bluesim_args(args, sizeof(args), o->devargs, p[0], 1);
	if (perf_side_open(&x->c, args, false) != 0)
		return 1;
	app_bluesim_args(args, sizeof(args), o->devargs, p[1], 2);
	if (perf_side_open(&x->s, args, true) != 0)
		return 1;
	x->c.peer = x->s.me;
	x->s.peer = x->c.me;
	if (connect_ctrl(&x->c) != 0 || connect_ctrl(&x->s) != 0)
		return 1;
	rc = perf_client_main(x);
	if (rc == 0 && x->s.failed)
		rc = 2;
	return rc;
}

/* The port under the device: the server waits for good, the client a bounded time. */
static int
start_port(struct ctx *x)
{
	const struct perf_opts *o = x->o;
	double t0 = ordk_env_now_s();
	int rc = app_start_port_wait(o->devargs, x->mp, o->host != NULL, o->host ? 0 : -1);

	if (rc == -ECONNREFUSED) { /* the client came first: wait for the server */
		fprintf(stderr, "ordk-perf: waiting for the server at %s:%u (up to %u s)\n",
			o->host, o->port, o->peer_wait);
		rc = app_start_port_wait(o->devargs, x->mp, true,
					 o->peer_wait - (ordk_env_now_s() - t0));
	}
	if (rc == 0)
		return 0;
	if (rc == -ENODEV && o->memif_sock != NULL)
		fprintf(stderr, "ordk-perf: port %u in use (net_memif socket %s is taken), pick another "
				"with -p\n", o->port, o->memif_sock);
	else if (rc == -ENODEV)
		fprintf(stderr, "ordk-perf: -d %s: no such ethdev port (give one with EAL --vdev or "
				"-a)\n", o->devargs);
	else if (rc == -ECONNREFUSED || rc == -ETIMEDOUT)
		fprintf(stderr, "Couldn't connect to %s:%u\nordk-perf: no ordk-perf server answered "
				"within %u s (start one with the same -p)\n", o->host, o->port,
			o->peer_wait);
	else
		fprintf(stderr, "ordk-perf: cannot start the ethdev port of -d %s\n", o->devargs);
	return 1;
}

/* The TCP exchange of the control QPs' attributes. @return 0 or an exit status. */
static int
exchange(struct ctx *x, double t0)
{
	const struct perf_opts *o = x->o;
	double left = o->peer_wait - (ordk_env_now_s() - t0);
	int wait_ms = (int)((left > 5 ? left : 5) * 1000);
	int rc = ordk_cm_exchange(o->host, o->port, &x->me->me, &x->me->peer,
				  o->host ? wait_ms : INT32_MAX);

	if (rc == 0)
		return 0;
	if (o->host != NULL && rc == -ETIMEDOUT)
		fprintf(stderr, "Couldn't connect to %s:%u: no answer within %d s\n", o->host,
			o->port, (wait_ms + 999) / 1000);
	else if (o->host != NULL)
		fprintf(stderr, "Couldn't connect to %s:%u\nordk-perf: %s\n", o->host, o->port,
			strerror(-rc));
	else if (rc == -EADDRINUSE)
		fprintf(stderr, "ordk-perf: TCP port %u in use, pick another with -p\n", o->port);
	else
		fprintf(stderr, "ordk-perf: the attribute exchange on port %u failed: %s\n", o->port,
			strerror(-rc));
	return 1;
}

/* --histogram: the file, truncated, with its first line. @return 0 or -1 (message printed). */
static int
hist_open(struct ctx *x)
{
	const char *path = x->o->hist_file;

	if (path == NULL)
		return 0;
	x->hist = fopen(path, "w");
	if (x->hist == NULL || fprintf(x->hist, PERF_HIST_HEAD "\n") < 0) {
		fprintf(stderr, "ordk-perf: --histogram %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* @return @p rc, or 2 when the histogram file could not be written out. */
static int
hist_close(struct ctx *x, int rc)
{
	if (x->hist == NULL)
		return rc;
	if (fclose(x->hist) != 0) {
		fprintf(stderr, "ordk-perf: --histogram %s: %s\n", x->o->hist_file, strerror(errno));
		rc = rc ? rc : 2;
	}
	x->hist = NULL;
	return rc;
}

int
perf_run(const struct perf_opts *o)
{
	static struct ctx x; /* large: not on the stack */
	char args[512];
	double t0 = ordk_env_now_s();
	int rc = 1;

	memset(&x, 0, sizeof(x));
	x.o = o;
	x.so = *o;
	x.hz = rte_get_tsc_hz();
	x.progress = o->progress == 1 || (o->progress == -1 && isatty(STDERR_FILENO));
	if (hist_open(&x) != 0) /* before the peer is kept waiting */
		return 1;
	x.mp = ordk_env_frame_pool("perf_pool", o->loopback ? 16383 : 8191);
	if (x.mp == NULL) {
		fprintf(stderr, "ordk-perf: no memory for mbufs (more -m, or hugepages)\n");
		return 1;
	}
	if (o->loopback) {
		rc = run_loopback(&x);
		goto out;
	}
	if (o->host == NULL && o->output == PERF_OUT_FULL) { /* perftest's server says so at once */
		printf("\n************************************\n"
		       "* Waiting for client to connect... *\n"
		       "************************************\n");
		fflush(stdout);
	}
	if (start_port(&x) != 0)
		goto out;
	app_bluesim_args(args, sizeof(args), o->devargs, -1, o->host ? 1 : 2);
	if (strncmp(o->devargs, "bluesim", 7) != 0)
		snprintf(args, sizeof(args), "%s", o->devargs);
	x.me = o->host ? &x.c : &x.s;
	if (perf_side_open(x.me, args, o->host == NULL) != 0 || exchange(&x, t0) != 0 ||
	    connect_ctrl(x.me) != 0)
		goto out;
	if (o->host == NULL) {
		rc = run_server(&x);
		goto out;
	}
	rc = perf_client_main(&x);
	{
		struct perf_msg m = { .type = MSG_QUIT };

		if (perf_client_call(&x, &m, MSG_BYE) != 0 && rc == 0)
			rc = 2;
	}
	ordk_env_linger(x.c.dev, 0.3);
out:
	if (o->stats) {
		perf_side_stats(&x.c, "client");
		perf_side_stats(&x.s, "server");
	}
	perf_side_close(&x.c);
	perf_side_close(&x.s);
	ordk_env_close_ports();
	return hist_close(&x, rc);
}
