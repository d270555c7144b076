/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes a seed corpus for the fuzz targets: one valid frame of every opcode
 * class and control type, and one valid descriptor image of every layout.
 * Usage: gen_seeds <wire-dir> <desc-dir>
 */
#include <stdio.h>
#include <string.h>

#include "blue_desc.h"
#include "blue_wire.h"

static int
put(const char *dir, const char *name, uint8_t opt, const void *buf, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL)
		return -1;
	fputc(opt, f);
	fwrite(buf, 1, n, f);
	return fclose(f);
}

int
main(int argc, char **argv)
{
	static uint8_t buf[BLUE_WIRE_MAX_FRAME], pay[4096];
	struct blue_wire_rdma p = { 0 };
	struct blue_ctrl_msg m = { 0 };
	char name[64];
	uint8_t d[64];
	int n, bad = 0;

	if (argc != 3)
		return 2;
	p.l3 = (struct blue_wire_l3){ .dst_mac = 2, .src_mac = 1, .src_ip = 0x0A000001,
				      .dst_ip = 0x0A000002, .src_port = 0x100,
				      .dst_port = BLUE_WIRE_ROCE_UDP_PORT, .ttl = 64, .ip_id = 1 };
	for (uint8_t op = 0; op <= BLUE_OP_ACKNOWLEDGE; op++) {
		uint32_t plen = blue_op_is_data(op) ? 64 + op : 0;

		p.bth = (struct blue_wire_bth){ .opcode = op, .psn = op, .dqpn = 0x101, .msn = 1 };
		p.reth = (struct blue_wire_reth){ .va = 0x1000 + op, .rkey = 0x100,
						  .dlen = blue_op_pos(op) == BLUE_POS_FIRST ? 4096 : plen };
		n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, plen);
		snprintf(name, sizeof(name), "rdma-%02x", op);
		bad |= n < 0 || put(argv[1], name, 0, buf, (size_t)n);
	}
	m.type = BLUE_CTRL_RECV_ADVERT;
	m.advert.count = 2;
	n = blue_wire_ctrl_build(buf, sizeof(buf), &p.l3, &m);
	bad |= n < 0 || put(argv[1], "ctrl-advert", 0, buf, (size_t)n);
	memset(&m, 0, sizeof(m));
	m.type = BLUE_CTRL_ATOMIC_REQ;
	m.atomic_req.op = BLUE_CTRL_ATOMIC_CMP_AND_SWP;
	n = blue_wire_ctrl_build(buf, sizeof(buf), &p.l3, &m);
	bad |= n < 0 || put(argv[1], "ctrl-atomic", 0, buf, (size_t)n);

	for (uint8_t op = 0; op <= BLUE_CMD_SET_RAW_PACKET_RECEIVE_META; op++) {
		struct blue_cmd c = { .hdr = { .opcode = op, .valid = 1 } };

		bad |= blue_cmd_encode(&c, d) != 0;
		snprintf(name, sizeof(name), "cmd-%d", op);
		bad |= put(argv[2], name, 0, d, 32);
	}
	struct blue_send_item it = { .opcode = BLUE_WR_RDMA_WRITE, .valid = 1, .pmtu = 5,
				     .len = 10, .total_len = 10, .is_first = 1, .is_last = 1 };
	bad |= blue_send_item_encode(&it, d) != 0 || put(argv[2], "send", 1, d, 64);
	struct blue_meta_report r = { .kind = BLUE_META_HEADER_READ,
				      .opcode = BLUE_OP_READ_REQUEST };
	bad |= blue_meta_encode(&r, d, d + 32) != 2 || put(argv[2], "meta-read", 2, d, 64);
	r = (struct blue_meta_report){ .kind = BLUE_META_NAK_REMOTE_HW,
				       .opcode = BLUE_OP_ACKNOWLEDGE };
	bad |= blue_meta_encode(&r, d, d + 32) != 2 || put(argv[2], "meta-nak", 2, d, 64);
	struct blue_simple_nic_rx rx = { .len = 60, .slot_idx = 3 };
	bad |= blue_simple_nic_rx_encode(&rx, d) != 0 || put(argv[2], "snic-rx", 4, d, 32);
	return bad ? 1 : 0;
}
