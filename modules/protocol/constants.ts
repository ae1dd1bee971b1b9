/**
 * lwar Rev 1 wire constants, declared once. See docs/protocol.md. The packet framing
 * (header, message headers, NO_ACK) is the transport's: modules/transport/frame.ts.
 */
export { HEADER_SIZE, NO_ACK, RELIABLE_HEADER, UNRELIABLE_HEADER } from "../transport/frame";
export const APP_ID = 0xf27087c5;
export const MAX_PACKET = 512;
export const NAME_LENGTH = 32;
export const CHAT_LENGTH = 128;
export const MAX_PLAYERS = 8;
export const DEFAULT_PORT = 32422;
/** Bytes of one entity in an Update message. */
export const UPDATE_ENTRY = 15;
/** Most entries one Update message carries: its count is one byte. */
export const UPDATE_MAX_ENTRIES = 255;
/** An Update entry's health, at most (a ship's hit points above it are sent as this). */
export const UPDATE_HEALTH_MAX = 100;
/**
 * Where each field of an Update entry and of an Add's payload starts (docs/protocol.md). The
 * codec writes at these offsets, and the C that packs entries and queues Adds reads them from
 * modules/kernels/layout.h, generated from here (npm run build:native-header).
 */
export const UpdateEntryAt = /* @__PURE__ */ Object.freeze({ id: 0, x: 4, y: 6, vx: 8, vy: 10, rot: 12, health: 14 } as const);
export const AddAt = /* @__PURE__ */ Object.freeze({ entityId: 0, playerId: 4, typeId: 8, size: 9 } as const);
/** A Remove's payload: the entity's id. */
export const REMOVE_SIZE = 4;

export const Msg = Object.freeze({
  Connect: 101,
  Disconnect: 102,
  Join: 103,
  Leave: 104,
  Chat: 105,
  Add: 106,
  Remove: 107,
  Selection: 108,
  Name: 109,
  Stats: 201,
  Update: 202,
  Input: 203,
  /** Extension: unreliable, server to client, `{reason u8}`. */
  Reject: 204,
} as const);
export type MsgType = (typeof Msg)[keyof typeof Msg];

export const RejectReason = Object.freeze({ ServerFull: 1 } as const);

/** Who may send a message type. */
export const FROM_CLIENT = 1;
export const FROM_SERVER = 2;

/**
 * Per-type table, indexed by type id - 100 (types 101..109, 201..204 map into one table
 * of 105 rows). `size` is the fixed payload size, or -1 for Chat (variable) and Update
 * (1 + 15 × num). `reliable` is 1 for reliable types. 0 in `senders` = unknown type.
 */
export const TYPE_BASE = 100;
export const TYPE_ROWS = 105;

function table(): { size: Int16Array; reliable: Uint8Array; senders: Uint8Array } {
  const size = new Int16Array(TYPE_ROWS);
  const reliable = new Uint8Array(TYPE_ROWS);
  const senders = new Uint8Array(TYPE_ROWS);
  const row = (type: number, bytes: number, rel: number, who: number): void => {
    size[type - TYPE_BASE] = bytes;
    reliable[type - TYPE_BASE] = rel;
    senders[type - TYPE_BASE] = who;
  };
  row(Msg.Connect, 0, 1, FROM_CLIENT);
  row(Msg.Disconnect, 0, 1, FROM_CLIENT);
  row(Msg.Join, 4, 1, FROM_SERVER);
  row(Msg.Leave, 4, 1, FROM_SERVER);
  row(Msg.Chat, -1, 1, FROM_CLIENT | FROM_SERVER);
  row(Msg.Add, 9, 1, FROM_SERVER);
  row(Msg.Remove, 4, 1, FROM_SERVER);
  row(Msg.Selection, 6, 1, FROM_CLIENT | FROM_SERVER);
  row(Msg.Name, 4 + NAME_LENGTH, 1, FROM_CLIENT | FROM_SERVER);
  row(Msg.Stats, 2 * 2 * MAX_PLAYERS, 0, FROM_SERVER);
  row(Msg.Update, -1, 0, FROM_SERVER);
  row(Msg.Input, 5, 0, FROM_CLIENT);
  row(Msg.Reject, 1, 0, FROM_SERVER);
  return { size, reliable, senders };
}

/**
 * Built on first use, at run time, never at module top level: XS makes typed arrays
 * created during preload read-only (they live in flash), which is fine for this table,
 * but it keeps every module free of top-level pools.
 */
export let types: { size: Int16Array; reliable: Uint8Array; senders: Uint8Array } | null = null;
export function typeTable(): { size: Int16Array; reliable: Uint8Array; senders: Uint8Array } {
  if (types === null) types = table();
  return types;
}
