/**
 * What a session broadcast costs its recipients, timed after a replay's window (host-free:
 * the device bench runs it on XS). Each player with a peer sends one Chat, which the server
 * checks and puts into every player's queue (session.ts: the ring, then a copy for each);
 * the same is timed for a bare ack from each, and the difference, over the chats and their
 * recipients, is what one recipient of a broadcast costs at its receipt. Then the same for a
 * Name (each player takes a new one) and a Selection (each a new ship and weapon).
 *
 * Method, as timeReceive's (trace.ts): each datagram copied into the server's receive buffer
 * (dry), then copied and received (for real); the difference is the server's. The chats are
 * received once each (a reliable message is processed once), so the figure is of one
 * round, not the least of several. First the clock moves a second on (one tick, untimed), so
 * that every player's chat bucket is full again.
 */
import { setU32 } from "../modules/protocol/bytes";
import { Counter } from "../modules/protocol/counters";
import { Msg, NAME_LENGTH } from "../modules/protocol/constants";
import { writeChat, writeHeader, writeName, writeSelection } from "../modules/protocol/codec";
import { HEADER_SIZE, RELIABLE_HEADER } from "../modules/transport/frame";
import type { Replay } from "./trace";

/** The line each player sends: printable ASCII, a typical length. */
const LINE = "gg, nice shot";
/** The name each player takes, its slot's digit after it. */
const NAME = "pilot-";
/** How far the clock moves before the chats, ms: every chat bucket refills in this (session.ts). */
const REFILL_MS = 1000;

export interface BroadcastCost {
  /** Chats received, one from each player with a peer, and the players each went to (the sender too). */
  chats: number;
  recipients: number;
  /** µs of the server per chat and per bare ack. */
  chatUs: number;
  ackUs: number;
  /** (chatUs − ackUs) / recipients. */
  perRecipientUs: number;
  /** µs of the server per Name and per Selection, and the same per recipient over a bare ack. */
  renameUs: number;
  renamePerRecipientUs: number;
  selectUs: number;
  selectPerRecipientUs: number;
}

export function timeBroadcast(r: Replay, clock: () => number): BroadcastCost {
  const server = r.server;
  const now = server.host.now() + REFILL_MS;
  server.tick(now);
  const slots: number[] = [];
  for (let s = 0; s < server.config.maxPlayers; s++) if (server.active[s] !== 0 && server.address[s] !== "") slots.push(s);
  if (slots.length < 2) throw new Error(`a broadcast needs two players with peers; ${slots.length} left after the window`);
  const text = new Uint8Array(LINE.length);
  for (let i = 0; i < LINE.length; i++) text[i] = LINE.charCodeAt(i);
  // Each player's chat and bare ack: its ack acknowledges nothing new, its seqno is the next
  // the server expects, its timestamp is the newest the server took from it.
  const chats: Uint8Array[] = [];
  const renames: Uint8Array[] = [];
  const selections: Uint8Array[] = [];
  const acks: Uint8Array[] = [];
  const cfg = server.config;
  for (const s of slots) {
    const ep = server.endpoints[s];
    const ack = (ep.firstSeq - 1) >>> 0;
    // The chat, then the rename, then the selection: the next three seqnos the server expects.
    const reliable = (type: number, payload: number, k: number): Uint8Array => {
      const d = new Uint8Array(HEADER_SIZE + RELIABLE_HEADER + payload);
      writeHeader(d, ack, ep.newestTimestamp >>> 0, 1, 0);
      setU32(d, HEADER_SIZE, (ep.lastProcessed + 1 + k) >>> 0);
      d[HEADER_SIZE + 4] = type;
      return d;
    };
    const chat = reliable(Msg.Chat, 4 + LINE.length + 1, 0);
    writeChat(chat, HEADER_SIZE + RELIABLE_HEADER, server.playerId(s), text, 0, text.length);
    chats.push(chat);
    const name = new Uint8Array(NAME.length + 1);
    for (let i = 0; i < NAME.length; i++) name[i] = NAME.charCodeAt(i);
    name[NAME.length] = 0x30 + s;
    const rename = reliable(Msg.Name, 4 + NAME_LENGTH, 1);
    writeName(rename, HEADER_SIZE + RELIABLE_HEADER, server.playerId(s), name, 0, name.length);
    renames.push(rename);
    const selection = reliable(Msg.Selection, 6, 2);
    writeSelection(selection, HEADER_SIZE + RELIABLE_HEADER, server.playerId(s), (server.ship[s] + 1) % cfg.shipTypes, (server.weapon[s] + 1) % cfg.weaponTypes);
    selections.push(selection);
    const bare = new Uint8Array(HEADER_SIZE);
    writeHeader(bare, ack, ep.newestTimestamp >>> 0, 0, 0);
    acks.push(bare);
  }
  const rx = server.rxBuffer;
  const c = server.counters;
  const round = (datagrams: Uint8Array[], live: boolean): number => {
    const t0 = clock();
    for (let i = 0; i < datagrams.length; i++) {
      const d = datagrams[i];
      rx.set(d);
      if (live) server.received(d.length, server.address[slots[i]], server.port[slots[i]], now);
    }
    return clock() - t0;
  };
  let ackMs = Infinity;
  for (let k = 0; k < 3; k++) {
    const d = round(acks, true) - round(acks, false);
    if (d < ackMs) ackMs = d;
  }
  // Each kind once (a reliable message is processed once), checked to have been taken.
  const once = (datagrams: Uint8Array[], what: string): number => {
    const received = c[Counter.ReliableReceived];
    const refused = c[Counter.Refused];
    const bad = c[Counter.BadChat] + c[Counter.BadName] + c[Counter.BadSelection];
    const dry = round(datagrams, false);
    const ms = round(datagrams, true) - dry;
    if (c[Counter.ReliableReceived] - received !== datagrams.length || c[Counter.Refused] !== refused || c[Counter.BadChat] + c[Counter.BadName] + c[Counter.BadSelection] !== bad)
      throw new Error(`the ${what} were not all taken: the figure would not be of a broadcast`);
    return (ms * 1000) / datagrams.length;
  };
  const n = chats.length;
  const chatUs = once(chats, "chats");
  const renameUs = once(renames, "renames");
  const selectUs = once(selections, "selections");
  const ackUs = (ackMs * 1000) / n;
  return {
    chats: n, recipients: n, chatUs, ackUs, perRecipientUs: (chatUs - ackUs) / n,
    renameUs, renamePerRecipientUs: (renameUs - ackUs) / n, selectUs, selectPerRecipientUs: (selectUs - ackUs) / n,
  };
}
