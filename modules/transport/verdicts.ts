/**
 * The transport's verdicts and shapes: what the receive step and its parts say of a
 * datagram. The C of the transport (modules/kernels/transport.c) returns the same numbers:
 * npm run build:native-header writes them into its header from here.
 */

/** Results of `Endpoint.acceptUnreliable`. */
export const CURRENT = 0;
export const STALE = 1;
export const FUTURE = 2;
/** How far a peer's timestamp may run ahead of our own clock's progress, ms. */
export const FUTURE_SLACK_MS = 1000;

/** Results of `Endpoint.acceptReliable`. */
export const PROCESS = 0;
export const DUPLICATE = 1;
export const OUT_OF_ORDER = 2;

/** A datagram's shape as its owner's validation found it: no message; one unreliable message at the header's end; anything (counts and offsets read). */
export const SHAPE_NONE = 1;
export const SHAPE_ONE_UNRELIABLE = 2;
export const SHAPE_ANY = 3;

/** Bits of `ReceiveStep.run`'s result. BAD_ACK alone: the datagram was dropped, counted. */
export const RECEIVE_BAD_ACK = 1;
/** The ack moved the queue's front. */
export const RECEIVE_NEW_ACK = 2;
/** The owner stopped the step (`reliable` returned false). */
export const RECEIVE_STOPPED = 4;
/**
 * SHAPE_ONE_UNRELIABLE: the message's stamp is current, and the message (at
 * ONE_UNRELIABLE_AT, its type byte before it) is the owner's to act on: for this shape the
 * step calls nothing, so that the commonest datagram costs one call. SHAPE_ANY: its
 * unreliable messages were handed to the owner.
 */
export const RECEIVE_CURRENT = 8;
