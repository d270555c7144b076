/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ABI markers of ORDK's installed headers.
 *
 * libordk exports the functions its version map (lib/sdk/libordk.map) lists,
 * in one of two nodes:
 * - ORDK_<major>: the stable API; a function there keeps its name, prototype
 *   and behaviour for as long as the library's major version does.
 * - EXPERIMENTAL: functions that may change or go in any release, without a
 *   new major version: hooks for tests and tools into the model and the
 *   transport. Their declarations carry ORDK_EXPERIMENTAL.
 *
 * A program that calls an experimental function gets a compiler warning
 * (the deprecated attribute) unless it defines ORDK_ALLOW_EXPERIMENTAL_API
 * before including any ORDK header (`-DORDK_ALLOW_EXPERIMENTAL_API`), which
 * says that it accepts to follow their changes. ORDK's own code is built with it.
 */
#ifndef ORDK_COMPAT_H
#define ORDK_COMPAT_H

#ifdef ORDK_ALLOW_EXPERIMENTAL_API
#define ORDK_EXPERIMENTAL
#else
#define ORDK_EXPERIMENTAL                                                                      \
	__attribute__((deprecated("an experimental ORDK function (ordk_compat.h): "            \
				  "define ORDK_ALLOW_EXPERIMENTAL_API to use it")))
#endif

#endif /* ORDK_COMPAT_H */
