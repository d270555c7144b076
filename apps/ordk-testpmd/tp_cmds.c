/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-testpmd's commands, as DPDK's cmdline library parses and completes them. */
#include <stdio.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>

#include "tp.h"

/* One result layout serves every command: up to five words and two numbers. */
struct res {
	cmdline_fixed_string_t w0, w1, w2, w3, w4;
	uint32_t n1;
	uint16_t n2;
};

#define WORD(field, choices) TOKEN_STRING_INITIALIZER(struct res, field, choices)

/* ----------------------------------------------------------------- show */

static cmdline_parse_token_string_t t_show = WORD(w0, "show");
static cmdline_parse_token_string_t t_device = WORD(w1, "device");
static cmdline_parse_token_string_t t_port = WORD(w1, "port");
static cmdline_parse_token_string_t t_stats = WORD(w2, "stats#xstats");
static cmdline_parse_token_string_t t_qp = WORD(w1, "qp");
static cmdline_parse_token_num_t t_qpn = TOKEN_NUM_INITIALIZER(struct res, n1, RTE_UINT32);
static cmdline_parse_token_string_t t_table = WORD(w1, "mr#cq#traffic");

static void
cb_show(void *parsed, struct cmdline *cl, void *data)
{
	struct res *r = parsed;

	(void)cl;
	if (strcmp(r->w1, "device") == 0)
		tp_show_device();
	else if (strcmp(r->w1, "port") == 0 && strcmp(r->w2, "stats") == 0)
		tp_show_port_stats(-1);
	else if (strcmp(r->w1, "port") == 0)
		tp_show_port_xstats();
	else if (strcmp(r->w1, "qp") == 0)
		tp_show_qp(data != NULL, r->n1);
	else if (strcmp(r->w1, "mr") == 0)
		tp_show_mr();
	else if (strcmp(r->w1, "cq") == 0)
		tp_show_cq();
	else
		tp_show_traffic();
}

static cmdline_parse_inst_t c_show_device = {
	.f = cb_show, .help_str = "show device: the devices' identity and limits",
	.tokens = { (void *)&t_show, (void *)&t_device, NULL },
};
static cmdline_parse_inst_t c_show_port = {
	.f = cb_show,
	.help_str = "show port stats|xstats: ethdev counters (testpmd's format), or the driver's "
		    "(pmd_*), the model's with drop reasons and the transport's",
	.tokens = { (void *)&t_show, (void *)&t_port, (void *)&t_stats, NULL },
};
static cmdline_parse_inst_t c_show_qp = {
	.f = cb_show, .help_str = "show qp: state, PSNs, outstanding, retransmits, NAKs, RNR, timeouts",
	.tokens = { (void *)&t_show, (void *)&t_qp, NULL },
};
static cmdline_parse_inst_t c_show_qp_one = {
	.f = cb_show, .data = (void *)1, .help_str = "show qp <qpn>: one QP and all its counters",
	.tokens = { (void *)&t_show, (void *)&t_qp, (void *)&t_qpn, NULL },
};
static cmdline_parse_inst_t c_show_table = {
	.f = cb_show, .help_str = "show mr|cq|traffic: registered memory, CQs, the running tally",
	.tokens = { (void *)&t_show, (void *)&t_table, NULL },
};

/* testpmd's "show port stats|info all|<port>", "show fwd stats all", "clear port stats all|<port>" */
static cmdline_parse_token_string_t t_what = WORD(w2, "stats#info");
static cmdline_parse_token_string_t t_all = WORD(w3, "all");
static cmdline_parse_token_num_t t_portid = TOKEN_NUM_INITIALIZER(struct res, n2, RTE_UINT16);
static cmdline_parse_token_string_t t_fwd = WORD(w1, "fwd");
static cmdline_parse_token_string_t t_stats2 = WORD(w2, "stats");

static void
cb_port(void *parsed, struct cmdline *cl, void *data)
{
	struct res *r = parsed;
	int port = data != NULL ? r->n2 : -1;

	(void)cl;
	if (strcmp(r->w0, "clear") == 0)
		tp_clear_port_stats(port);
	else if (strcmp(r->w1, "fwd") == 0)
		tp_show_fwd_stats();
	else if (strcmp(r->w2, "stats") == 0)
		tp_show_port_stats(port);
	else
		tp_show_port_info(port);
}

static cmdline_parse_inst_t c_show_port_all = {
	.f = cb_port, .help_str = "show port stats|info all: every port",
	.tokens = { (void *)&t_show, (void *)&t_port, (void *)&t_what, (void *)&t_all, NULL },
};
static cmdline_parse_inst_t c_show_port_one = {
	.f = cb_port, .data = (void *)1, .help_str = "show port stats|info <port_id>: one port",
	.tokens = { (void *)&t_show, (void *)&t_port, (void *)&t_what, (void *)&t_portid, NULL },
};
static cmdline_parse_inst_t c_show_fwd = {
	.f = cb_port, .help_str = "show fwd stats all: forward statistics since start",
	.tokens = { (void *)&t_show, (void *)&t_fwd, (void *)&t_stats2, (void *)&t_all, NULL },
};
static cmdline_parse_token_string_t t_clear0 = WORD(w0, "clear");
static cmdline_parse_token_string_t t_port1 = WORD(w1, "port");
static cmdline_parse_inst_t c_clear_port_all = {
	.f = cb_port, .help_str = "clear port stats all: zero every port's counters",
	.tokens = { (void *)&t_clear0, (void *)&t_port1, (void *)&t_stats2, (void *)&t_all, NULL },
};
static cmdline_parse_inst_t c_clear_port_one = {
	.f = cb_port, .data = (void *)1, .help_str = "clear port stats <port_id>: one port",
	.tokens = { (void *)&t_clear0, (void *)&t_port1, (void *)&t_stats2, (void *)&t_portid,
		    NULL },
};

/* ------------------------------------------------------------ set fault */

static cmdline_parse_token_string_t t_set = WORD(w0, "set");
static cmdline_parse_token_string_t t_fault = WORD(w1, "fault");
static cmdline_parse_token_string_t t_kind = WORD(w2, "drop#dup#reorder#corrupt#delay");
static cmdline_parse_token_string_t t_rate = WORD(w3, NULL);
static cmdline_parse_token_string_t t_dir = WORD(w4, "rx#tx");

static void
cb_fault(void *parsed, struct cmdline *cl, void *data)
{
	struct res *r = parsed;

	(void)cl;
	tp_set_fault(r->w2, r->w3, data ? r->w4 : NULL);
}

static cmdline_parse_inst_t c_fault = {
	.f = cb_fault,
	.help_str = "set fault drop|dup|reorder|corrupt|delay <rate>: inject into frames sent and received",
	.tokens = { (void *)&t_set, (void *)&t_fault, (void *)&t_kind, (void *)&t_rate, NULL },
};
static cmdline_parse_inst_t c_fault_dir = {
	.f = cb_fault, .data = (void *)1,
	.help_str = "set fault <kind> <rate> rx|tx: one direction only",
	.tokens = { (void *)&t_set, (void *)&t_fault, (void *)&t_kind, (void *)&t_rate,
		    (void *)&t_dir, NULL },
};

/* ----------------------------------------------------------- start, stop */

static cmdline_parse_token_string_t t_start = WORD(w0, "start");
static cmdline_parse_token_string_t t_op = WORD(w1, "write#read#send");
static cmdline_parse_token_num_t t_size = TOKEN_NUM_INITIALIZER(struct res, n1, RTE_UINT32);
static cmdline_parse_token_num_t t_qps = TOKEN_NUM_INITIALIZER(struct res, n2, RTE_UINT16);

static void
cb_start(void *parsed, struct cmdline *cl, void *data)
{
	struct res *r = parsed;

	(void)cl;
	tp_start(r->w1, r->n1, data ? r->n2 : 1);
}

static cmdline_parse_inst_t c_start = {
	.f = cb_start, .help_str = "start write|read|send <size>: traffic on one QP pair",
	.tokens = { (void *)&t_start, (void *)&t_op, (void *)&t_size, NULL },
};
static cmdline_parse_inst_t c_start_qps = {
	.f = cb_start, .data = (void *)1,
	.help_str = "start write|read|send <size> <qps>: traffic on several QP pairs",
	.tokens = { (void *)&t_start, (void *)&t_op, (void *)&t_size, (void *)&t_qps, NULL },
};

static cmdline_parse_token_string_t t_word0 = WORD(w0, "stop#help#quit");

static void
cb_word(void *parsed, struct cmdline *cl, void *data)
{
	struct res *r = parsed;

	(void)data;
	if (strcmp(r->w0, "stop") == 0)
		tp_stop();
	else if (strcmp(r->w0, "quit") == 0) {
		tp.quit = true;
		cmdline_quit(cl);
	} else
		printf("\nCommands (tab completes them):\n"
		       "  show device | show port stats|info [all|<port>] | show port xstats\n"
		       "  show fwd stats all | clear port stats all|<port>\n"
		       "  show qp [qpn] | show mr | show cq | show traffic\n"
		       "  set fault drop|dup|reorder|corrupt|delay <rate 0..1> [rx|tx]\n"
		       "  start write|read|send <size> [qps]   (device 0 requests, device 1 answers)\n"
		       "  stop | clear stats | sleep <seconds> | help | quit\n\n");
}

static cmdline_parse_inst_t c_word = {
	.f = cb_word, .help_str = "stop | help | quit",
	.tokens = { (void *)&t_word0, NULL },
};

static cmdline_parse_token_string_t t_clear = WORD(w0, "clear");
static cmdline_parse_token_string_t t_stats1 = WORD(w1, "stats");

static void
cb_clear(void *parsed, struct cmdline *cl, void *data)
{
	(void)parsed;
	(void)cl;
	(void)data;
	tp_clear_stats();
}

static cmdline_parse_inst_t c_clear = {
	.f = cb_clear, .help_str = "clear stats: zero every counter",
	.tokens = { (void *)&t_clear, (void *)&t_stats1, NULL },
};

static cmdline_parse_token_string_t t_sleep = WORD(w0, "sleep");
static cmdline_parse_token_string_t t_secs = WORD(w1, NULL);

static void
cb_sleep(void *parsed, struct cmdline *cl, void *data)
{
	(void)cl;
	(void)data;
	tp_sleep(((struct res *)parsed)->w1);
}

static cmdline_parse_inst_t c_sleep = {
	.f = cb_sleep,
	.help_str = "sleep <seconds>: keep the devices and traffic going (for --cmdfile scripts)",
	.tokens = { (void *)&t_sleep, (void *)&t_secs, NULL },
};

cmdline_parse_ctx_t tp_cmd_ctx[] = {
	&c_show_device, &c_show_port, &c_show_qp, &c_show_qp_one, &c_show_table,
	&c_fault,	&c_fault_dir, &c_start,	  &c_start_qps,	  &c_word,
	&c_clear,	&c_sleep,     &c_show_port_all, &c_show_port_one, &c_show_fwd,
	&c_clear_port_all, &c_clear_port_one, NULL,
};
