/** Starts the Ethernet driver and DHCP: 0, or the esp_err_t of the step that failed. Idempotent. */
export function start(): number;
/** Whether the PHY reports a link. */
export function linked(): boolean;
/** Which MAC this build drives, for the banner. */
export function driver(): string;
