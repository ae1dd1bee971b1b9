/**
 * lwar's settings for a transport Endpoint (modules/transport/endpoint.ts): its app id,
 * its packet size, and its reliable messages' sizes from the one type table, Chat (the one
 * of variable size) a text: its sender's id, then its line up to the NUL within CHAT_LENGTH.
 */
import { Channel } from "../transport/channel";
import { APP_ID, CHAT_LENGTH, MAX_PACKET, TYPE_BASE, typeTable } from "./constants";
import { Counter } from "./counters";

/** Where the transport's receive step counts in lwar's counters (createCounters()). */
const LWAR_RECEIVE_INDEX = Object.freeze({
  badAck: Counter.BadAck, duplicate: Counter.DuplicateReliable, outOfOrder: Counter.OutOfOrderReliable,
  received: Counter.ReliableReceived, stale: Counter.StaleUnreliable, future: Counter.FutureTimestamp,
});

/**
 * An Endpoint Channel for lwar messages, with a queue of `queueBytes` and the given
 * resend interval. With `counters` (createCounters()), the endpoints add what they send to
 * its ReliableSent and ReliableResent. The receive step counts in lwar's counters whatever
 * array its caller passes (LWAR_RECEIVE_INDEX).
 */
export function lwarChannel(queueBytes: number, resendMs: number, counters: Uint32Array | null = null): Channel {
  return new Channel({
    appId: APP_ID, maxPacket: MAX_PACKET, sizes: typeTable().size, typeBase: TYPE_BASE, textPrefix: 4, textMax: CHAT_LENGTH, queueBytes,
    resendMs,
    counters, sentIndex: Counter.ReliableSent, resentIndex: Counter.ReliableResent, receiveIndex: LWAR_RECEIVE_INDEX,
  });
}
