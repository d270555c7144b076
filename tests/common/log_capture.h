/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rte_log() writes, every topic, caught in memory: a test that feeds a
 * bad input checks that the log names the field. EAL need not be up.
 */
#ifndef LOG_CAPTURE_H
#define LOG_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

#include <rte_log.h>

struct log_capture {
	FILE *f;
	char *text;
	size_t len;
};

static inline void
log_capture_start(struct log_capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	if (c->f != NULL)
		rte_openlog_stream(c->f);
}

/* Everything logged since log_capture_start(), "" when nothing. */
static inline const char *
log_capture_text(struct log_capture *c)
{
	if (c->f == NULL)
		return "";
	fflush(c->f);
	return c->text != NULL ? c->text : "";
}

static inline void
log_capture_stop(struct log_capture *c)
{
	rte_openlog_stream(NULL);
	if (c->f != NULL)
		fclose(c->f);
	free(c->text);
	c->f = NULL;
	c->text = NULL;
}

#endif /* LOG_CAPTURE_H */
