/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command descriptors (doc/guides/drivers/blue_hw_interface.md section 3.1):
 * CmdReq and CmdResp, one
 * descriptor each, the layout chosen by the opcode.
 */
#include "blue_desc_fields.h"

static enum blue_layout
cmd_layout(uint8_t op)
{
	switch (op) {
	case BLUE_CMD_UPDATE_MR_TABLE:
		return BLUE_LAYOUT_CMD_MR;
	case BLUE_CMD_UPDATE_PGT:
		return BLUE_LAYOUT_CMD_PGT;
	case BLUE_CMD_MANAGE_QP:
		return BLUE_LAYOUT_CMD_QP;
	case BLUE_CMD_SET_NETWORK_PARAM:
		return BLUE_LAYOUT_CMD_NET;
	case BLUE_CMD_SET_RAW_PACKET_RECEIVE_META:
		return BLUE_LAYOUT_CMD_RAW;
	default:
		return BLUE_LAYOUT_COUNT;
	}
}

int
blue_cmd_encode(const struct blue_cmd *cmd, void *desc)
{
	struct blue_desc_words words = { { 0 } }, *dw = &words;
	const struct blue_cmd *s = cmd;

	if (cmd == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	if (cmd->hdr.opcode == BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT)
		return BLUE_DESC_E_UNSUPPORTED;
	if (cmd->hdr.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (cmd->hdr.has_next)
		return BLUE_DESC_E_HAS_NEXT; /* commands are single-descriptor items */

	HDR_FIELDS(ENC)
	CMD_HDR_FIELDS(ENC)
	switch (cmd->hdr.opcode) {
	case BLUE_CMD_UPDATE_MR_TABLE:
		CMD_MR_FIELDS(ENC)
		break;
	case BLUE_CMD_UPDATE_PGT:
		CMD_PGT_FIELDS(ENC)
		break;
	case BLUE_CMD_MANAGE_QP:
		CMD_QP_FIELDS(ENC)
		break;
	case BLUE_CMD_SET_NETWORK_PARAM:
		CMD_NET_FIELDS(ENC)
		break;
	case BLUE_CMD_SET_RAW_PACKET_RECEIVE_META:
		CMD_RAW_FIELDS(ENC)
		break;
	default:
		return BLUE_DESC_E_OPCODE;
	}
	blue_desc_store(dw, desc);
	return BLUE_DESC_OK;
}

int
blue_cmd_decode(const void *desc, struct blue_cmd *cmd)
{
	struct blue_desc_words words, *dw = &words;
	struct blue_cmd *s = cmd;
	enum blue_layout l;

	if (cmd == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	blue_desc_load(dw, desc);
	memset(cmd, 0, sizeof(*cmd));
	HDR_FIELDS(DEC)
	CMD_HDR_FIELDS(DEC)

	if (cmd->hdr.opcode == BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT)
		return BLUE_DESC_E_UNSUPPORTED;
	l = cmd_layout(cmd->hdr.opcode);
	if (l == BLUE_LAYOUT_COUNT)
		return BLUE_DESC_E_OPCODE;
	if (cmd->hdr.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (cmd->hdr.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (blue_desc_reserved(dw, l))
		return BLUE_DESC_E_RESERVED;

	switch (cmd->hdr.opcode) {
	case BLUE_CMD_UPDATE_MR_TABLE:
		CMD_MR_FIELDS(DEC)
		break;
	case BLUE_CMD_UPDATE_PGT:
		CMD_PGT_FIELDS(DEC)
		break;
	case BLUE_CMD_MANAGE_QP:
		CMD_QP_FIELDS(DEC)
		break;
	case BLUE_CMD_SET_NETWORK_PARAM:
		CMD_NET_FIELDS(DEC)
		break;
	default:
		CMD_RAW_FIELDS(DEC)
		break;
	}
	return BLUE_DESC_OK;
}
