/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's output, so scripts written for perftest read ordk-perf: the
 * header block, the address lines, the BW and latency tables (formats are
 * perftest's RESULT_FMT / REPORT_FMT), and a JSON file of the same rows.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "perf.h"

#define RULE "---------------------------------------------------------------------------------------"

void
perf_print_rule(FILE *f)
{
	fprintf(f, "%s\n", RULE);
}

const char *
perf_verb_title(const struct perf_opts *o, char *buf, size_t len)
{
	switch (o->test) {
	case PERF_WRITE_BW:
	case PERF_WRITE_LAT:
		snprintf(buf, len, "RDMA_Write");
		break;
	case PERF_READ_BW:
	case PERF_READ_LAT:
		snprintf(buf, len, "RDMA_Read");
		break;
	case PERF_SEND_BW:
	case PERF_SEND_LAT:
		snprintf(buf, len, "Send");
		break;
	default:
		snprintf(buf, len, "Atomic %s",
			 o->atomic == PERF_CMP_AND_SWP ? "CMP_AND_SWAP" : "FETCH_AND_ADD");
		break;
	}
	return buf;
}

static bool
reads(const struct perf_opts *o)
{
	return o->test == PERF_READ_BW || o->test == PERF_READ_LAT || o->test == PERF_ATOMIC_BW ||
	       o->test == PERF_ATOMIC_LAT;
}

void
perf_print_header(FILE *f, const struct perf_opts *o, const struct perf_hdr *h)
{
	char verb[64];
	bool bw = perf_test_is_bw(o->test);

	perf_print_rule(f);
	fprintf(f, "                    %s %s Test\n", perf_verb_title(o, verb, sizeof(verb)),
		bw ? "BW" : "Latency");
	fprintf(f, " Dual-port       : OFF\t\tDevice         : %s\n", h->device);
	fprintf(f, " Number of qps   : %u\t\tTransport type : IB\n", o->qps);
	fprintf(f, " Connection type : RC\t\tUsing SRQ      : OFF\n");
	fprintf(f, " PCIe relax order: OFF\t\tLock-free      : OFF\n");
	fprintf(f, " ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n");
	fprintf(f, " TX depth        : %u\n", o->tx_depth);
	if (bw)
		fprintf(f, " CQ Moderation   : %u\n", o->cq_mod);
	fprintf(f, " CQE Poll Batch  : Dynamic\n");
	fprintf(f, " Mtu             : %u[B]\n", o->mtu);
	fprintf(f, " Link type       : Ethernet\n");
	fprintf(f, " GID index       : 0\n");
	if (reads(o))
		fprintf(f, " Outstand reads  : %u\n", h->outstand_reads);
	else
		fprintf(f, " Max inline data : 0[B]\n");
	fprintf(f, " rdma_cm QPs\t : OFF\n");
	fprintf(f, " Data ex. method : Ethernet\n");
	perf_print_rule(f);
}

void
perf_print_addr(FILE *f, const char *which, const struct perf_opts *o, const struct perf_addr *a)
{
	fprintf(f, " %s address: LID %#04x QPN %#06x PSN %#06x", which, 0u, a->qpn, a->psn);
	if (o->test == PERF_READ_BW || o->test == PERF_READ_LAT)
		fprintf(f, " OUT %#04x", 16u);
	fprintf(f, " RKey %#08x VAddr %#016" PRIx64 "\n", a->rkey, a->vaddr);
	/* an IPv4-mapped GID, printed as perftest does (every byte in decimal) */
	fprintf(f, " GID: 00:00:00:00:00:00:00:00:00:00:255:255:%02u:%02u:%02u:%02u\n",
		a->ip >> 24, (a->ip >> 16) & 0xFF, (a->ip >> 8) & 0xFF, a->ip & 0xFF);
}

void
perf_print_bw_head(FILE *f, const struct perf_opts *o)
{
	const char *u = o->report_gbits ? "Gb/sec" : "MiB/sec";

	if (o->duration)
		fprintf(f, " WARNING: BW peak won't be measured in this run.\n");
	fprintf(f, " #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]\n", u,
		u);
}

static double
unit(const struct perf_opts *o, double mib)
{
	return o->report_gbits ? mib * 1048576.0 * 8 / 1e9 : mib;
}

void
perf_print_bw_row(FILE *f, const struct perf_opts *o, const struct perf_bw *r)
{
	fprintf(f, " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t     %-7.6lf\n",
		r->bytes, r->iters, r->peak_valid ? unit(o, r->peak_mib) : 0.0, unit(o, r->avg_mib),
		r->mpps);
}

void
perf_print_lat_head(FILE *f, const struct perf_opts *o)
{
	if (o->duration)
		fprintf(f, " #bytes        #iterations       t_avg[usec]    tps average\n");
	else
		fprintf(f, " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
			   "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   "
			   "99.9%% percentile[usec] \n");
}

void
perf_print_lat_row(FILE *f, const struct perf_opts *o, const struct perf_lat *r)
{
	if (o->duration)
		fprintf(f, " %-7" PRIu64 "       %-10" PRIu64 "        %-7.2f        %-7.2f\n", r->bytes,
			r->iters, r->t_avg, r->tps);
	else
		fprintf(f, " %-7" PRIu64 " %-10" PRIu64 " %-7.2f        %-7.2f      %-7.2f         "
			   "%-7.2f        %-7.2f          %-7.2f                %-7.2f\n",
			r->bytes, r->iters, r->t_min, r->t_max, r->t_typical, r->t_avg, r->t_stdev,
			r->p99, r->p999);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
perf_lat_stats(double *us, uint64_t n, struct perf_lat *r)
{
	double sum = 0, sq = 0;

	r->iters = n;
	if (n == 0) {
		r->t_min = r->t_max = r->t_typical = r->t_avg = r->t_stdev = r->p99 = r->p999 = 0;
		return;
	}
	qsort(us, n, sizeof(*us), cmp_double);
	for (uint64_t i = 0; i < n; i++) {
		sum += us[i];
		sq += us[i] * us[i];
	}
	r->t_min = us[0];
	r->t_max = us[n - 1];
	r->t_typical = us[n / 2];
	r->t_avg = sum / (double)n;
	r->t_stdev = sqrt(fmax(sq / (double)n - r->t_avg * r->t_avg, 0));
	r->p99 = us[(uint64_t)((double)n * 0.99) < n ? (uint64_t)((double)n * 0.99) : n - 1];
	r->p999 = us[(uint64_t)((double)n * 0.999) < n ? (uint64_t)((double)n * 0.999) : n - 1];
}

double
perf_peak_spm(const uint64_t *posted, const uint64_t *done, uint64_t n, double hz)
{
	uint64_t step = n > 4096 ? (n + 4095) / 4096 : 1;
	double best = 0;

	for (uint64_t i = 0; i < n; i += step)
		for (uint64_t j = i; j < n; j = j + step < n || j == n - 1 ? j + step : n - 1) {
			double d;

			if (done[j] < posted[i])
				continue;
			d = (double)(done[j] - posted[i]) / (double)(j - i + 1) / hz;
			if (d > 0 && (best == 0 || d < best))
				best = d;
		}
	return best;
}

/* ------------------------------------------------------------------ JSON */

int
perf_json_open(struct perf_json *j, const struct perf_opts *o, const struct perf_hdr *h)
{
	char verb[64];

	j->rows = 0;
	j->f = fopen(o->out_json, "w");
	if (j->f == NULL)
		return -1;
	fprintf(j->f, "{\n  \"tool\": \"ordk-perf\",\n  \"test\": \"%s\",\n  \"title\": ",
		perf_test_name(o->test));
	app_json_str(j->f, perf_verb_title(o, verb, sizeof(verb)));
	fprintf(j->f, ",\n  \"device\": ");
	app_json_str(j->f, h->device);
	fprintf(j->f,
		",\n  \"qps\": %u,\n  \"tx_depth\": %u,\n  \"cq_mod\": %u,\n  \"mtu\": %u,\n"
		"  \"duration\": %u,\n  \"verify\": %s,\n  \"units\": \"%s\",\n  \"results\": [",
		o->qps, o->tx_depth, o->cq_mod, o->mtu, o->duration, o->verify ? "true" : "false",
		perf_test_is_bw(o->test) ? (o->report_gbits ? "Gb/sec" : "MiB/sec") : "usec");
	return 0;
}

void
perf_json_bw(struct perf_json *j, const struct perf_opts *o, const struct perf_bw *r)
{
	if (j->f == NULL)
		return;
	fprintf(j->f,
		"%s\n    {\"MsgSize\": %" PRIu64 ", \"n_iterations\": %" PRIu64
		", \"BW_peak\": %.2f, \"BW_average\": %.2f, \"MsgRate\": %.6f}",
		j->rows++ ? "," : "", r->bytes, r->iters, r->peak_valid ? unit(o, r->peak_mib) : 0.0,
		unit(o, r->avg_mib), r->mpps);
}

void
perf_json_lat(struct perf_json *j, const struct perf_lat *r)
{
	if (j->f == NULL)
		return;
	fprintf(j->f,
		"%s\n    {\"MsgSize\": %" PRIu64 ", \"n_iterations\": %" PRIu64
		", \"t_min\": %.2f, \"t_max\": %.2f, \"t_typical\": %.2f, \"t_avg\": %.2f"
		", \"t_stdev\": %.2f, \"percentile_99\": %.2f, \"percentile_99_9\": %.2f"
		", \"tps\": %.2f}",
		j->rows++ ? "," : "", r->bytes, r->iters, r->t_min, r->t_max, r->t_typical, r->t_avg,
		r->t_stdev, r->p99, r->p999, r->tps);
}

int
perf_json_close(struct perf_json *j, int status)
{
	int rc;

	if (j->f == NULL)
		return -1;
	fprintf(j->f, "\n  ],\n  \"status\": \"%s\"\n}\n", status == 0 ? "ok" : "failed");
	rc = fclose(j->f);
	j->f = NULL;
	return rc == 0 ? 0 : -1;
}
