/**
 * The reliable UDP transport, as another app takes it: one Endpoint per peer, configured
 * with the app's id and message sizes, over the framing in ./frame.ts. It knows nothing
 * of lwar: lwar's settings are modules/protocol's lwarChannel().
 */
export { Channel, DEFAULT_MAX_PACKET, type EndpointConfig, RECEIVE_COUNTS, RECEIVE_INDEX, type ReceiveIndex } from "./channel";
export {
  CURRENT, DUPLICATE, Endpoint, type EndpointPlace, EndpointTable, finishPacket, FUTURE, FUTURE_SLACK_MS, OUT_OF_ORDER, PROCESS, STALE,
} from "./endpoint";
export {
  HEADER_ACK, HEADER_APP_ID, HEADER_REL, HEADER_SIZE, HEADER_TIMESTAMP, HEADER_UNREL, headerAck, headerRel, headerTimestamp, headerUnrel,
  NO_ACK, RELIABLE_HEADER, UNRELIABLE_HEADER,
} from "./frame";
export {
  ONE_UNRELIABLE_AT, RECEIVE_BAD_ACK, RECEIVE_CURRENT, RECEIVE_NEW_ACK, RECEIVE_STOPPED, ReceiveStep, type Receiving, SHAPE_ANY,
  SHAPE_NONE, SHAPE_ONE_UNRELIABLE,
} from "./receive";
