/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Meta reports (doc/guides/drivers/blue_hw_interface.md section 3.3): PacketBasicInfo with its
 * ReadReqExtendInfo, Ack with its AckExtra; the kind of a report follows from
 * its opcode and flags.
 */
#include "blue_desc_fields.h"

static bool
meta_ack_flags_ok(enum blue_meta_kind *kind, uint8_t hw, uint8_t drv, bool pair)
{
	if (hw && drv)
		return false;
	if (!pair) {
		if (drv)
			*kind = BLUE_META_ACK_REMOTE_DRIVER;
		else if (hw)
			*kind = BLUE_META_ACK_LOCAL_HW;
		else
			return false; /* "any other combination" */
	} else {
		*kind = drv ? BLUE_META_NAK_REMOTE_DRIVER
			: hw ? BLUE_META_NAK_LOCAL_HW : BLUE_META_NAK_REMOTE_HW;
	}
	return true;
}

int
blue_meta_decode(const void *d0, const void *d1, struct blue_meta_report *rep)
{
	struct blue_desc_words w0, w1, *dw;
	struct blue_meta_report *s = rep;
	struct blue_desc_hdr h0, h1;
	uint8_t trans, op;

	if (d0 == NULL || rep == NULL)
		return BLUE_DESC_E_ARG;
	memset(rep, 0, sizeof(*rep));
	blue_desc_load(&w0, d0);
	blue_desc_hdr_decode(&w0, &h0);
	rep->opcode = h0.opcode;
	rep->ndesc = 1;
	if (h0.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	trans = BLUE_BTH_TRANS(h0.opcode);
	op = BLUE_BTH_OP(h0.opcode);
	if (trans != BLUE_TRANS_RC || op > BLUE_OP_MAX_RC)
		return BLUE_DESC_E_OPCODE;

	if (h0.has_next) {
		int rc = blue_desc_second(d1, &h0, &w1, &h1);

		if (rc != BLUE_DESC_OK)
			return rc;
		rep->ndesc = 2;
	}

	dw = &w0;
	if (op == BLUE_OP_ACKNOWLEDGE) {
		if (blue_desc_reserved(&w0, BLUE_LAYOUT_META_ACK))
			return BLUE_DESC_E_RESERVED;
		META_ACK_FIELDS(DEC)
		/* AckExtra follows exactly when the window slided (section 3.3). */
		if (rep->ack.is_window_slided != h0.has_next)
			return BLUE_DESC_E_COMBINATION;
		if (!meta_ack_flags_ok(&rep->kind, rep->ack.is_send_by_local_hw,
				       rep->ack.is_send_by_driver, h0.has_next))
			return BLUE_DESC_E_COMBINATION;
		if (h0.has_next) {
			if (blue_desc_reserved(&w1, BLUE_LAYOUT_META_ACK_EXTRA))
				return BLUE_DESC_E_RESERVED;
			dw = &w1;
			META_ACK_EXTRA_FIELDS(DEC)
		}
		return rep->ndesc;
	}

	if (blue_desc_reserved(&w0, BLUE_LAYOUT_META_BASIC))
		return BLUE_DESC_E_RESERVED;
	META_BASIC_FIELDS(DEC)
	if (op == BLUE_OP_READ_REQUEST) {
		/* A READ request is always reported with its ReadReqExtendInfo. */
		if (!h0.has_next)
			return BLUE_DESC_E_COMBINATION;
		if (blue_desc_reserved(&w1, BLUE_LAYOUT_META_READ_EXT))
			return BLUE_DESC_E_RESERVED;
		dw = &w1;
		META_READ_EXT_FIELDS(DEC)
		rep->kind = BLUE_META_HEADER_READ;
		return rep->ndesc;
	}
	if (h0.has_next)
		return BLUE_DESC_E_HAS_NEXT; /* only READ requests and ACKs have two */
	rep->kind = rep->basic.ecn_marked ? BLUE_META_CNP : BLUE_META_HEADER_WRITE;
	return rep->ndesc;
}

int
blue_meta_encode(const struct blue_meta_report *rep, void *d0, void *d1)
{
	struct blue_desc_words w0 = { { 0 } }, w1 = { { 0 } }, *dw;
	struct blue_meta_report tmp;
	const struct blue_meta_report *s = &tmp;
	struct blue_desc_hdr h;
	uint8_t op;
	int n;

	if (rep == NULL || d0 == NULL)
		return BLUE_DESC_E_ARG;
	tmp = *rep;
	op = BLUE_BTH_OP(rep->opcode);
	if (BLUE_BTH_TRANS(rep->opcode) != BLUE_TRANS_RC || op > BLUE_OP_MAX_RC)
		return BLUE_DESC_E_OPCODE;

	switch (rep->kind) {
	case BLUE_META_HEADER_WRITE:
	case BLUE_META_CNP:
		if (op == BLUE_OP_READ_REQUEST || op == BLUE_OP_ACKNOWLEDGE)
			return BLUE_DESC_E_COMBINATION;
		tmp.basic.ecn_marked = rep->kind == BLUE_META_CNP;
		n = 1;
		break;
	case BLUE_META_HEADER_READ:
		if (op != BLUE_OP_READ_REQUEST)
			return BLUE_DESC_E_COMBINATION;
		n = 2;
		break;
	case BLUE_META_ACK_REMOTE_DRIVER:
	case BLUE_META_ACK_LOCAL_HW:
	case BLUE_META_NAK_REMOTE_DRIVER:
	case BLUE_META_NAK_LOCAL_HW:
	case BLUE_META_NAK_REMOTE_HW:
		if (op != BLUE_OP_ACKNOWLEDGE)
			return BLUE_DESC_E_COMBINATION;
		n = rep->kind >= BLUE_META_NAK_REMOTE_DRIVER ? 2 : 1;
		tmp.ack.is_window_slided = n == 2;
		tmp.ack.is_send_by_driver = rep->kind == BLUE_META_ACK_REMOTE_DRIVER ||
					    rep->kind == BLUE_META_NAK_REMOTE_DRIVER;
		tmp.ack.is_send_by_local_hw = rep->kind == BLUE_META_ACK_LOCAL_HW ||
					      rep->kind == BLUE_META_NAK_LOCAL_HW;
		break;
	default:
		return BLUE_DESC_E_ARG;
	}
	if (n == 2 && d1 == NULL)
		return BLUE_DESC_E_NEED_NEXT;

	h = (struct blue_desc_hdr){ .opcode = rep->opcode, .has_next = n == 2, .valid = 1 };
	dw = &w0;
	blue_desc_hdr_encode(dw, &h);
	if (op == BLUE_OP_ACKNOWLEDGE) {
		META_ACK_FIELDS(ENC)
	} else {
		META_BASIC_FIELDS(ENC)
	}
	if (n == 2) {
		h.has_next = 0;
		dw = &w1;
		blue_desc_hdr_encode(dw, &h);
		if (op == BLUE_OP_ACKNOWLEDGE) {
			META_ACK_EXTRA_FIELDS(ENC)
		} else {
			META_READ_EXT_FIELDS(ENC)
		}
		blue_desc_store(&w1, d1);
	}
	blue_desc_store(&w0, d0);
	return n;
}
