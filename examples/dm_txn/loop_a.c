/* SPDX-License-Identifier: BSD-3-Clause */
/* Loop A (see loop_a.h). One lcore: no locking. */
#include <string.h>

#include "loop_a.h"

#define SLOTS 8192u /* per-key state, direct-mapped by the key's hash */
#define MIN_TRIES 4u /* a key's period counts only with this many transactions */

struct slot {
	uint64_t key;
	uint32_t inflight, limit, tries, aborts;
	bool used;
};

static struct la_cfg cfg;
static struct slot slot[SLOTS];
static uint32_t active, window, tries, aborts; /* worker mode */
static double next_tick;
static uint64_t periods, hot_periods;

void
la_init(const struct la_cfg *c)
{
	cfg = *c;
	if (cfg.nf < 2)
		cfg.nf = 2;
	if (cfg.ai_step == 0)
		cfg.ai_step = 1;
	memset(slot, 0, sizeof(slot));
	window = cfg.max;
	active = tries = aborts = 0;
	next_tick = 0;
}

static struct slot *
slot_of(uint64_t key)
{
	return &slot[(key * 0x9E3779B97F4A7C15ull) >> 51]; /* 13 bits: SLOTS */
}

bool
la_admit(const uint64_t *keys, unsigned int n)
{
	if (cfg.mode == LA_OFF)
		return true;
	if (cfg.mode == LA_WORKER) {
		if (active >= window)
			return false;
		active++;
		return true;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct slot *s = slot_of(keys[i]);

		if (s->used && s->key == keys[i] && s->inflight >= s->limit)
			return false;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct slot *s = slot_of(keys[i]);

		if (!s->used || (s->key != keys[i] && s->inflight == 0)) /* take a quiet slot */
			*s = (struct slot){ .key = keys[i], .limit = cfg.max, .used = true };
		if (s->key == keys[i])
			s->inflight++;
	}
	return true;
}

void
la_done(const uint64_t *keys, unsigned int n, bool committed)
{
	if (cfg.mode == LA_WORKER) {
		active -= active > 0;
		tries++;
		aborts += !committed;
		return;
	}
	if (cfg.mode != LA_KEY)
		return;
	for (unsigned int i = 0; i < n; i++) {
		struct slot *s = slot_of(keys[i]);

		if (!s->used || s->key != keys[i] || s->inflight == 0)
			continue; /* a key that found its slot taken was not tracked */
		s->inflight--;
		s->tries++;
		s->aborts += !committed;
	}
}

/* AIMD on one window. @return true when the period was hot. */
static bool
aimd(uint32_t *w, uint32_t t, uint32_t a)
{
	bool hot = (double)a > cfg.hi * (double)t;

	if (hot)
		*w = *w / cfg.nf > 0 ? *w / cfg.nf : 1;
	else
		*w = *w + cfg.ai_step < cfg.max ? *w + cfg.ai_step : cfg.max;
	return hot;
}

void
la_tick(double now)
{
	if (cfg.mode == LA_OFF || now < next_tick)
		return;
	next_tick = now + cfg.period_s;
	periods++;
	if (cfg.mode == LA_WORKER) {
		if (tries >= MIN_TRIES)
			hot_periods += aimd(&window, tries, aborts);
		tries = aborts = 0;
		return;
	}
	for (unsigned int i = 0; i < SLOTS; i++) {
		struct slot *s = &slot[i];

		if (!s->used || s->tries < MIN_TRIES)
			continue;
		hot_periods += aimd(&s->limit, s->tries, s->aborts);
		s->tries = s->aborts = 0;
	}
}

void
la_report(FILE *f)
{
	unsigned int narrow = 0, lo = cfg.max;

	if (cfg.mode == LA_OFF)
		return;
	for (unsigned int i = 0; i < SLOTS; i++)
		if (slot[i].used && slot[i].limit < cfg.max) {
			narrow++;
			lo = slot[i].limit < lo ? slot[i].limit : lo;
		}
	if (cfg.mode == LA_WORKER)
		fprintf(f, " loop_a: worker window %u of %u; %lu periods, %lu hot\n", window, cfg.max,
			(unsigned long)periods, (unsigned long)hot_periods);
	else
		fprintf(f, " loop_a: per key; %u keys narrowed now (narrowest %u of %u); %lu periods, "
			   "%lu hot key-periods\n", narrow, lo, cfg.max, (unsigned long)periods,
			(unsigned long)hot_periods);
}
