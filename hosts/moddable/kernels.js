/*
	The server's native loops for Moddable platforms: hosts/moddable/kernels.c defines
	them (the loops of modules/kernels/loops.c, compiled in), modules/native.ts describes
	them (the Kernels interface). main.ts hands them to the server through ModdableHost.
*/

export function plan() @ "xs_lwar_plan";
export function commit() @ "xs_lwar_commit";
export function pack() @ "xs_lwar_pack";
export function sync() @ "xs_lwar_sync";
export function notify() @ "xs_lwar_notify";
export function ship() @ "xs_lwar_ship";
export function mark() @ "xs_lwar_mark";
export function game() @ "xs_lwar_game";
export function transport() @ "xs_lwar_transport";
export function name() @ "xs_lwar_name";
