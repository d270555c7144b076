/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "mem_internal.h"

Test(mem_keys, exhaustion_reuse_and_stale_keys)
{
	struct mem_keys k;
	static uint32_t keys[8192];

	cr_assert_eq(mem_keys_init(&k, 8192, 0, 1), 0);
	for (uint32_t i = 0; i < 8192; i++) {
		int64_t key = mem_keys_alloc(&k);

		cr_assert_geq(key, 0, "slot %u", i);
		keys[i] = (uint32_t)key;
		cr_assert(mem_keys_valid(&k, keys[i]));
	}
	cr_assert_eq(mem_keys_alloc(&k), -1, "8192 slots: the 8193rd fails");
	/* slots are distinct */
	for (uint32_t i = 1; i < 8192; i++)
		cr_assert_neq(keys[i] >> 8, keys[i - 1] >> 8);
	cr_assert_eq(mem_keys_free(&k, keys[100]), 0);
	cr_assert_eq(mem_keys_free(&k, keys[100]), -1, "double free");
	cr_assert_not(mem_keys_valid(&k, keys[100]));
	int64_t again = mem_keys_alloc(&k);

	cr_assert_eq((uint32_t)again >> 8, keys[100] >> 8, "the freed slot is reused");
	cr_assert_neq((uint32_t)again & 0xFF, keys[100] & 0xFF, "with a new key part");
	cr_assert_not(mem_keys_valid(&k, keys[100]), "the stale key stays invalid");
	cr_assert_eq(mem_keys_free(&k, keys[100]), -1, "a stale key frees nothing");
	cr_assert(mem_keys_valid(&k, (uint32_t)again));
	cr_assert_eq(mem_keys_free(&k, 0xFFFFFF00u), -1, "slot out of range");
	mem_keys_fini(&k);
}

Test(mem_keys, reserved_slot_zero_for_qpns)
{
	struct mem_keys k;

	cr_assert_eq(mem_keys_init(&k, 1024, 1, 7), 0);
	for (int i = 0; i < 1023; i++) {
		int64_t q = mem_keys_alloc(&k);

		cr_assert_geq(q >> 8, 1, "index 0 is reserved");
		cr_assert_lt(q >> 8, 1024);
	}
	cr_assert_eq(mem_keys_alloc(&k), -1);
	cr_assert_not(mem_keys_valid(&k, 0x00FF));
	mem_keys_fini(&k);
	cr_assert_eq(mem_keys_init(&k, 0, 0, 0), -EINVAL);
	cr_assert_eq(mem_keys_init(&k, 4, 4, 0), -EINVAL);
}

/*
 * Issue 12 item 10: the card checks no PD, so a key must not follow from
 * other keys. Two allocators seeded alike hand out different keys (a seeded
 * PRNG gave the same sequence, and a few observed keys revealed its state),
 * and consecutive keys do not sit in consecutive slots.
 */
Test(mem_keys, keys_do_not_follow_from_each_other)
{
	struct mem_keys a, b;
	unsigned int same = 0, next_slot = 0, parts[256] = { 0 };
	int64_t prev = -1;

	cr_assert_eq(mem_keys_init(&a, 8192, 0, 1), 0);
	cr_assert_eq(mem_keys_init(&b, 8192, 0, 1), 0);
	for (int i = 0; i < 4096; i++) {
		int64_t ka = mem_keys_alloc(&a), kb = mem_keys_alloc(&b);

		cr_assert(ka >= 0 && kb >= 0);
		same += ka == kb;
		next_slot += prev >= 0 && (ka >> 8) == (prev >> 8) + 1;
		parts[ka & 0xFF]++;
		prev = ka;
	}
	/* by chance: about 4096 / 2^21 equal keys and 4096 / 8192 neighbours, on average */
	cr_assert_lt(same, 8, "%u of 4096 keys repeat across allocators seeded alike", same);
	cr_assert_lt(next_slot, 64, "%u of 4096 keys in the slot after the previous key's",
		     next_slot);
	for (int v = 0; v < 256; v++)
		cr_assert_lt(parts[v], 64, "key part 0x%02x %u times in 4096", v, parts[v]);
	mem_keys_fini(&a);
	mem_keys_fini(&b);
}
