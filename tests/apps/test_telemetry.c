/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The /ordk/ telemetry endpoints in one process (fast tier): two bluesim
 * devices with connected QPs and traffic behind them, EAL's telemetry on,
 * and ordk-stat's client (apps/ordk-stat/stat_client.c) on a thread of its
 * own, connected to this process's socket, while this thread polls the
 * devices as an application's lcore does. Every endpoint answers with its
 * documented keys (doc/guides/tools/operations.md); the counters equal
 * ordk_dev_stats() / ordk_qp_stats(); a device nobody polls answers an
 * error, bounded; wrong parameters are errors, not crashes.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "func_common.h"
#include "ordk_verbs.h"
#include "sim_host.h"
#include "stat_client.h"

#define MAX_CMDS 24

struct client {
	const char *cmd[MAX_CMDS];
	json_t *reply[MAX_CMDS];
	char err[MAX_CMDS][256];
	unsigned int n;
	int done;
	char conn_err[256];
};

static struct func_pair p;

static void
setup(void)
{
	test_eal_telemetry = true;
	func_pair_open(&p, 1 << 20, NULL);
	func_pair_qps(&p, ORDK_MTU_1024, 64);
}

static void
teardown(void)
{
	func_pair_close(&p);
}

TestSuite(telemetry, .init = setup, .fini = teardown, .timeout = 50);

static void *
client_run(void *arg)
{
	struct client *c = arg;
	struct stat_conn conn;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", rte_eal_get_runtime_dir(), STAT_SOCKET_NAME);
	if (stat_connect(&conn, path, c->conn_err, sizeof(c->conn_err)) == 0) {
		for (unsigned int i = 0; i < c->n; i++)
			c->reply[i] = stat_query(&conn, c->cmd[i], c->err[i], sizeof(c->err[i]));
		stat_close(&conn);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The client's commands, answered while this thread polls both devices (or not). */
static void
run(struct client *c, bool poll)
{
	pthread_t th;

	cr_assert_eq(pthread_create(&th, NULL, client_run, c), 0);
	while (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE))
		if (poll) {
			ordk_dev_poll(p.s[0].dev, 64);
			ordk_dev_poll(p.s[1].dev, 64);
		} else {
			usleep(1000);
		}
	pthread_join(th, NULL);
	cr_assert_str_empty(c->conn_err, "%s", c->conn_err);
}

static json_t *
reply(struct client *c, unsigned int i)
{
	cr_assert_not_null(c->reply[i], "%s: %s", c->cmd[i], c->err[i]);
	return c->reply[i];
}

static void
client_free(struct client *c)
{
	for (unsigned int i = 0; i < c->n; i++)
		json_decref(c->reply[i]);
}

/* 20 WRITEs from side 0 to side 1, completed; then idle until nothing moves. */
static void
traffic(void)
{
	struct ordk_send_wr wr = { .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc[20];

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, 5000, p.s[0].mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)p.s[1].buf;
	wr.rdma.rkey = p.s[1].mr->rkey;
	for (int i = 0; i < 20; i++)
		cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1);
	func_wait(&p, 0, wc, 20, 10);
	func_idle(&p, 0.2);
}

static void
assert_keys(const json_t *o, const char *what, const char *const *keys)
{
	cr_assert(json_is_object(o), "%s: not an object", what);
	cr_assert_null(json_object_get(o, "error"), "%s: %s", what,
		       json_string_value(json_object_get(o, "error")));
	for (; *keys != NULL; keys++)
		cr_assert_not_null(json_object_get(o, *keys), "%s: no key %s", what, *keys);
}

/* Every counter of @p st under ORDK's name and under mlx5's and rxe's, equal. */
static void
assert_stats(const json_t *o, const struct ordk_stats *st, const char *what)
{
	cr_assert(json_is_object(o), "%s: not an object", what);
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++) {
		const char *names[3] = { ordk_stats_name(i), ordk_stats_mlx5_name(i),
					 ordk_stats_rxe_name(i) };

		for (int k = 0; k < 3; k++) {
			json_t *v = names[k] != NULL ? json_object_get(o, names[k]) : NULL;

			if (names[k] == NULL)
				continue;
			cr_assert(json_is_integer(v), "%s: no %s", what, names[k]);
			cr_assert_eq((uint64_t)json_integer_value(v), ordk_stats_value(st, i),
				     "%s: %s %" JSON_INTEGER_FORMAT " against %" PRIu64, what, names[k],
				     json_integer_value(v), ordk_stats_value(st, i));
		}
	}
}

Test(telemetry, every_endpoint_answers_with_its_keys)
{
	static const char *const info_keys[] = { "name", "driver", "mac", "ip", "max_qp",
						 "max_qp_wr", "max_mr", "max_mr_size", "qps", "cqs",
						 "mrs", "pds", NULL };
	static const char *const qp_keys[] = {
		"dev", "qpn", "state", "dest_qpn", "dest_ip", "dest_mac", "path_mtu", "sq_psn",
		"rq_psn", "timeout", "retry_cnt", "rnr_retry", "max_send_wr", "max_recv_wr",
		"next_psn", "acked_psn", "expected_psn", "send_outstanding", "recv_posted",
		"reads_outstanding", "retries", "recv_adverts", "req_state", "comp_state",
		"hole_state", "probe_state", "active", "cc", NULL
	};
	static const char *const mr_keys[] = { "lkey", "rkey", "addr", "length", "access", "pd",
					       NULL };
	struct client c = { .n = 0 };
	char cmds[8][96];
	uint32_t qpn = ordk_qp_num(p.s[0].qp);
	const char *dev0 = p.s[0].attr.name, *dev1 = p.s[1].attr.name;
	json_t *v, *mrs, *mr;
	char key[16];

	traffic();
	snprintf(cmds[0], sizeof(cmds[0]), "/ordk/dev/info,%s", dev0);
	snprintf(cmds[1], sizeof(cmds[1]), "/ordk/dev/stats,%s", dev1);
	snprintf(cmds[2], sizeof(cmds[2]), "/ordk/qp/list,%s", dev0);
	if (ordk_qp_num(p.s[1].qp) != qpn) /* (numbers are per device: 1 in 256 alike) */
		snprintf(cmds[3], sizeof(cmds[3]), "/ordk/qp/info,%u", qpn); /* found on its device */
	else
		snprintf(cmds[3], sizeof(cmds[3]), "/ordk/qp/info,%s,%u", dev0, qpn);
	snprintf(cmds[4], sizeof(cmds[4]), "/ordk/qp/stats,%s,0x%x", dev0, qpn);
	snprintf(cmds[5], sizeof(cmds[5]), "/ordk/mr/list,%s", dev1);
	snprintf(cmds[6], sizeof(cmds[6]), "/ordk/sim/stats,%s", dev0);
	c.cmd[c.n++] = "/ordk/dev/list";
	for (int i = 0; i < 7; i++)
		c.cmd[c.n++] = cmds[i];
	run(&c, true);

	v = reply(&c, 0);
	cr_assert(json_is_array(v) && json_array_size(v) == 2);
	cr_assert_str_eq(json_string_value(json_array_get(v, 0)), dev0);
	cr_assert_str_eq(json_string_value(json_array_get(v, 1)), dev1);
	assert_keys(reply(&c, 1), "dev/info", info_keys);
	cr_assert_eq(json_integer_value(json_object_get(reply(&c, 1), "qps")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(reply(&c, 1), "ip")), "10.0.0.1");
	cr_assert_not_null(json_object_get(reply(&c, 2), "wr_posted"));
	v = json_object_get(reply(&c, 3), "qpns");
	cr_assert(json_is_array(v) && json_array_size(v) == 1, "qp/list");
	cr_assert_eq(json_integer_value(json_array_get(v, 0)), qpn);
	cr_assert_eq(json_integer_value(json_object_get(reply(&c, 3), "count")), 1);
	assert_keys(reply(&c, 4), "qp/info", qp_keys);
	cr_assert_str_eq(json_string_value(json_object_get(reply(&c, 4), "state")), "RTS");
	cr_assert_str_eq(json_string_value(json_object_get(reply(&c, 4), "dev")), dev0);
	cr_assert_eq(json_integer_value(json_object_get(reply(&c, 4), "next_psn")),
		     FUNC_QP_INFO(p.s[0].qp, next_psn));
	cr_assert_eq(json_integer_value(json_object_get(reply(&c, 4), "dest_qpn")),
		     ordk_qp_num(p.s[1].qp));
	cr_assert_not_null(json_object_get(json_object_get(reply(&c, 4), "cc"), "on"));
	cr_assert_geq(json_integer_value(json_object_get(reply(&c, 5), "wr_completed")), 20);
	mrs = json_object_get(reply(&c, 6), "mrs");
	snprintf(key, sizeof(key), "%u", p.s[1].mr->lkey);
	mr = json_object_get(mrs, key);
	assert_keys(mr, "mr/list", mr_keys);
	cr_assert_eq((size_t)json_integer_value(json_object_get(mr, "length")), p.s[1].len);
	cr_assert_eq((uintptr_t)json_integer_value(json_object_get(mr, "addr")),
		     (uintptr_t)p.s[1].buf);
	cr_assert_eq(json_integer_value(json_object_get(reply(&c, 7), "pmd_cmd_ok")),
		     (json_int_t)func_xstat(p.s[0].dev, "pmd_cmd_ok"));
	cr_assert_not_null(json_object_get(reply(&c, 7), "tx_packets"));
	client_free(&c);
}

Test(telemetry, counters_equal_ordk_dev_stats)
{
	struct ordk_stats d0[2], d1[2], q0, q1;
	struct client c = { .n = 0 };
	char cmds[4][96];

	traffic();
	cr_assert_eq(ordk_dev_stats(p.s[0].dev, &d0[0]), 0);
	cr_assert_eq(ordk_dev_stats(p.s[1].dev, &d1[0]), 0);
	cr_assert_eq(ordk_qp_stats(p.s[0].qp, &q0), 0);
	cr_assert_eq(ordk_qp_stats(p.s[1].qp, &q1), 0);
	for (int s = 0; s < 2; s++)
		snprintf(cmds[s], sizeof(cmds[s]), "/ordk/dev/stats,%s", p.s[s].attr.name);
	for (int s = 0; s < 2; s++)
		snprintf(cmds[2 + s], sizeof(cmds[2 + s]), "/ordk/qp/stats,%s,%u", p.s[s].attr.name,
			 ordk_qp_num(p.s[s].qp));
	for (int i = 0; i < 4; i++)
		c.cmd[c.n++] = cmds[i];
	run(&c, true);
	/* nothing moved meanwhile: telemetry read what the API reads */
	cr_assert_eq(ordk_dev_stats(p.s[0].dev, &d0[1]), 0);
	cr_assert_eq(ordk_dev_stats(p.s[1].dev, &d1[1]), 0);
	cr_assert_arr_eq(&d0[0], &d0[1], sizeof(d0[0]), "side 0 moved while idle");
	cr_assert_arr_eq(&d1[0], &d1[1], sizeof(d1[0]), "side 1 moved while idle");
	cr_assert_geq(d0[0].wr_completed, 20);
	assert_stats(reply(&c, 0), &d0[0], "dev/stats side 0");
	assert_stats(reply(&c, 1), &d1[0], "dev/stats side 1");
	assert_stats(reply(&c, 2), &q0, "qp/stats side 0");
	assert_stats(reply(&c, 3), &q1, "qp/stats side 1");
	client_free(&c);
}

Test(telemetry, a_device_nobody_polls_answers_an_error_in_time)
{
	struct client c = { .n = 0 };
	char cmds[2][96];
	double t0;
	json_t *v;

	snprintf(cmds[0], sizeof(cmds[0]), "/ordk/dev/stats,%s", p.s[0].attr.name);
	snprintf(cmds[1], sizeof(cmds[1]), "/ordk/dev/info,%s", p.s[1].attr.name);
	c.cmd[c.n++] = cmds[0];
	c.cmd[c.n++] = cmds[1];
	c.cmd[c.n++] = "/ordk/dev/list";
	t0 = test_now_s();
	run(&c, false);
	cr_assert_lt(test_now_s() - t0, 2.0, "two requests unanswered took %.2f s", test_now_s() - t0);
	cr_assert_not_null(strstr(json_string_value(json_object_get(reply(&c, 0), "error")), "poll"));
	/* what needs no answer is there, with the error */
	v = reply(&c, 1);
	cr_assert_str_eq(json_string_value(json_object_get(v, "name")), p.s[1].attr.name);
	cr_assert_eq(json_integer_value(json_object_get(v, "max_qp")), p.s[1].attr.max_qp);
	cr_assert_not_null(json_object_get(v, "error"));
	cr_assert_null(json_object_get(v, "qps"));
	cr_assert_eq(json_array_size(reply(&c, 2)), 2);
	client_free(&c);
	/* and the next request, polled, is answered: nothing was left pending */
	c = (struct client){ .n = 1, .cmd = { cmds[0] } };
	run(&c, true);
	cr_assert_not_null(json_object_get(reply(&c, 0), "wr_posted"));
	client_free(&c);
}

Test(telemetry, wrong_parameters_are_errors)
{
	static const char *const cmds[] = {
		"/ordk/dev/info",	     "/ordk/dev/info,nosuchdev", "/ordk/dev/stats,7",
		"/ordk/qp/info",	     "/ordk/qp/info,0x7fffff",	 "/ordk/qp/info,zz",
		"/ordk/qp/stats,99999999", "/ordk/qp/list,bluesim0,x", "/ordk/mr/list,",
		"/ordk/sim/stats,-1",
	};
	struct client c = { .n = 0 };

	for (unsigned int i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		c.cmd[c.n++] = cmds[i];
	run(&c, true);
	for (unsigned int i = 0; i < c.n; i++)
		cr_assert(json_is_string(json_object_get(reply(&c, i), "error")), "%s: no error",
			  c.cmd[i]);
	client_free(&c);
}

Test(telemetry, lists_come_in_pages)
{
	struct ordk_mr *mr[70];
	struct client c1 = { .n = 1 }, c2 = { .n = 1 };
	char cmds[2][96];
	json_t *first, *second;

	for (int i = 0; i < 70; i++) {
		mr[i] = ordk_mr_reg(p.s[0].pd, p.s[0].buf + i * 4096, 4096, ORDK_ACCESS_LOCAL_WRITE);
		cr_assert_not_null(mr[i]);
	}
	snprintf(cmds[0], sizeof(cmds[0]), "/ordk/mr/list,%s", p.s[0].attr.name);
	c1.cmd[0] = cmds[0];
	run(&c1, true);
	first = reply(&c1, 0);
	cr_assert_eq(json_integer_value(json_object_get(first, "count")), 71);
	cr_assert_eq(json_object_size(json_object_get(first, "mrs")), 64);
	cr_assert(json_is_integer(json_object_get(first, "next")));
	snprintf(cmds[1], sizeof(cmds[1]), "/ordk/mr/list,%s,%" JSON_INTEGER_FORMAT,
		 p.s[0].attr.name, json_integer_value(json_object_get(first, "next")));
	c2.cmd[0] = cmds[1];
	run(&c2, true);
	second = reply(&c2, 0);
	cr_assert_eq(json_object_size(json_object_get(second, "mrs")), 7);
	cr_assert_null(json_object_get(second, "next"));
	/* together, every MR once */
	for (int i = 0; i < 70; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%u", mr[i]->lkey);
		cr_assert((json_object_get(json_object_get(first, "mrs"), key) != NULL) !=
			  (json_object_get(json_object_get(second, "mrs"), key) != NULL), "%s", key);
	}
	client_free(&c1);
	client_free(&c2);
	for (int i = 0; i < 70; i++)
		cr_assert_eq(ordk_mr_dereg(mr[i]), 0);
}

/* ------------------------------------------------- QP timelines (trace=) */

static struct func_pair tp;

static void
trace_setup(void)
{
	test_eal_telemetry = true;
	/* side 0 keeps 4 events per QP (and congestion control, for its rate events), side 1 none */
	func_pair_open(&tp, 1 << 16, "trace=4,cc=1|");
	func_pair_qps(&tp, ORDK_MTU_1024, 16);
}

static void
trace_teardown(void)
{
	func_pair_close(&tp);
}

TestSuite(telemetry_trace, .init = trace_setup, .fini = trace_teardown, .timeout = 50);

/* The client's commands against tp's devices, polled. */
static void
run_tp(struct client *c)
{
	pthread_t th;

	cr_assert_eq(pthread_create(&th, NULL, client_run, c), 0);
	while (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE)) {
		ordk_dev_poll(tp.s[0].dev, 64);
		ordk_dev_poll(tp.s[1].dev, 64);
	}
	pthread_join(th, NULL);
	cr_assert_str_empty(c->conn_err, "%s", c->conn_err);
}

static const char *
ev_what(const json_t *tr, uint64_t seq)
{
	char key[24];

	snprintf(key, sizeof(key), "%" PRIu64, seq);
	return json_string_value(
		json_object_get(json_object_get(json_object_get(tr, "events"), key), "what"));
}

Test(telemetry_trace, a_qp_timeline_keeps_its_last_events_and_counts_the_lost)
{
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_ERR };
	struct client c1 = { .n = 2 }, c2 = { .n = 2 };
	uint32_t qpn = ordk_qp_num(tp.s[0].qp);
	char cmds[4][96];
	json_t *tr, *e;

	/* rate (congestion control's start), RESET -> INIT -> RTR -> RTS: 4 events, the ring's size */
	snprintf(cmds[0], sizeof(cmds[0]), "/ordk/qp/trace,%s,%u", tp.s[0].attr.name, qpn);
	snprintf(cmds[1], sizeof(cmds[1]), "/ordk/qp/trace,%s,%u", tp.s[1].attr.name,
		 ordk_qp_num(tp.s[1].qp));
	c1.cmd[0] = cmds[0];
	c1.cmd[1] = cmds[1];
	run_tp(&c1);
	tr = reply(&c1, 0);
	cr_assert_eq(json_integer_value(json_object_get(tr, "depth")), 4);
	cr_assert_eq(json_integer_value(json_object_get(tr, "recorded")), 4);
	cr_assert_eq(json_integer_value(json_object_get(tr, "lost")), 0);
	cr_assert_eq(json_integer_value(json_object_get(tr, "next")), 4);
	e = json_object_get(json_object_get(tr, "events"), "0");
	cr_assert_str_eq(json_string_value(json_object_get(e, "event")), "rate");
	cr_assert_eq(json_integer_value(json_object_get(e, "b")), 40000000000);
	cr_assert_str_eq(ev_what(tr, 1), "RESET -> INIT");
	cr_assert_str_eq(ev_what(tr, 3), "RTR -> RTS");
	cr_assert_leq(json_integer_value(json_object_get(e, "t_ns")),
		      json_integer_value(json_object_get(tr, "now_ns")));
	/* the device without trace= keeps none, and says how to get one */
	cr_assert_not_null(strstr(json_string_value(json_object_get(reply(&c1, 1), "error")),
				  "trace=1"));
	/* two more: the ring overwrites the oldest, a reader from 0 learns it lost two */
	cr_assert_eq(ordk_qp_modify(tp.s[0].qp, &a, ORDK_QP_STATE), 0);
	a.qp_state = ORDK_QPS_RESET;
	cr_assert_eq(ordk_qp_modify(tp.s[0].qp, &a, ORDK_QP_STATE), 0);
	snprintf(cmds[2], sizeof(cmds[2]), "/ordk/qp/trace,%u,0", qpn);
	snprintf(cmds[3], sizeof(cmds[3]), "/ordk/qp/trace,%s,%u,5", tp.s[0].attr.name, qpn);
	c2.cmd[0] = cmds[2];
	c2.cmd[1] = cmds[3];
	run_tp(&c2);
	tr = reply(&c2, 0);
	cr_assert_eq(json_integer_value(json_object_get(tr, "recorded")), 6);
	cr_assert_eq(json_integer_value(json_object_get(tr, "lost")), 2);
	cr_assert_eq(json_object_size(json_object_get(tr, "events")), 4);
	cr_assert_str_eq(ev_what(tr, 4), "RTS -> ERR");
	cr_assert_str_eq(ev_what(tr, 5), "ERR -> RESET");
	tr = reply(&c2, 1); /* from the last: one event, then nothing more */
	cr_assert_eq(json_object_size(json_object_get(tr, "events")), 1);
	cr_assert_eq(json_integer_value(json_object_get(tr, "next")), 6);
	client_free(&c1);
	client_free(&c2);
}

Test(telemetry_trace, trace_devargs_are_checked)
{
	cr_assert_null(ordk_dev_open("bluesim,port=loopback,trace=65537"));
	cr_assert_eq(rte_errno, EINVAL);
	cr_assert_null(ordk_dev_open("bluesim,port=loopback,trace=x"));
	cr_assert_eq(rte_errno, EINVAL);
}

/*
 * 40 WRITEs of 16 KiB from side 0 of @p lp (its QPs connected) at the loss
 * its devargs set, all SUCCESS; then side 0's QP counters in @p st, some
 * packets resent among them.
 */
static void
lossy_writes(struct func_pair *lp, struct ordk_stats *st)
{
	struct ordk_send_wr wr = { .opcode = ORDK_WR_RDMA_WRITE, .send_flags = ORDK_SEND_SIGNALED,
				   .num_sge = 1 };
	struct ordk_wc wc[40];

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)lp->s[0].buf, 16384, lp->s[0].mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)lp->s[1].buf;
	wr.rdma.rkey = lp->s[1].mr->rkey;
	for (int i = 0; i < 40; i++)
		cr_assert_eq(ordk_qp_post_send(lp->s[0].qp, &wr, 1), 1);
	func_wait(lp, 0, wc, 40, 30);
	for (int i = 0; i < 40; i++)
		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS);
	func_idle(lp, 0.1);
	cr_assert_eq(ordk_qp_stats(lp->s[0].qp, st), 0);
	cr_assert_gt(st->retransmits, 0, "5%% loss and nothing resent");
}

/* At 5% loss the transport's own events are on the sender's timeline, as its counters say. */
Test(telemetry_trace, losses_are_on_the_timeline)
{
	struct client c = { .n = 1 };
	struct func_pair lp;
	struct ordk_stats st;
	unsigned int naks = 0, rtx = 0, timeouts = 0;
	uint64_t resent = 0;
	char cmd[96];
	const char *k;
	json_t *tr, *e;

	func_pair_open(&lp, 1 << 20, "trace=256,fault=drop:0.05,seed=3");
	func_pair_qps(&lp, ORDK_MTU_1024, 64);
	lossy_writes(&lp, &st);
	snprintf(cmd, sizeof(cmd), "/ordk/qp/trace,%s,%u", lp.s[0].attr.name,
		 ordk_qp_num(lp.s[0].qp));
	c.cmd[0] = cmd;
	{
		pthread_t th;

		cr_assert_eq(pthread_create(&th, NULL, client_run, &c), 0);
		while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE))
			func_idle(&lp, 0.001);
		pthread_join(th, NULL);
	}
	tr = reply(&c, 0);
	cr_assert_eq(json_integer_value(json_object_get(tr, "lost")), 0);
	json_object_foreach(json_object_get(tr, "events"), k, e) {
		const char *ev = json_string_value(json_object_get(e, "event"));

		naks += strcmp(ev, "nak_received") == 0;
		timeouts += strcmp(ev, "timeout") == 0;
		if (strcmp(ev, "retransmit") == 0) {
			rtx++;
			resent += (uint64_t)json_integer_value(json_object_get(e, "b"));
		}
	}
	cr_assert_gt(rtx, 0, "no retransmit on the timeline");
	cr_assert_gt(naks + timeouts, 0, "no NAK or timeout before the resends");
	cr_log_info("timeline: %" JSON_INTEGER_FORMAT " events, %u NAKs, %u timeouts, %u bursts",
		    json_integer_value(json_object_get(tr, "recorded")), naks, timeouts, rtx);
	if (json_integer_value(json_object_get(tr, "recorded")) <= 64) { /* one page: all of it */
		cr_assert_eq(resent, st.retransmits, "the bursts add up to the packets resent");
		cr_assert_eq(naks, st.naks_received);
		cr_assert_eq(timeouts, st.timeouts);
	}
	client_free(&c);
	func_pair_close(&lp);
}

/* Occurrences of @p needle in the file at @p path. */
static unsigned int
file_count(const char *path, const char *needle)
{
	FILE *fp = fopen(path, "rb");
	static char buf[64 << 20];
	size_t n, nl = strlen(needle);
	unsigned int k = 0;

	cr_assert_not_null(fp, "%s", path);
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	for (const char *at = buf; (at = memmem(at, n - (size_t)(at - buf), needle, nl)) != NULL; at += nl)
		k++;
	return k;
}

/*
 * With a wire capture (pcap=) beside the timeline, each event is also a
 * comment in the capture: as many NAKs, timeouts and resent packets there
 * as the QP's counters say.
 */
Test(telemetry_trace, events_are_comments_in_the_capture)
{
	char path[] = "/tmp/ordk-trace-pcap-XXXXXX", devargs[160], needle[64];
	struct func_pair lp;
	struct ordk_stats st;
	uint32_t qpn;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(devargs, sizeof(devargs), "trace=256,fault=drop:0.05,seed=3,pcap=%s|fault=drop:0.05,seed=4",
		 path);
	func_pair_open(&lp, 1 << 20, devargs);
	func_pair_qps(&lp, ORDK_MTU_1024, 64);
	qpn = ordk_qp_num(lp.s[0].qp);
	lossy_writes(&lp, &st);
	func_pair_close(&lp); /* the capture is complete */

	cr_assert_eq(file_count(path, "ordk: QP event timelines on"), 1);
	snprintf(needle, sizeof(needle), "ordk: qp 0x%06x nak_received: ", qpn);
	cr_assert_eq(file_count(path, needle), st.naks_received, "%s", needle);
	snprintf(needle, sizeof(needle), "ordk: qp 0x%06x timeout: ", qpn);
	cr_assert_eq(file_count(path, needle), st.timeouts, "%s", needle);
	snprintf(needle, sizeof(needle), "ordk: qp 0x%06x retransmit: ", qpn);
	cr_assert_gt(file_count(path, needle), 0, "%s", needle);
	snprintf(needle, sizeof(needle), "ordk: qp 0x%06x state: ", qpn);
	cr_assert_geq(file_count(path, needle), 3, "RESET -> INIT -> RTR -> RTS: %s", needle);
	unlink(path);
}
