/*
	The wired bring-up (ethernet.c): the ESP32's EMAC with an 802.3 PHY, or QEMU's
	open_eth, chosen by the build's sdkconfig.
*/

export function start() @ "xs_lwar_eth_start";
export function linked() @ "xs_lwar_eth_linked";
export function driver() @ "xs_lwar_eth_driver";
