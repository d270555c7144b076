/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the RDMA and control-frame codecs: Ethernet/IPv4/UDP. */
#ifndef WIRE_INTERNAL_H
#define WIRE_INTERNAL_H

#include "blue_wire.h"

#define WIRE_L4_OFF (BLUE_WIRE_ETH_HLEN + BLUE_WIRE_IPV4_HLEN)		 /* UDP header */
#define WIRE_L4_PAYLOAD_OFF (WIRE_L4_OFF + BLUE_WIRE_UDP_HLEN)	 /* after UDP */

/** One's-complement checksum of an IPv4 header (20 bytes). */
uint16_t wire_ipv4_csum(const uint8_t *ip);

/**
 * Write Ethernet + IPv4 + UDP headers for a UDP payload of @p udp_payload
 * bytes, with the ports of @p l3. The buffer must hold 42 bytes.
 */
void wire_l3_build(uint8_t *f, const struct blue_wire_l3 *l3, uint32_t udp_payload);

/**
 * Strictly parse Ethernet + IPv4 + UDP. On success *udp_payload is the UDP
 * payload length (after the 8-byte header) and *frame_end the end of the IP
 * datagram; bytes beyond it are the caller's business.
 */
int wire_l3_parse(const uint8_t *f, uint32_t len, struct blue_wire_l3 *l3,
		  uint32_t *udp_payload, uint32_t *frame_end);

/** Check the end of a frame: exact length, or length + a valid FCS trailer. */
int wire_check_trailer(const uint8_t *f, uint32_t len, uint32_t frame_end, unsigned int flags);

#endif /* WIRE_INTERNAL_H */
