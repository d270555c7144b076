/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-testpmd: testpmd's console for RDMA over two local bluesim devices.
 *
 *   ordk-testpmd [EAL args --] [--cmdfile FILE] [-d devargs] [-h]
 *
 * -d adds bluesim devargs to both devices (e.g. fault=drop:0.01,seed=7).
 * Commands come from FILE first, then from the terminal (or from stdin when
 * it is not a terminal). Without EAL arguments: --no-pci, one lcore,
 * hugepages when free, a unique --file-prefix.
 */
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_rdline.h>
#include <cmdline_socket.h>
#include <rte_eal.h>

#include "app_common.h"
#include "tp.h"

#define PROMPT "testpmd> "

static void
usage(FILE *f)
{
	fprintf(f, "usage: ordk-testpmd [EAL args --] [-i] [--cmdline-file=FILE] [-d bluesim devargs] "
		   "[-h]\n  (--cmdfile FILE is the same as --cmdline-file)\n"
		   "  two bluesim devices on a net_ring pair; type 'help' at the prompt\n");
}

/*
 * Commands from a file (or a pipe), one per line, echoed after the prompt;
 * '#' starts a comment. Parse errors are reported as the terminal reports them.
 */
static int
run_file(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	struct cmdline *cl;
	char line[512];

	if (f == NULL) {
		fprintf(stderr, "ordk-testpmd: cannot read commands from %s\n", path);
		return -1;
	}
	/* no prompt of its own (each command is echoed after one), errors on stdout */
	cl = cmdline_new(tp_cmd_ctx, "", -1, 1);
	while (cl != NULL && !tp.quit && fgets(line, sizeof(line), f) != NULL) {
		size_t n = strcspn(line, "\r\n");

		if (n >= sizeof(line) - 1) {
			printf("ordk-testpmd: a command line longer than %zu bytes\n", sizeof(line) - 2);
			continue;
		}
		int rc;

		line[n] = '\0';
		if (line[strspn(line, " \t")] == '\0' || line[strspn(line, " \t")] == '#')
			continue;
		printf("%s%s\n", PROMPT, line);
		line[n] = '\n'; /* cmdline_parse() wants the line's end */
		line[n + 1] = '\0';
		rc = cmdline_parse(cl, line);
		if (rc == CMDLINE_PARSE_AMBIGUOUS)
			printf("Ambiguous command\n");
		else if (rc == CMDLINE_PARSE_NOMATCH)
			printf("Command not found\n");
		else if (rc == CMDLINE_PARSE_BAD_ARGS)
			printf("Bad arguments\n");
	}
	if (cl != NULL)
		cmdline_free(cl);
	if (f != stdin)
		fclose(f);
	return cl == NULL ? -1 : 0;
}

/* The terminal: cmdline_poll() reads what was typed while the devices keep polling. */
static void
run_terminal(void)
{
	struct cmdline *cl = cmdline_stdin_new(tp_cmd_ctx, PROMPT);

	if (cl == NULL)
		return;
	while (!tp.quit) {
		struct pollfd p = { .fd = 0, .events = POLLIN };

		if (poll(&p, 1, tp.running ? 0 : 1) > 0 && cmdline_poll(cl) == RDLINE_EXITED)
			break;
		tp_step();
	}
	cmdline_stdin_exit(cl);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = { { "cmdfile", required_argument, NULL, 'f' },
					    { "cmdline-file", required_argument, NULL, 'f' },
					    { "interactive", no_argument, NULL, 'i' },
					    { "help", no_argument, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	const char *cmdfile = NULL, *extra = "";
	struct ordk_env_eal d = { .prog = argv[0], .prefix = "ordk-testpmd", .lcore = 0,
				  .mem_mb = 512 };
	int dd = -1, first, c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dd = i;
			break;
		}
	first = dd >= 0 ? dd : 0;
	{
		char *prog = argv[first];

		argv[first] = argv[0];
		opterr = 0;
		while ((c = getopt_long(argc - first, argv + first, "d:ih", lo, NULL)) != -1) {
			switch (c) {
			case 'i': /* testpmd's interactive mode: the prompt is what this tool has */
				break;
			case 'f':
				cmdfile = optarg;
				break;
			case 'd':
				extra = optarg;
				if (strncmp(extra, "bluesim", 7) == 0)
					extra += extra[7] == ',' ? 8 : 7;
				break;
			case 'h':
				usage(stdout);
				return 0;
			default:
				fprintf(stderr, "ordk-testpmd: %s: unknown option or missing value\n",
					argv[first + optind - 1]);
				usage(stderr);
				return 1;
			}
		}
		if (first + optind < argc) {
			fprintf(stderr, "ordk-testpmd: %s: unexpected argument\n", argv[first + optind]);
			return 1;
		}
		argv[first] = prog;
	}
	if (app_eal_init(dd >= 0 ? dd : 1, argv, dd >= 0, &d) != 0)
		return 1;
	if (tp_init(extra) != 0) {
		tp_fini();
		ordk_env_eal_cleanup();
		return 1;
	}
	if (cmdfile != NULL && run_file(cmdfile) != 0) {
		tp_fini();
		ordk_env_eal_cleanup();
		return 1; /* testpmd: a command file it cannot read ends the run */
	}
	if (!tp.quit) {
		if (isatty(0))
			run_terminal();
		else if (cmdfile == NULL)
			run_file("-");
	}
	if (tp.running)
		tp_stop();
	printf("Bye...\n");
	tp_fini();
	ordk_env_eal_cleanup();
	return 0;
}
