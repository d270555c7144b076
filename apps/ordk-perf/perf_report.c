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

static bool
reads(const struct perf_opts *o)
{
	return o->test == PERF_READ_BW || o->test == PERF_READ_LAT || o->test == PERF_ATOMIC_BW ||
	       o->test == PERF_ATOMIC_LAT;
}

static bool
sends(const struct perf_opts *o)
{
	return o->test == PERF_SEND_BW || o->test == PERF_SEND_LAT;
}

/* perftest's testsStr[verb], atomicTypesStr[], then BW / Latency */
static const char *
test_words(const struct perf_opts *o, const char **atomic)
{
	*atomic = NULL;
	switch (o->test) {
	case PERF_WRITE_BW:
	case PERF_WRITE_LAT:
		return "RDMA_Write";
	case PERF_READ_BW:
	case PERF_READ_LAT:
		return "RDMA_Read";
	case PERF_SEND_BW:
	case PERF_SEND_LAT:
		return "Send";
	default:
		*atomic = o->atomic == PERF_CMP_AND_SWP ? "CMP_AND_SWAP" : "FETCH_AND_ADD";
		return "Atomic";
	}
}

void
perf_print_warnings(FILE *f, const struct perf_opts *o, bool server)
{
	bool bw = perf_test_is_bw(o->test);

	if (o->output != PERF_OUT_FULL)
		return;
	/* perftest warns while parsing: -D, --run_infinitely, a send_bw server (no peak) */
	if (bw && !o->no_peak &&
	    (o->duration || o->run_infinitely || o->duplex || (server && sends(o))))
		fprintf(f, " WARNING: BW peak won't be measured in this run.\n");
	if (bw && o->size > PERF_CQ_MOD_LIMIT && !o->all_sizes && o->cq_mod_set && o->cq_mod > 1) {
		perf_print_rule(f);
		fprintf(f, "Warning: Large message requested and CQ moderation enabled\n");
		fprintf(f, "Warning: It can lead to inaccurate results\n");
	}
}

void
perf_print_header(FILE *f, const struct perf_opts *o, const struct perf_hdr *h)
{
	const char *atomic, *verb = test_words(o, &atomic);
	bool bw = perf_test_is_bw(o->test);

	if (o->output != PERF_OUT_FULL)
		return;
	perf_print_rule(f);
	fprintf(f, "                    %s ", verb);
	if (atomic != NULL)
		fprintf(f, "%s ", atomic);
	fprintf(f, "%s%sTest\n", bw && o->duplex ? "Bidirectional " : "", bw ? "BW " : "Latency ");
	fprintf(f, " Dual-port       : OFF\t\tDevice         : %s\n", h->device);
	fprintf(f, " Number of qps   : %u\t\tTransport type : IB\n", o->qps);
	fprintf(f, " Connection type : RC\t\tUsing SRQ      : OFF\n");
	fprintf(f, " PCIe relax order: OFF\t\tLock-free      : OFF\n");
	fprintf(f, " ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n");
	/* perftest: TX depth on the client, RX depth on a send test's server; both with -b */
	if (!h->server || o->duplex)
		fprintf(f, " TX depth        : %u\n", o->tx_depth);
	if (sends(o) && (h->server || o->duplex))
		fprintf(f, " RX depth        : %u\n", o->rx_depth);
	if (bw) {
		fprintf(f, " CQ Moderation   : %u\n", o->cq_mod);
		fprintf(f, " CQE Poll Batch  : Dynamic\n");
	}
	fprintf(f, " Mtu             : %u[B]\n", o->mtu);
	fprintf(f, " Link type       : Ethernet\n");
	fprintf(f, " GID index       : 0\n");
	if (reads(o))
		fprintf(f, " Outstand reads  : %u\n", o->out_reads);
	else
		fprintf(f, " Max inline data : %u[B]\n", o->inline_size);
	fprintf(f, " rdma_cm QPs\t : OFF\n");
	fprintf(f, " Data ex. method : Ethernet\n");
	perf_print_rule(f);
}

void
perf_print_addr(FILE *f, const char *which, const struct perf_opts *o, const struct perf_addr *a)
{
	if (o->output != PERF_OUT_FULL)
		return;
	fprintf(f, " %s address: LID %#04x QPN %#06x PSN %#06x", which, 0u, a->qpn, a->psn);
	/* perftest: OUT for READ, RKey and VAddr for READ and WRITE (not SEND, not atomics) */
	if (o->test == PERF_READ_BW || o->test == PERF_READ_LAT)
		fprintf(f, " OUT %#04x", o->out_reads);
	if (o->test == PERF_READ_BW || o->test == PERF_READ_LAT || o->test == PERF_WRITE_BW ||
	    o->test == PERF_WRITE_LAT)
		fprintf(f, " RKey %#08x VAddr %#016" PRIx64, a->rkey, a->vaddr);
	/* an IPv4-mapped GID, printed as perftest does (every byte in decimal) */
	fprintf(f, "\n GID: 00:00:00:00:00:00:00:00:00:00:255:255:%02u:%02u:%02u:%02u\n",
		a->ip >> 24, (a->ip >> 16) & 0xFF, (a->ip >> 8) & 0xFF, a->ip & 0xFF);
}

void
perf_print_bw_head(FILE *f, const struct perf_opts *o)
{
	if (o->output != PERF_OUT_FULL)
		return;
	perf_print_rule(f);
	fprintf(f, o->report_gbits ?
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n" :
		" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n");
}

static double
unit(const struct perf_opts *o, double mib)
{
	return o->report_gbits ? mib * 1048576.0 * 8 / 1e9 : mib;
}

void
perf_print_bw_row(FILE *f, const struct perf_opts *o, const struct perf_bw *r)
{
	double peak = r->peak_valid ? unit(o, r->peak_mib) : 0.0, avg = unit(o, r->avg_mib);

	if (o->output == PERF_OUT_BW) {
		fprintf(f, "%lf\n", avg);
		return;
	}
	if (o->output == PERF_OUT_MR) {
		fprintf(f, "%lf\n", r->mpps);
		return;
	}
	if (o->output != PERF_OUT_FULL)
		return;
	if (o->report_gbits && avg < 0.1) /* perftest's REPORT_FMT_EXT */
		fprintf(f, " %-7" PRIu64 "    %" PRIu64 "           %-7.6lf            %-7.6lf"
			   "            %-7.6lf\n", r->bytes, r->iters, peak, avg, r->mpps);
	else /* REPORT_FMT */
		fprintf(f, " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t"
			   "     %-7.6lf\n", r->bytes, r->iters, peak, avg, r->mpps);
}

void
perf_print_lat_head(FILE *f, const struct perf_opts *o)
{
	if (o->output != PERF_OUT_FULL)
		return;
	perf_print_rule(f);
	if (o->duration)
		fprintf(f, " #bytes        #iterations       t_avg[usec]    tps average\n");
	else
		fprintf(f, " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
			   "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   "
			   "99.9%% percentile[usec] %s\n",
			o->hist_file ? "   50% percentile[usec]   90% percentile[usec]   max[usec]" : "");
}

void
perf_print_lat_row(FILE *f, const struct perf_opts *o, const struct perf_lat *r)
{
	if (o->output == PERF_OUT_LAT) {
		fprintf(f, "%lf\n", r->t_avg);
		return;
	}
	if (o->output != PERF_OUT_FULL)
		return;
	if (o->duration) /* REPORT_FMT_LAT_DUR */
		fprintf(f, " %-7" PRIu64 "       %" PRIu64 "            %-7.2f        %-7.2f\n",
			r->bytes, r->iters, r->t_avg, r->tps);
	else { /* REPORT_FMT_LAT, then --histogram's three columns */
		fprintf(f, " %-7" PRIu64 " %" PRIu64 "          %-7.2f        %-7.2f      %-7.2f  \t"
			   "       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f",
			r->bytes, r->iters, r->t_min, r->t_max, r->t_typical, r->t_avg, r->t_stdev,
			r->p99, r->p999);
		if (o->hist_file)
			fprintf(f, " \t\t%-7.2f \t\t%-7.2f \t\t%-7.2f", r->p50, r->p90, r->max);
		fprintf(f, "\n");
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * perftest's print_report_lat(): sort the deltas, drop the top
 * LAT_MEASURE_TAIL (2), the median of the rest (the two middle ones averaged,
 * in whole cycles, when their count is even), the average and the standard
 * deviation over the rest, t_max = the first dropped one, percentiles at
 * ceil(m * 0.99) and ceil(m * 0.999) of the sorted deltas.
 */
int
perf_lat_stats(uint64_t *delta, uint64_t n, double cycles_per_unit, struct perf_lat *r)
{
	double sum = 0, sq = 0;
	uint64_t m, median;

	if (n < 3 || !(cycles_per_unit > 0))
		return -1;
	qsort(delta, n, sizeof(*delta), cmp_u64);
	m = n - 2;
	median = (m - 1) % 2 ? (delta[m / 2] + delta[m / 2 - 1]) / 2 : delta[m / 2];
	for (uint64_t i = 0; i < m; i++)
		sum += (double)delta[i] / cycles_per_unit;
	r->t_avg = sum / (double)m;
	for (uint64_t i = 0; i < m; i++) {
		double d = r->t_avg - (double)delta[i] / cycles_per_unit;

		sq += d * d;
	}
	r->t_min = (double)delta[0] / cycles_per_unit;
	r->t_max = (double)delta[m] / cycles_per_unit;
	r->t_typical = (double)median / cycles_per_unit;
	r->t_stdev = sqrt(sq / (double)m);
	r->p50 = (double)delta[(uint64_t)ceil((double)m * 0.50)] / cycles_per_unit;
	r->p90 = (double)delta[(uint64_t)ceil((double)m * 0.90)] / cycles_per_unit;
	r->p99 = (double)delta[(uint64_t)ceil((double)m * 0.99)] / cycles_per_unit;
	r->p999 = (double)delta[(uint64_t)ceil((double)m * 0.999)] / cycles_per_unit;
	r->max = (double)delta[n - 1] / cycles_per_unit;
	return 0;
}

int
perf_hist_write(FILE *f, const char *test, uint64_t bytes, const uint64_t *delta, uint64_t n,
		double cycles_per_ns)
{
	if (!(cycles_per_ns > 0))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		if (fprintf(f, "%s,%" PRIu64 ",%" PRIu64 ",%.0f\n", test, bytes, i,
			    (double)delta[i] / cycles_per_ns) < 0)
			return -1;
	return ferror(f) ? -1 : 0;
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

/* perftest's write_test_info_to_file(): "test_info": {...}, */
static void
json_test_info(FILE *f, const struct perf_opts *o, const struct perf_hdr *h)
{
	const char *atomic, *verb = test_words(o, &atomic);
	bool bw = perf_test_is_bw(o->test);

	fprintf(f, "\"test_info\": {\n\"test\": \"%s_", verb);
	if (atomic != NULL)
		fprintf(f, "%s_", atomic);
	fprintf(f, "%s%sTest\",\n", bw && o->duplex ? "Bidirectional_" : "",
		bw ? "BW_" : "Latency_");
	fprintf(f, "\"Dual_port\": \"OFF\",\n\"Device\": ");
	app_json_str(f, h->device);
	fprintf(f, ",\n\"Number_of_qps\": %u,\n\"Transport_type\": \"IB\",\n", o->qps);
	fprintf(f, "\"Connection_type\": \"RC\",\n\"Using_SRQ\": \"OFF\",\n");
	fprintf(f, "\"PCIe_relax_order\": \"OFF\",\n\"ibv_wr_API\": \"OFF\",\n");
	if (!h->server)
		fprintf(f, "\"TX_depth\": %u,\n", o->tx_depth);
	if (sends(o) && h->server)
		fprintf(f, "\"RX_depth\": %u,\n", o->rx_depth);
	if (bw)
		fprintf(f, "\"CQ_Moderation\": %u,\n", o->cq_mod);
	fprintf(f, "\"Mtu\": %u,\n\"Link_type\": \"Ethernet\",\n\"GID_index\": 0,\n", o->mtu);
	if (reads(o))
		fprintf(f, "\"Outstand_reads\": %u,\n", o->out_reads);
	else
		fprintf(f, "\"Max_inline_data\": %u,\n", o->inline_size);
	fprintf(f, "\"rdma_cm_QPs\": \"OFF\",\n\"Use_ROCm_memory\": \"OFF\",\n"
		   "\"Use_MUSA_memory\": \"OFF\",\n\"Data_ex_method\": \"Ethernet\"\n},\n");
}

static FILE *
json_open(const struct perf_opts *o)
{
	/* perftest rewrites the file at every report: it holds the last one */
	FILE *f = fopen(o->out_json_file ? o->out_json_file : PERF_JSON_DEFAULT, "w");

	if (f == NULL)
		fprintf(stderr, "failed to open %s\n",
			o->out_json_file ? o->out_json_file : PERF_JSON_DEFAULT);
	return f;
}

int
perf_json_bw(const struct perf_opts *o, const struct perf_hdr *h, const struct perf_bw *r)
{
	double peak = r->peak_valid ? unit(o, r->peak_mib) : 0.0, avg = unit(o, r->avg_mib);
	FILE *f = json_open(o);

	if (f == NULL)
		return -1;
	fprintf(f, "{\n");
	json_test_info(f, o, h);
	fprintf(f, "\"results\": {\n");
	if (o->output == PERF_OUT_BW)
		fprintf(f, "\"bw_avg\": %lf,\n", avg);
	else if (o->output == PERF_OUT_MR)
		fprintf(f, "\"msgRate_avg\": %lf,\n", r->mpps);
	else if (o->report_gbits && avg < 0.1) /* REPORT_FMT_EXT_JSON */
		fprintf(f, "\"MsgSize\": %" PRIu64 ",\n\"n_iterations\": %" PRIu64 ",\n\"BW_peak\": "
			   "%.6lf,\n\"BW_average\": %.6lf,\n\"MsgRate\": %.6lf", r->bytes, r->iters, peak,
			avg, r->mpps);
	else /* REPORT_FMT_JSON */
		fprintf(f, "\"MsgSize\": %" PRIu64 ",\n\"n_iterations\": %" PRIu64 ",\n\"BW_peak\": "
			   "%.2lf,\n\"BW_average\": %.2lf,\n\"MsgRate\": %.6lf", r->bytes, r->iters, peak,
			avg, r->mpps);
	fprintf(f, "\n}\n}\n");
	return fclose(f) == 0 ? 0 : -1;
}

int
perf_json_lat(const struct perf_opts *o, const struct perf_hdr *h, const struct perf_lat *r)
{
	FILE *f = json_open(o);

	if (f == NULL)
		return -1;
	fprintf(f, "{\n");
	json_test_info(f, o, h);
	fprintf(f, "\"results\": {\n");
	if (o->output == PERF_OUT_LAT && o->duration)
		fprintf(f, "\"t_avg\": %lf\n", r->t_avg);
	else if (o->output == PERF_OUT_LAT)
		fprintf(f, "\"avg_lat\": %lf\n", r->t_avg);
	else if (o->duration) /* REPORT_FMT_LAT_DUR_JSON */
		fprintf(f, "\"MsgSize\": %" PRIu64 ",\n\"n_iterations\": %" PRIu64 ",\n\"t_avg\": %.2f,"
			   "\n\"tps_average\": %.2f\n", r->bytes, r->iters, r->t_avg, r->tps);
	else { /* REPORT_FMT_LAT_JSON, then --histogram's three */
		fprintf(f, "\"MsgSize\": %" PRIu64 ",\n\"n_iterations\": %" PRIu64 ",\n\"t_min\": %.2f,"
			   "\n\"t_max\": %.2f,\n\"t_typical\": %.2f,\n\"t_avg\": %.2f,\n\"t_stdev\": "
			   "%.2f,\n\"percentile_99\": %.2f,\n\"percentile_99.9\": %.2f%s\n",
			r->bytes, r->iters, r->t_min, r->t_max, r->t_typical, r->t_avg, r->t_stdev,
			r->p99, r->p999, o->hist_file ? "," : "");
		if (o->hist_file)
			fprintf(f, "\"percentile_50\": %.2f,\n\"percentile_90\": %.2f,\n"
				   "\"max\": %.2f\n", r->p50, r->p90, r->max);
	}
	fprintf(f, "}\n}\n");
	return fclose(f) == 0 ? 0 : -1;
}
