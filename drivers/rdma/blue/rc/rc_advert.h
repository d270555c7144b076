/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RECV adverts both ways (rc_ctrl.c): the receiver advertises each posted
 * RECV with its own card key, the sender acknowledges them and says how many
 * it wants, unacknowledged ones go out again; and the question a sender asks
 * before it calls the receiver not ready (a lost advert is no RNR).
 * Included by rc.h after enum rc_step.
 */
#ifndef RC_ADVERT_H
#define RC_ADVERT_H

struct blue_qp;

/** Advertise posted RECVs not advertised yet. @return RC_MORE when some could not go. */
enum rc_step rc_send_adverts(struct blue_qp *qp);
/** Tell the peer which of its adverts arrived, and how many it wants. RC_MORE: not sent. */
enum rc_step rc_send_advert_ack(struct blue_qp *qp);
/** Does the sender want adverts it has not said it wants (or said a timeout ago)? */
bool rc_want_due(const struct blue_qp *qp, uint64_t now);
/** Adverts the peer has not acknowledged within the QP's timeout (polling time) go out again. */
void rc_advert_rewind(struct blue_qp *qp);
/** @return RC_MORE while the peer has not acknowledged every advert. */
enum rc_step rc_advert_pending(const struct blue_qp *qp);
/**
 * The sender's RNR budget ran out with no advert: ask the receiver what it
 * posted (RECV_ADVERT_ACK with BLUE_CTRL_F_ASK). @return true if it went.
 */
bool rc_rnr_ask(struct blue_qp *qp);
/** The receiver was asked: say what it posted (RECV_STATE). RC_MORE: not sent. */
enum rc_step rc_send_recv_state(struct blue_qp *qp);

#endif /* RC_ADVERT_H */
