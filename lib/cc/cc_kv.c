/* SPDX-License-Identifier: BSD-3-Clause */
/* "key=value" lists (cc_kv.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cc_kv.h"

int
cc_kv_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int
cc_kv_parse(const char *args, cc_kv_set_fn set, void *obj, char *err, size_t errlen)
{
	char buf[512];
	char *save = NULL;

	if (args == NULL)
		return 0;
	if (strlen(args) >= sizeof(buf))
		return cc_kv_fail(err, errlen, "arguments longer than %zu characters",
				  sizeof(buf) - 1);
	strcpy(buf, args);
	for (char *kv = strtok_r(buf, ",", &save); kv != NULL; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		int rc;

		if (eq == NULL)
			return cc_kv_fail(err, errlen, "'%s': expected key=value", kv);
		*eq = '\0';
		rc = set(obj, kv, eq + 1, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}
