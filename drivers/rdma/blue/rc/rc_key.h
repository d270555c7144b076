/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport's own card keys (rc_key.c): an MR-table entry per RECV and
 * per READ, covering exactly its buffer while its operation may be written
 * there. Their states are rc.h's RC_KEY_STATES.
 */
#ifndef RC_KEY_H
#define RC_KEY_H

#include <stdbool.h>
#include <stdint.h>

struct blue_dev;
struct blue_mr;
struct blue_qp;

/*
 * A card MR-table entry of the transport's own (rc_key.c) covering exactly
 * one buffer while one operation may be written there: a RECV's, a READ's.
 */
struct rc_key {
	uint32_t key;	     /* slot << 8 | key part */
	uint32_t seq;	     /* the command that created it (REVOKING: that revoked it) */
	uint32_t pgt_offset; /* PGT index of the buffer's first page (from the user's MR) */
	uint8_t state;	     /* rc_key_state */
};

/** PGT index of @p addr's page, inside MR @p m. */
uint32_t rc_key_pgt(const struct blue_mr *m, uint64_t addr);
/**
 * Make sure @p k, for [@p addr, @p addr + @p len) with access @p acc, is
 * known to the card: created (counted in *@p short_count while no slot is
 * free), then confirmed. Never waits. @return true once it is.
 */
bool rc_key_ready(struct blue_qp *qp, struct rc_key *k, uint64_t addr, uint32_t len, uint8_t acc,
		  uint64_t *short_count);
/** Its operation ended: the revocation of @p k (PENDING, READY) goes, or waits for room (REVOKE). */
void rc_key_revoke(struct blue_dev *dev, struct rc_key *k);
/** Submit a revocation that waited for room. @return false while it still waits. */
bool rc_key_revoke_step(struct blue_dev *dev, struct rc_key *k);
/** Does the card no longer know @p k (none, or its revocation confirmed)? (No submission.) */
bool rc_key_gone(struct blue_dev *dev, struct rc_key *k);
/** Its owner went away: @p k is revoked now or from the engine's queue; it is none. */
void rc_key_orphan(struct blue_dev *dev, struct rc_key *k);
/** The engine's turn: revocations of keys whose owners are gone, that waited for room. */
void rc_key_revoke_run(struct blue_dev *dev);

#endif /* RC_KEY_H */
