/**
 * The transport's framing: what every datagram carries whatever the application's
 * messages are. All integers are big-endian.
 *
 * Packet header, 14 bytes
 *  0  uint32  appId      the application's id (EndpointConfig.appId)
 *  4  uint32  ack        seqno of the last reliable message processed, NO_ACK before any
 *  8  uint32  timestamp  sender's monotonic ms (mod 2^32)
 * 12  uint8   rel        number of reliable messages
 * 13  uint8   unrel      number of unreliable messages
 * then rel × { uint32 seqno, uint8 type, payload }, then unrel × { uint8 type, payload }.
 * A payload's size follows from its type (EndpointConfig.sizes, EndpointConfig.measure).
 */
export const HEADER_SIZE = 14;
/** Where each header field starts: every reader and writer of a header takes them from here. */
export const HEADER_APP_ID = 0;
export const HEADER_ACK = 4;
export const HEADER_TIMESTAMP = 8;
export const HEADER_REL = 12;
export const HEADER_UNREL = 13;
/** Bytes before a reliable message's payload: seqno u32, type u8. */
export const RELIABLE_HEADER = 5;
/** Bytes before an unreliable message's payload: type u8. */
export const UNRELIABLE_HEADER = 1;
/** `ack` value before any reliable message was processed. */
export const NO_ACK = 0xffffffff;

/** The header's ack, timestamp and message counts, of a packet at least HEADER_SIZE long. */
export function headerAck(b: Uint8Array): number {
  const o = HEADER_ACK;
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
}
export function headerTimestamp(b: Uint8Array): number {
  const o = HEADER_TIMESTAMP;
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
}
export function headerRel(b: Uint8Array): number {
  return b[HEADER_REL];
}
export function headerUnrel(b: Uint8Array): number {
  return b[HEADER_UNREL];
}
