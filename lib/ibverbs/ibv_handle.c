/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handles an application holds are pointers into our wrappers (struct
 * ov_qp starts with its struct ibv_qp, and so on). A verb that gets a handle
 * checks the wrapper's magic, so a handle already destroyed is refused with
 * EINVAL instead of being used. For that the memory behind a destroyed
 * handle must not come back as another object at once: a second
 * ibv_destroy_qp() would destroy whichever QP malloc() put at the same
 * address. A destroyed wrapper keeps its memory, marked dead, among the last
 * OV_RETIRED_MAX destroyed ones; only the oldest is given back.
 */
#include <stdlib.h>

#include "ibv_internal.h"

#define OV_RETIRED_MAX 4096u

static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static void *retired[OV_RETIRED_MAX];
static uint32_t retired_next, retired_count;

void
ov_retire(void *wrapper, uint32_t *magic)
{
	void *oldest = NULL;

	*magic = OV_MAGIC_DEAD;
	pthread_mutex_lock(&retired_lock);
	if (retired_count == OV_RETIRED_MAX)
		oldest = retired[retired_next];
	else
		retired_count++;
	retired[retired_next] = wrapper;
	retired_next = (retired_next + 1) % OV_RETIRED_MAX;
	pthread_mutex_unlock(&retired_lock);
	free(oldest);
}
