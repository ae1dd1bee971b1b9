/*
	The board's own network path in fixed memory: net.c (lwIP's raw API on ESP32, POSIX
	sockets on the Linux simulator). host.ts takes the UDP half, web.ts the TCP half.
*/

export function udpOpen() @ "xs_lwar_udp_open";
export function udpNext() @ "xs_lwar_udp_next";
export function udpSend() @ "xs_lwar_udp_send";
export function udpStats() @ "xs_lwar_udp_stats";
export function tcpListen() @ "xs_lwar_tcp_listen";
export function tcpEvents() @ "xs_lwar_tcp_events";
export function tcpInfo() @ "xs_lwar_tcp_info";
export function tcpAddress() @ "xs_lwar_tcp_address";
export function tcpRead() @ "xs_lwar_tcp_read";
export function tcpRoom() @ "xs_lwar_tcp_room";
export function tcpWrite() @ "xs_lwar_tcp_write";
export function tcpClose() @ "xs_lwar_tcp_close";
export function tcpStats() @ "xs_lwar_tcp_stats";
export function tcpFrame() @ "xs_lwar_tcp_frame";
export function tcpHead() @ "xs_lwar_tcp_head";
