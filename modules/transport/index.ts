/**
 * The reliable UDP transport, as another app takes it: one Endpoint per peer, configured
 * with the app's id and message sizes, over the framing in ./frame.ts. It knows nothing
 * of lwar: lwar's settings are modules/protocol's lwarChannel().
 */
export {
  Channel, CURRENT, DEFAULT_MAX_PACKET, DUPLICATE, Endpoint, finishPacket, FUTURE, FUTURE_SLACK_MS, OUT_OF_ORDER, PROCESS, STALE,
  type EndpointConfig,
} from "./endpoint";
export { HEADER_SIZE, headerAck, headerRel, headerTimestamp, headerUnrel, NO_ACK, RELIABLE_HEADER, UNRELIABLE_HEADER } from "./frame";
