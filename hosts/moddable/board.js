/*
	The board's life: reset reason, boot count, watchdog, core dump. board.c.
*/

export function resetReason() @ "xs_lwar_board_reset_reason";
export function bootCount() @ "xs_lwar_board_boot_count";
export function watchdog() @ "xs_lwar_board_watchdog";
export function feed() @ "xs_lwar_board_feed";
export function coredumpSize() @ "xs_lwar_board_coredump_size";
export function coredumpRead() @ "xs_lwar_board_coredump_read";
export function coredumpErase() @ "xs_lwar_board_coredump_erase";
export function crash() @ "xs_lwar_board_crash";
export function restart() @ "xs_lwar_board_restart";
export function markValid() @ "xs_lwar_board_mark_valid";
export function appSlot() @ "xs_lwar_board_app_slot";
export function rolledBack() @ "xs_lwar_board_rolled_back";
export function updateRoom() @ "xs_lwar_board_update_room";
export function buttonDown() @ "xs_lwar_board_button_down";
