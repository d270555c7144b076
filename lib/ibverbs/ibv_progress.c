/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress. A verbs program expects the NIC to move while it sleeps in
 * ibv_get_cq_event(), spins on memory (perftest's latency tests) or waits on
 * a socket (perftest's bandwidth server). Here the NIC is the device's
 * progress engine, run by ordk_dev_poll() / ordk_cq_poll(): the verbs run it
 * when called, and a thread per device runs it otherwise.
 *
 * The thread leaves the device alone while the application polls a CQ (it
 * did within the last OV_HANDS_OFF_US: then it drives the device itself and
 * should not wait for the mutex), and takes the mutex only with trylock
 * (taken: the application is inside a verb). After work it polls again at
 * once, and for OV_SPIN_US after its last work it polls on with a
 * sched_yield() between polls (another runnable thread on the core, such as
 * an application spinning on memory, gets it); only then does it sleep, 1 us
 * at first, doubling up to OV_IDLE_MAX_US (a timer slack of 1 us keeps short
 * sleeps short), each declared to the device first (ordk_dev_idle()): the
 * transport leaves a pause in polling out of its timers and holds, as input
 * piles up unseen meanwhile, unless the poller said it would sleep that long;
 * undeclared, every 200 us sleep would be a gap, and no timer would run while
 * the application is idle. On this project's VMs a sleep of 1-20 us takes 45-90 us
 * (kvm-clock): with the sleeps right after work, perftest's write_bw server,
 * driven by this thread alone, reached 3.1-3.3 GB/s, with the spin 4.1-4.3
 * (ordk-perf's 4.2-4.3), and ib_read_lat 21.8 us typical against 5.3. It
 * runs on the application's core (EAL pinned the thread that opened the
 * device), so an idle device costs a wake-up every OV_IDLE_MAX_US.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "ibv_internal.h"
#include "ordk_env.h"

#define OV_IDLE_MAX_US 200
#define OV_HANDS_OFF_US 20
#define OV_SPIN_US 1000	/* polling on (yielding) after work before the sleeps */
#define OV_BUDGET 64
#define OV_LINGER_US 1000	/* default of ORDK_IBV_LINGER_US (see lingering below) */
#define OV_LINGER_MAX_CREDIT 1024u /* 2^10 */
#define OV_EVENT_SPIN_US 50	/* default of ORDK_IBV_EVENT_SPIN_US (ov_event_spin()) */
#define OV_LINGER_OPEN_MAX 16u /* a linger that follows the peer's request: lengths at most */

/* The channel's event queue: @p c gets one more event (device lock held). */
static void
signal_event(struct ov_cq *c)
{
	struct ov_chan *ch = (struct ov_chan *)c->cq.channel;
	uint64_t one = 1;

	if (c->pending++ == 0) {
		c->ev_next = NULL;
		if (ch->tail != NULL)
			ch->tail->ev_next = c;
		else
			ch->head = c;
		ch->tail = c;
	}
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		OV_LOG(ERR, "completion channel: eventfd write failed: %s\n", strerror(errno));
}

unsigned int
ov_notify_armed(struct ov_dev *d)
{
	unsigned int work = 0;

	for (struct ov_cq *c = d->cqs; c != NULL; c = c->next) {
		uint32_t room, at;
		int k;

		if (!c->armed || c->nstaged == c->cap)
			continue;
		/* one contiguous stretch of the staging ring at a time */
		at = (c->first + c->nstaged) % c->cap;
		room = at >= c->first ? c->cap - at : c->first - at;
		k = ordk_cq_poll(c->o, c->staged + at, (int)room);
		if (k <= 0)
			continue;
		c->nstaged += (uint32_t)k;
		c->armed = false;
		signal_event(c);
		work += (unsigned int)k;
	}
	return work;
}

/*
 * memif faults when polled after its peer left: while the link is down the
 * model leaves its port alone (ordk_dev_port_link()) and the device is
 * polled on, so the transport's timers run: a WR whose peer vanished ends in
 * RETRY_EXC_ERR, and a program waiting in ibv_get_cq_event() gets it (with
 * no polling at all it waited for ever). A device that cannot be told (the
 * card follows its own link) is not polled while its port's link is down.
 * A server's link comes up while it polls (a client's before ibv_open_device()
 * returns): its memif pages are populated then, before the first frame
 * (ordk_env_memif_prefault(); device lock held).
 * @return whether the device may be polled
 */
static bool
link_ok(struct ov_dev *d)
{
	struct rte_eth_link l;
	bool up;

	if (d->port == -1)
		return true;
	up = d->port >= 0 && rte_eth_link_get_nowait((uint16_t)d->port, &l) == 0 && l.link_status;
	if (unlikely(up != d->link_up || !d->link_told)) {
		d->link_told = true;
		d->link_up = up;
		d->port_detached = !up && ordk_dev_port_link(d->dev, up) == 0;
		if (up) {
			(void)ordk_dev_port_link(d->dev, true);
			d->rejoin_wait_ms = 0;
		}
	}
	if (!up && d->port_detached)
		ov_port_rejoin(d); /* a memif client: its next server (ibv_port.c) */
	if (up && unlikely(!d->link_seen)) {
		d->link_seen = true;
		(void)ordk_env_memif_prefault();
	}
	return up || d->port_detached;
}

/*
 * Lingering. perftest's write_lat (and any program that waits for the peer's
 * WRITE by spinning on memory) calls no verb while it waits, so without this
 * only the progress thread, which shares the core with the spinning thread,
 * could place the WRITE. Instead, the ibv_poll_cq() that returns the last
 * outstanding send completion keeps driving the device (like a socket's
 * busy_poll) until a request of the peer (a WRITE, a SEND, a READ, an atomic)
 * sent after the application's last ibv_post_send() has arrived and the
 * device is idle again (its ACK sent, the READ answered), or the linger's
 * length passes (ORDK_IBV_LINGER_US, default OV_LINGER_US).
 *
 * Only when the pattern was seen: the application left an idle device (no
 * signaled send outstanding, none unsignaled after the last signaled one) and
 * the progress thread had work to do before the application called in again.
 * A linger that sees nothing turns it off, unless the peer's request comes
 * before the application posts again (judge()): a peer that answers late
 * keeps it on. Off, it comes back after 2^misses more detections (at most
 * OV_LINGER_MAX_CREDIT), so a program that is merely idle pays at most one
 * bounded linger now and then.
 *
 * The peer answers late while it does not linger itself: its progress thread
 * places our WRITE, sharing its core with an application thread that spins,
 * which on this project's VMs (kernel 6.18, HZ 250) takes 0.3 ms typically
 * and up to a tick, 4 ms. With 100 us lingers that turned off at their first
 * miss, both sides missed at the start, turned lingering off and stayed in
 * that slow state: ib_write_lat ran at 300 us instead of 2.3 us.
 */
/*
 * The peer's packets that arrived at this device's QPs so far, as the sum of
 * their expected PSNs: every request (WRITE, SEND, READ, atomic) takes one or
 * more PSNs. Counters of what was served came too late: the ACKs sent
 * (ib_write_lat sent 9,993 for 5,000 WRITEs, the second for a WRITE often
 * after the application had posted its next one, whose linger took it for
 * the peer's answer and stopped before the answer came). Called after every
 * poll that worked while lingering, so per QP:
 * ordk_dev_stats() walks the whole QP table and reads the model's xstats by
 * name, which made perftest's ping-pong 8x slower.
 */
static uint64_t
peer_psns(const struct ov_dev *d, bool *open)
{
	struct ordk_qp_info in;
	uint64_t n = 0;

	if (open != NULL)
		*open = false;
	for (const struct ov_qp *q = d->qps; q != NULL; q = q->next)
		if (ordk_qp_info(q->o, &in) == 0) {
			n += in.expected_psn;
			if (open != NULL)
				*open |= in.rx_open;
		}
	return n;
}

static void
linger(struct ov_dev *d, struct ov_linger *l)
{
	uint64_t t0 = rte_get_tsc_cycles(), now = t0, last = t0;
	uint64_t cap = l->max * OV_LINGER_OPEN_MAX;
	bool open;
	bool seen = peer_psns(d, &open) != l->peer_psns; /* already, in this very call */

	/*
	 * At most the linger's length, or while the peer's request keeps
	 * arriving, that long after its last packet (at most
	 * OV_LINGER_OPEN_MAX lengths in all): a 4 MiB WRITE takes 2-4 ms here.
	 */
	while (now - (open ? last : t0) < l->max && now - t0 < cap) {
		unsigned int work = 0;

		if (link_ok(d))
			work = ordk_dev_poll(d->dev, OV_BUDGET) + ov_notify_armed(d);
		now = rte_get_tsc_cycles();
		atomic_store_explicit(&d->last_call, now, memory_order_relaxed);
		if (work > 0)
			last = now;
		/*
		 * The peer's request is done with: it came, and the device is
		 * idle. Not in a pause between its packets: lingers that ended
		 * there left the rest of a 1 MiB WRITE to the progress thread,
		 * which shares its core with the application's spin and got it
		 * only when the scheduler preempted that (ib_write_lat 512 KiB
		 * to 2 MiB at t_typical 1.97-2.26 ms, about 2x the wire's time).
		 */
		if (seen && work == 0 && !open)
			break;
		if (work > 0 || open) {
			bool moved = peer_psns(d, &open) != l->peer_psns;

			seen = seen || moved;
		}
	}
	l->n++;
	l->cycles += now - t0;
	l->left_open += open;
	if (seen) {
		l->hits++;
		l->misses = 0;
		return;
	}
	/* off until the application's next post says whether the peer answered late */
	l->on = false;
	l->judging = true;
}

/*
 * At the post after a linger that saw nothing: did the peer's request come in
 * meanwhile? Then it answers, only later than the linger lasted (it did not
 * linger itself yet, or it was descheduled): lingering stays on. Otherwise
 * the application does not wait for its peer after all: off, and it comes
 * back only after 2^misses detections.
 */
static void
judge(struct ov_dev *d, struct ov_linger *l)
{
	l->judging = false;
	if (peer_psns(d, NULL) != l->peer_psns) {
		l->late++;
		l->on = true;
		return;
	}
	if (l->misses < 31)
		l->misses++;
	l->credit = l->misses >= 10 ? OV_LINGER_MAX_CREDIT - 1 : (1u << l->misses) - 1;
}

void
ov_linger_enter(struct ov_dev *d, bool posting)
{
	struct ov_linger *l = &d->linger;

	if (unlikely(l->watching)) {
		l->watching = false;
		/* did the progress thread work for the application while it was away? */
		if (atomic_load_explicit(&d->thread_work, memory_order_relaxed) != l->idle_work) {
			if (l->credit > 0) {
				l->credit--;
			} else if (l->max > 0) {
				l->on = true;
				l->peer_psns = peer_psns(d, NULL);
			}
		}
	}
	if (posting && unlikely(l->judging))
		judge(d, l);
	/*
	 * What the peer sends after this post is its answer to it, whichever
	 * ibv_poll_cq() call takes it in: the peer's WRITE often arrives in a
	 * poll before the one that returns this WRITE's completion (it was sent
	 * right after the ACK), and a count taken per ibv_poll_cq() missed it, so
	 * the linger waited its whole length for a request already there.
	 */
	if (posting && l->on)
		l->peer_psns = peer_psns(d, NULL);
}

void
ov_linger_leave(struct ov_dev *d, uint32_t sends, bool events)
{
	struct ov_linger *l = &d->linger;

	d->sq_out = d->sq_out > sends ? d->sq_out - sends : 0;
	if (events || d->sq_out != 0 || d->unsig_tail != 0)
		return; /* it chose to sleep on events, or the device still has its work */
	if (l->on) {
		linger(d, l);
		return;
	}
	l->watching = true;
	l->idle_work = atomic_load_explicit(&d->thread_work, memory_order_relaxed);
}

/*
 * Busy-polling in ibv_get_cq_event() (a socket's busy_read): before it
 * blocks on the channel's eventfd, the waiting thread drives the device
 * itself until an event of the channel is queued, at most
 * ORDK_IBV_EVENT_SPIN_US (default OV_EVENT_SPIN_US; 0: never). Otherwise
 * every event costs a handover on the core: the progress thread polls,
 * writes the eventfd, the waiter wakes, and each waits for the other to
 * yield. ib_send_lat -e (two events per round trip) measured 31 us with
 * the handover alone, 44-50 us before the waiter released the device
 * (ov_app_wait()), against 8-11 us polling.
 * @return true when the channel has an event (the eventfd will not block).
 */
bool
ov_event_spin(struct ov_dev *d, struct ov_chan *ch)
{
	uint64_t t0 = rte_get_tsc_cycles(), now = t0;
	bool got = false;

	if (d->ev_spin == 0)
		return false;
	while (!got && now - t0 < d->ev_spin) {
		pthread_mutex_lock(&d->lock);
		if (ch->head == NULL && link_ok(d))
			(void)(ordk_dev_poll(d->dev, OV_BUDGET) + ov_notify_armed(d));
		got = ch->head != NULL;
		pthread_mutex_unlock(&d->lock);
		now = rte_get_tsc_cycles();
	}
	d->ev_spins++;
	d->ev_spin_hits += got;
	return got;
}

static void *
progress_main(void *arg)
{
	struct ov_dev *d = arg;
	unsigned int idle_us = 0, busy = 0;
	uint64_t hands_off = d->hands_off;
	uint64_t spin = OV_SPIN_US * rte_get_tsc_hz() / 1000000, last_work = 0;

	prctl(PR_SET_TIMERSLACK, 1000UL);
	/*
	 * An lcore id of its own: without one (LCORE_ID_ANY) every mbuf the
	 * device's port allocates or frees goes through the mempool's ring, with
	 * no per-lcore cache, and comes back cold. A server whose device only this
	 * thread drives (perftest's bandwidth server) spent a tenth of its time in
	 * the ring and copied its frames slower (ib_write_bw at 0.70 of ordk-perf).
	 */
	if (rte_thread_register() != 0)
		OV_LOG(INFO, "progress thread: no lcore id of its own (%s): mbufs without a cache\n",
		       rte_strerror(rte_errno));
	while (!atomic_load_explicit(&d->stop, memory_order_relaxed)) {
		unsigned int work = 0;

		if (rte_get_tsc_cycles() - atomic_load_explicit(&d->last_call, memory_order_relaxed) <
		    hands_off) {
			/* the application is polling: it drives the device */
		} else if (pthread_mutex_trylock(&d->lock) == 0) {
			if (link_ok(d))
				work = ordk_dev_poll(d->dev, OV_BUDGET) + ov_notify_armed(d);
			pthread_mutex_unlock(&d->lock);
			atomic_fetch_add_explicit(&d->thread_polls, 1, memory_order_relaxed);
		}
		if (work > 0) {
			atomic_fetch_add_explicit(&d->thread_work, 1, memory_order_relaxed);
			idle_us = 0;
			last_work = rte_get_tsc_cycles();
			if (++busy % 256 == 0)
				sched_yield(); /* let the application's thread in */
			continue;
		}
		if (rte_get_tsc_cycles() - last_work < spin) {
			sched_yield(); /* traffic: poll on, giving way to any runnable thread */
			continue;
		}
		idle_us = idle_us == 0 ? 1 : (idle_us * 2 > OV_IDLE_MAX_US ? OV_IDLE_MAX_US :
								  idle_us * 2);
		struct timespec ts = { 0, (long)idle_us * 1000 };

		/* a planned pause: the transport's timers run through it (no polling gap) */
		ordk_dev_idle(d->dev, (uint64_t)idle_us * 1000);
		nanosleep(&ts, NULL);
	}
	rte_thread_unregister(); /* the lcore id goes back: a device reopened gets a new thread */
	return NULL;
}

int
ov_progress_start(struct ov_dev *d)
{
	int rc;

	const char *env = getenv("ORDK_IBV_LINGER_US");
	unsigned long us = env != NULL ? strtoul(env, NULL, 10) : OV_LINGER_US;

	d->linger.max = us * rte_get_tsc_hz() / 1000000;
	env = getenv("ORDK_IBV_EVENT_SPIN_US");
	us = env != NULL ? strtoul(env, NULL, 10) : OV_EVENT_SPIN_US;
	d->ev_spin = (us > 1000000 ? 1000000 : us) * rte_get_tsc_hz() / 1000000;
	/* the tests' knob: how long a post or poll keeps the thread off (at most 10 s) */
	env = getenv("ORDK_IBV_HANDS_OFF_US");
	us = env != NULL ? strtoul(env, NULL, 10) : OV_HANDS_OFF_US;
	d->hands_off = (us > 10000000 ? 10000000 : us) * rte_get_tsc_hz() / 1000000;
	atomic_store(&d->stop, false);
	rc = pthread_create(&d->thread, NULL, progress_main, d);
	if (rc != 0) {
		OV_LOG(ERR, "cannot start the progress thread: %s\n", strerror(rc));
		return -rc;
	}
	pthread_setname_np(d->thread, "ordk-progress");
	return 0;
}

void
ov_progress_stop(struct ov_dev *d)
{
	atomic_store(&d->stop, true);
	pthread_join(d->thread, NULL);
}
