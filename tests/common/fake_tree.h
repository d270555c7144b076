/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabricated /sys, /proc and /dev trees for tests of code that reads them
 * under a root directory (ordk-doctor, the VFIO backend's probe).
 */
#ifndef ORDK_FAKE_TREE_H
#define ORDK_FAKE_TREE_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh tree under /tmp (mkdtemp) in @p root (64 bytes). */
static inline void
fake_tree_new(char *root)
{
	snprintf(root, 64, "/tmp/ordk-tree-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static inline void
fake_tree_remove(const char *root)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_expect_eq(system(cmd), 0);
}

/* mkdir -p */
static inline void
fake_mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* Write @p text to @p root/@p rel, making the directories. */
static inline void
fake_put(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX], d[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%.63s%.4000s", root, rel);
	snprintf(d, sizeof(d), "%s", p);
	*strrchr(d, '/') = '\0';
	fake_mkdirs(d);
	f = fopen(p, "w");
	cr_assert_not_null(f, "%s", p);
	fputs(text, f);
	fclose(f);
}

/* @p root/@p rel -> @p target (a sysfs link). */
static inline void
fake_link(const char *root, const char *rel, const char *target)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%.63s%.4000s", root, rel);
	cr_assert_eq(symlink(target, p), 0, "%s", p);
}

/* A Criterion suite whose every test gets a fresh tree in @p root (char[64]). */
#define FAKE_TREE_SUITE(suite, root)                      \
	static void suite##_tree_new(void)                \
	{                                                 \
		fake_tree_new(root);                      \
	}                                                 \
	static void suite##_tree_remove(void)             \
	{                                                 \
		fake_tree_remove(root);                   \
	}                                                 \
	TestSuite(suite, .init = suite##_tree_new, .fini = suite##_tree_remove)

#endif /* ORDK_FAKE_TREE_H */
