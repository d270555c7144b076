/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/env/env_memif.c: a net_memif server's claim of its socket file before
 * its port is created. A file nobody listens on (a process that ended with
 * its port, as qperf -cm1's per-test server does) is removed; one that a
 * server still listens on is waited for, then refused; anything that is not
 * a memif server's socket file is left alone.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ordk_env.h"

static char path[108], vdev[256];

static void
setup(void)
{
	snprintf(path, sizeof(path), "/tmp/ordk-ut-memif-%d.sock", (int)getpid());
	snprintf(vdev, sizeof(vdev), "net_memif0,role=server,socket=%s,socket-abstract=no,bsize=8192",
		 path);
	unlink(path);
}

static void
teardown(void)
{
	unlink(path);
}

TestSuite(env_memif, .init = setup, .fini = teardown);

/* A unix socket bound at path; listening or not. @return its fd. */
static int
bound(bool listening)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	cr_assert_geq(fd, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0, "%s", strerror(errno));
	if (listening)
		cr_assert_eq(listen(fd, 1), 0);
	return fd;
}

static bool
exists(void)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

Test(env_memif, a_file_nobody_listens_on_is_removed)
{
	close(bound(true)); /* the server's process ended: its file stays */
	cr_assert(exists());
	cr_assert(!ordk_env_unix_listening(path));
	cr_assert_eq(ordk_env_memif_claim(vdev, 1.0), 1);
	cr_assert(!exists());
	cr_assert_eq(ordk_env_memif_claim(vdev, 1.0), 0, "nothing there: nothing to do");
}

Test(env_memif, a_listening_server_is_not_taken_over)
{
	int fd = bound(true);

	cr_assert(ordk_env_unix_listening(path));
	cr_assert_eq(ordk_env_memif_claim(vdev, 0.05), -EADDRINUSE);
	cr_assert(exists());
	close(fd);
}

static void *
close_later(void *arg)
{
	usleep(100 * 1000);
	close(*(int *)arg);
	return NULL;
}

Test(env_memif, a_server_that_is_ending_is_waited_for)
{
	int fd = bound(true);
	pthread_t t;
	double t0 = ordk_env_wall_s();

	cr_assert_eq(pthread_create(&t, NULL, close_later, &fd), 0);
	cr_assert_eq(ordk_env_memif_claim(vdev, 5.0), 1);
	cr_assert_geq(ordk_env_wall_s() - t0, 0.09, "it waited for the listener to go");
	cr_assert(!exists());
	pthread_join(t, NULL);
}

Test(env_memif, other_vdevs_and_files_are_left_alone)
{
	char v[300];
	FILE *f;

	close(bound(false));
	snprintf(v, sizeof(v), "net_memif0,role=client,socket=%s,socket-abstract=no", path);
	cr_assert_eq(ordk_env_memif_claim(v, 0.05), 0, "a client");
	snprintf(v, sizeof(v), "net_memif0,role=server,socket=%s", path);
	cr_assert_eq(ordk_env_memif_claim(v, 0.05), 0, "an abstract name (memif's default)");
	snprintf(v, sizeof(v), "net_ring0,socket=%s,socket-abstract=no", path);
	cr_assert_eq(ordk_env_memif_claim(v, 0.05), 0, "not memif");
	cr_assert_eq(ordk_env_memif_claim(NULL, 0.05), 0);
	cr_assert(exists());
	unlink(path);
	f = fopen(path, "w"); /* not a socket: memif's own bind says what is wrong */
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(ordk_env_memif_claim(vdev, 0.05), 0);
	cr_assert(exists());
}
