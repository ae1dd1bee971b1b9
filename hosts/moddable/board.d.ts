/** The board's life: board.c. */

/** esp_reset_reason_t's value (1 power on, 3 software, 4 panic, 5 interrupt watchdog, 6 task watchdog...); -1 on the simulator. */
export function resetReason(): number;
/** This boot's number, counted in NVS (call once). */
export function bootCount(): number;
/** Watch the XS task and lwIP's thread with the task watchdog; true when it is on. */
export function watchdog(seconds: number): boolean;
/** The XS task checks in with the watchdog. */
export function feed(): void;
/** Bytes of the core dump in flash; 0 when there is none. */
export function coredumpSize(): number;
/** Fill `buffer` from the core dump at `offset`; bytes read. */
export function coredumpRead(offset: number, buffer: Uint8Array): number;
/** Forget the core dump. */
export function coredumpErase(): void;
/** 1: a panic; 2: the XS task wedged. For the emulator's torture test only. */
export function crash(kind: number): void;
