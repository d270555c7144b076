/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real services for tests: a memcached or redis-server on 127.0.0.1 (or
 * the address given) and a free port, started by the test and stopped by
 * its PID. Ready means it answers a TCP connect.
 */
#ifndef ORDK_TEST_SVC_SERVER_H
#define ORDK_TEST_SVC_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct svc {
	pid_t pid;
	uint16_t port;
};

/* A port nobody listens on now (the kernel's pick for port 0). */
static inline uint16_t
svc_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint16_t p = 0;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &l) == 0)
		p = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return p;
}

static inline bool
svc_answers(const char *ip, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	inet_pton(AF_INET, ip, &a.sin_addr);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Start @p kind ("memcached" or "redis") bound to @p ip. @return 0 or -1. */
static inline int
svc_start(struct svc *s, const char *kind, const char *ip)
{
	char port[8];
	struct timespec t0, t;

	s->port = svc_free_port();
	snprintf(port, sizeof(port), "%u", s->port);
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		if (kind[0] == 'm')
			execlp("memcached", "memcached", "-l", ip, "-p", port, "-U", "0", "-m", "16",
			       "-u", "root", (char *)NULL);
		else
			execlp("redis-server", "redis-server", "--bind", ip, "--port", port, "--save",
			       "", "--appendonly", "no", "--daemonize", "no", "--loglevel",
			       "warning", (char *)NULL);
		_exit(127);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do { /* ready when it answers; give up after 10 s */
		int st;

		if (svc_answers(ip, s->port))
			return 0;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			return -1;
		}
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 10);
	return -1;
}

static inline void
svc_stop(struct svc *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

#endif /* ORDK_TEST_SVC_SERVER_H */
