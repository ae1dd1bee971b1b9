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
/** Reboot now (the simulator: nothing). */
export function restart(): void;
/** This image serves: keep it (ESP-IDF's app rollback). 1: it was on trial after an update and is kept now; 0: kept already; -1: cannot say. */
export function markValid(): number;
/** The label of the app slot that runs ("ota_0"); "" on the simulator. */
export function appSlot(): string;
/** The label of an app slot the bootloader abandoned (an update that did not come up); "" when none. */
export function rolledBack(): string;
/** Bytes the next app slot holds: the largest image an update may bring; 0 when there is none. */
export function updateRoom(): number;
/** 1 while the button on `pin` (to ground) is held, else 0. */
export function buttonDown(pin: number): number;
