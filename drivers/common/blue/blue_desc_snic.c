/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SimpleNic descriptors (doc/guides/drivers/blue_hw_interface.md section 3.4): a TX frame's address
 * and length, an RX frame's slot and length.
 */
#include "blue_desc_fields.h"

/* Both directions: opcode 0, a single descriptor, is_extended_opcode set on
 * RX only, no reserved bit set. Loads the image into @p dw. */
static int
snic_load(const void *desc, bool extended, enum blue_layout l, struct blue_desc_words *dw)
{
	struct blue_desc_hdr h;

	blue_desc_load(dw, desc);
	blue_desc_hdr_decode(dw, &h);
	if (h.is_extended_opcode != extended)
		return BLUE_DESC_E_EXTENDED;
	if (h.opcode != 0)
		return BLUE_DESC_E_OPCODE;
	if (h.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (blue_desc_reserved(dw, l))
		return BLUE_DESC_E_RESERVED;
	return BLUE_DESC_OK;
}

int
blue_simple_nic_tx_encode(const struct blue_simple_nic_tx *tx, void *desc)
{
	struct blue_desc_words words = { { 0 } }, *dw = &words;
	const struct blue_simple_nic_tx *s = tx;
	struct blue_desc_hdr h = { .opcode = 0, .valid = 1 };

	if (tx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	blue_desc_hdr_encode(dw, &h);
	SNIC_TX_FIELDS(ENC)
	blue_desc_store(dw, desc);
	return BLUE_DESC_OK;
}

int
blue_simple_nic_tx_decode(const void *desc, struct blue_simple_nic_tx *tx)
{
	struct blue_desc_words words, *dw = &words;
	struct blue_simple_nic_tx *s = tx;
	int rc;

	if (tx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	memset(tx, 0, sizeof(*tx));
	rc = snic_load(desc, false, BLUE_LAYOUT_SNIC_TX, dw);
	if (rc != BLUE_DESC_OK)
		return rc;
	SNIC_TX_FIELDS(DEC)
	if (tx->len == 0)
		return BLUE_DESC_E_RANGE;
	return BLUE_DESC_OK;
}

int
blue_simple_nic_rx_encode(const struct blue_simple_nic_rx *rx, void *desc)
{
	struct blue_desc_words words = { { 0 } }, *dw = &words;
	const struct blue_simple_nic_rx *s = rx;
	struct blue_desc_hdr h = { .opcode = 0, .is_extended_opcode = 1, .valid = 1 };

	if (rx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	if (rx->slot_idx >= BLUE_SIMPLE_NIC_RX_SLOTS || rx->len > BLUE_SIMPLE_NIC_RX_SLOT_SIZE)
		return BLUE_DESC_E_RANGE;
	blue_desc_hdr_encode(dw, &h);
	SNIC_RX_FIELDS(ENC)
	blue_desc_store(dw, desc);
	return BLUE_DESC_OK;
}

int
blue_simple_nic_rx_decode(const void *desc, struct blue_simple_nic_rx *rx)
{
	struct blue_desc_words words, *dw = &words;
	struct blue_simple_nic_rx *s = rx;
	int rc;

	if (rx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	memset(rx, 0, sizeof(*rx));
	rc = snic_load(desc, true, BLUE_LAYOUT_SNIC_RX, dw);
	if (rc != BLUE_DESC_OK)
		return rc;
	SNIC_RX_FIELDS(DEC)
	if (rx->slot_idx >= BLUE_SIMPLE_NIC_RX_SLOTS || rx->len == 0 ||
	    rx->len > BLUE_SIMPLE_NIC_RX_SLOT_SIZE)
		return BLUE_DESC_E_RANGE;
	return BLUE_DESC_OK;
}
