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
