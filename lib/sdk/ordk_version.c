/* SPDX-License-Identifier: BSD-3-Clause */
#include "ordk_version.h"

const char *
ordk_version(void)
{
	return ORDK_VERSION;
}
