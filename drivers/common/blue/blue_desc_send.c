/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send items (doc/guides/drivers/blue_hw_interface.md section 3.2): Seg0 and Seg1, 64 bytes, the
 * source QPN split across Seg1.
 */
#include "blue_desc_fields.h"

int
blue_send_item_encode(const struct blue_send_item *item, void *desc2)
{
	struct blue_desc_words w0 = { { 0 } }, w1 = { { 0 } }, *dw;
	const struct blue_send_item *s = item;
	struct blue_desc_hdr h;
	int rc;

	if (item == NULL || desc2 == NULL)
		return BLUE_DESC_E_ARG;
	if (item->sqpn > BLUE_QPN_MASK)
		return BLUE_DESC_E_RANGE;

	h = (struct blue_desc_hdr){ .opcode = item->opcode, .has_next = 1, .valid = item->valid };
	dw = &w0;
	rc = blue_desc_hdr_encode(dw, &h);
	if (rc != 0)
		return rc;
	SEG0_FIELDS(ENC)

	h.has_next = 0;
	dw = &w1;
	rc = blue_desc_hdr_encode(dw, &h);
	if (rc != 0)
		return rc;
	SEG1_FIELDS(ENC)
	blue_bits_set(dw, SEG1_SQPN_LO_LO, 8, item->sqpn & 0xFF);
	blue_bits_set(dw, SEG1_SQPN_HI_LO, 16, item->sqpn >> 8);

	blue_desc_store(&w0, desc2);
	blue_desc_store(&w1, (uint8_t *)desc2 + BLUE_DESC_SIZE);
	return BLUE_DESC_OK;
}

int
blue_send_item_decode(const void *seg0, const void *seg1, struct blue_send_item *item)
{
	struct blue_desc_words w0, w1, *dw;
	struct blue_send_item *s = item;
	struct blue_desc_hdr h0, h1;
	int rc;

	if (seg0 == NULL || item == NULL)
		return BLUE_DESC_E_ARG;
	memset(item, 0, sizeof(*item));
	blue_desc_load(&w0, seg0);
	blue_desc_hdr_decode(&w0, &h0);
	if (h0.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (!h0.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	rc = blue_desc_second(seg1, &h0, &w1, &h1);
	if (rc != BLUE_DESC_OK)
		return rc;
	if (h0.opcode > BLUE_WR_ATOMIC_WRITE)
		return BLUE_DESC_E_OPCODE;
	if (!blue_wr_opcode_supported(h0.opcode))
		return BLUE_DESC_E_UNSUPPORTED;
	if (blue_desc_reserved(&w0, BLUE_LAYOUT_SEG0) || blue_desc_reserved(&w1, BLUE_LAYOUT_SEG1))
		return BLUE_DESC_E_RESERVED;

	item->opcode = h0.opcode;
	item->valid = h0.valid & h1.valid;
	dw = &w0;
	SEG0_FIELDS(DEC)
	dw = &w1;
	SEG1_FIELDS(DEC)
	item->sqpn = (uint32_t)blue_bits_get(dw, SEG1_SQPN_LO_LO, 8) |
		     (uint32_t)blue_bits_get(dw, SEG1_SQPN_HI_LO, 16) << 8;

	if (!blue_pmtu_valid(item->pmtu))
		return BLUE_DESC_E_RANGE;
	if (item->len > item->total_len)
		return BLUE_DESC_E_RANGE;
	/* An item that is both first and last is the whole WR. */
	if (item->is_first && item->is_last && item->len != item->total_len)
		return BLUE_DESC_E_COMBINATION;
	return BLUE_DESC_OK;
}
