/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Blue driver's own devargs (blue_args.c): mac=, ip= (the address the
 * card gets with SetNetworkParam), trace= (the QPs' event timelines) and the
 * congestion-control keys (blue_cc.c).
 * A backend's keys are its own (struct blue_backend_provider).
 */
#ifndef BLUE_ARGS_H
#define BLUE_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "ordk_devargs.h"

struct blue_cc_args;

/** The driver's devargs: the card's address (SetNetworkParam), congestion control. */
struct blue_net_args {
	uint64_t mac;
	uint32_t ip;
	uint32_t trace;		 /* trace=: events each QP's timeline keeps (0: none) */
	struct blue_cc_args *cc; /* cc=, cc_trace=, cc_<key>= (blue_cc.c) */
};

/*
 * The cc_<key>= devargs: lib/cc's cc_params_parse() keys, each listed (an
 * unknown cc_ key is refused like any unknown key).
 */
#define BLUE_CC_KEYS(X)                                                                 \
	X(max_rate) X(min_rate) X(rai) X(rhai) X(g) X(alpha_init) X(alpha_us) X(timer_us) \
	X(byte_counter) X(fr_steps) X(item_pkts) X(burst_us) X(cut_gap_us)
#define BLUE_CC_KEY_ONE(k) +1u
#define BLUE_CC_KEY_DECL(k) int blue_cc_arg_##k(const char *v, void *arg, char *err, size_t errlen);
BLUE_CC_KEYS(BLUE_CC_KEY_DECL)
int blue_cc_arg_on(const char *v, void *arg, char *err, size_t errlen);
int blue_cc_arg_trace(const char *v, void *arg, char *err, size_t errlen);

/* mac=, ip=, trace=, cc=, cc_trace= and the cc_<key>= */
#define BLUE_NET_DEVARGS_COUNT (5u BLUE_CC_KEYS(BLUE_CC_KEY_ONE))
/** The driver's keys: backends accept them as another owner's keys. */
extern const struct ordk_devarg blue_net_devargs[BLUE_NET_DEVARGS_COUNT];

/**
 * The driver's pass over @p args: mac= and ip= into @p net (left as they are
 * when absent), the congestion-control keys into net->cc; the backend's @p n
 * keys accepted, every other key refused.
 * @return 0 or -EINVAL with the reason in @p err.
 */
int blue_net_args_parse(const char *args, const struct ordk_devarg *backend_keys, unsigned int n,
			struct blue_net_args *net, char *err, size_t errlen);

#endif /* BLUE_ARGS_H */
