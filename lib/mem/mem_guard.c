/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guarded access to application memory: memory unmapped (or made read-only)
 * under a live MR must fail the access that touches it, as an IOMMU fault
 * would on a card, never kill the process with SIGSEGV. A SIGSEGV/SIGBUS
 * handler is installed once per process; a guarded access arms it with a
 * sigsetjmp that does not save the signal mask (no system call), and the
 * handler jumps back out of a faulting access. SA_NODEFER leaves the signal
 * unblocked after the jump. Faults outside a guarded access go to whoever
 * handled the signal before (or the default action).
 */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>

#include "mem_internal.h"

__thread sigjmp_buf *mem_guard_env;
static struct sigaction guard_old[2]; /* SIGSEGV, SIGBUS */
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void
guard_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = &guard_old[sig == SIGBUS];
	sigjmp_buf *env = mem_guard_env;

	if (env != NULL) {
		mem_guard_env = NULL;
		siglongjmp(*env, 1);
	}
	if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, si, uc);
	else if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL)
		old->sa_handler(sig);
	else
		sigaction(sig, old, NULL); /* the fault repeats with the default action */
}

static void
guard_install(void)
{
	struct sigaction sa = { .sa_sigaction = guard_handler,
				.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &guard_old[0]);
	sigaction(SIGBUS, &sa, &guard_old[1]);
}

void
mem_guard_init(void)
{
	pthread_once(&guard_once, guard_install);
}
