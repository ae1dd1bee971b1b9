/** The board's network path: net.c. Sizes are fixed when udpOpen and tcpListen run. */


/** Bind the server's UDP port with a ring of `slots` datagrams (1..256). Throws if it cannot. */
export function udpOpen(port: number, slots: number): void;
/** The next datagram into `buffer` (≥ 512 bytes); its sender's IPv4 address into `from` (4 bytes: a Uint32Array's word seen as bytes), in network order. Its length plus its sender's port × 1024 (`length | port << 10`), or -1 when none waits. */
export function udpNext(buffer: Uint8Array, from: Uint8Array): number;
/** Send `length` bytes of `bytes` to a dotted IPv4 address. 0, or -1 (counted) when the stack refused it. */
export function udpSend(bytes: Uint8Array, length: number, address: string, port: number): number;
/** Fill `out` (the bytes of a Uint32Array of 5) with the UDP counters: received, ringFull, tooLong, sendErrors, highWater. */
export function udpStats(out: Uint8Array): void;

/** Listen on `port` with `connections` slots (≤ 16), a receive ring of `rxBytes` (power of 2) each, `window` bytes unacknowledged at most per connection. */
export function tcpListen(port: number, connections: number, rxBytes: number, window: number): void;
/** A bit per connection slot that opened, received, ended or died since the last call. */
export function tcpEvents(): number;
/** TcpInfo flags of a slot, with the bytes waiting to be read in bits 8 and up; 0 for a free slot. */
export function tcpInfo(slot: number): number;
/** The slot's remote IPv4 address, network byte order. */
export function tcpAddress(slot: number): number;
/** Copy up to `max` waiting bytes into `buffer` at `offset`; how many. */
export function tcpRead(slot: number, buffer: Uint8Array, offset: number, max: number): number;
/** Bytes tcpWrite takes now; -1 when the connection is gone. */
export function tcpRoom(slot: number): number;
/** Send `length` bytes of `data` (a string: its UTF-8 bytes) from `offset`, all or none: `length`, 0 for no room now, -1 when gone. `more`: more follows at once. */
export function tcpWrite(slot: number, data: Uint8Array | string, offset: number, length: number, more?: boolean): number;
/** One unmasked WebSocket frame with FIN: `opcode` and `length` bytes of `data` (≤ 65535), all or none, as tcpWrite. */
export function tcpFrame(slot: number, opcode: number, data: Uint8Array | string, length: number): number;
/** An HTTP request's head up to its empty line, taken from the ring; undefined until it has all come; null when it fills the ring. */
export function tcpHead(slot: number): string | null | undefined;
/** Close (FIN, or a reset when `abort`) and free the slot. */
export function tcpClose(slot: number, abort: boolean): void;
/** Fill `out` (the bytes of a Uint32Array of 7) with the TCP counters: accepted, refused, resets, held, closed, aborted, writeErrors. */
export function tcpStats(out: Uint8Array): void;
