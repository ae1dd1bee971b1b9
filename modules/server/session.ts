/**
 * What players say to each other and about themselves: Chat, Name and Selection (checked,
 * flood-limited, echoed), the Join, Name and Selection that announce a newcomer, and Leave.
 * Also the strikes that misbehaviour earns, and each player's name (a default one, made
 * unique among the players).
 *
 * Session messages for many players are stored once, in a ring every player reads with
 * its own cursor, taking entries into its queue in order as it has room: nobody's message
 * is refused or held back because one player is slow, and memory stays fixed. Positions
 * count bytes modulo 2^32 (compared wrap-safe); position p is byte p & (BROADCAST_BYTES - 1).
 * A player so far behind that a new entry would overwrite one it has not taken has failed
 * to keep up, and is dropped (broadcast()). The tables are in state.ts, carved from one
 * arena: an entry goes into the ring, and from it into each queue, with one native
 * copyWithin (two where it crosses the ring's end), never byte by byte.
 */
import { Binding, type Kernels, type NativeOptions, requireKernels } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { NameWord } from "../native-words";
import { Counter } from "../protocol/counters";
import { Msg, NAME_LENGTH } from "../protocol/constants";
import { Fields, chatPayloadSize, readChat, readName, readSelection, writeId, writeSelection } from "../protocol/codec";
import type { Admission } from "./admission";
import { KickReason, LogEvent } from "./events";
import { LEAVE_SIZE, type ServerState } from "./state";

/**
 * Flood control: a token bucket per player for chat lines, and one each for renames and
 * selections. A bucket holds BURST tokens and gets one back every REFILL ms; a message that
 * finds its bucket empty is refused at its source (acknowledged, counted as `refused`, not
 * echoed: the sender's client library reports it as not delivered).
 */
export const CHAT_BURST = 4;
export const CHAT_REFILL_MS = 250;
export const CHANGE_BURST = 2;
export const CHANGE_REFILL_MS = 500;
/** Strikes: at most one counts per window (and one decays per STRIKE_DECAY_MS, schedule.ts). */
export const STRIKE_WINDOW_MS = 250;
/** Bytes of the ring: a player more than this far behind in taking its entries is dropped. */
export const BROADCAST_BYTES = 2048;
/**
 * A ring entry is `length u8, target u8, type u8, payload` (length: the payload's); target
 * EVERYONE, EXCEPT | slot (every player but that one) or a slot (that one only). The type
 * and payload are the message as a queue holds it after its seqno: one run to copy.
 */
const ENTRY_HEADER = 3;
const EVERYONE = 0xff;
const EXCEPT = 0x80;
/** What follows a bot's name. */
const BOT_SUFFIX = " [bot]";

/** The players a ring entry's target names, a bit per slot: everyone, everyone but one, or one. */
function recipients(target: number): number {
  return target === EVERYONE ? -1 : target >= EXCEPT ? ~(1 << (target & 0x7f)) : 1 << target;
}

// The message types as module constants: on XS `Msg.Name` walks the frozen table's properties.
const MSG_LEAVE = Msg.Leave;
const MSG_JOIN = Msg.Join;
const MSG_NAME = Msg.Name;
const MSG_SELECTION = Msg.Selection;
const MSG_CHAT = Msg.Chat;

export class Session {
  readonly #state: ServerState;
  /** Set once at start-up (bind): a player the ring laps leaves through it. */
  #admission: Admission | null = null;
  readonly #fields = new Fields();
  #ringHead = 0;
  /**
   * Players that have taken every ring entry (bit per slot): their cursor is the ring's
   * head, whatever `cursor` holds, and a new entry goes straight into their queue; `cursor`
   * is written when a player falls behind. A typed-array element costs hundreds of
   * instructions on XS, a bit a few.
   */
  #current = 0;
  /** Some player's queue had no room for its next ring entry: pump again next tick. */
  #ringWaiting = false;
  /**
   * A view of the whole arena the ring, `scratch`, `rx`, the names and the queues are carved
   * from, and where each starts in it: bytes move between them with native copyWithin calls,
   * not loops over bytes (on XS each typed-array element access is a host call).
   */
  readonly #whole: Uint8Array;
  /** The same bytes as a DataView: a name's id in one call, a name's words for its hash. */
  readonly #wholeView: DataView;
  readonly #ringAt: number;
  readonly #scratchAt: number;
  readonly #rxAt: number;
  readonly #namesAt: number;
  readonly #lastChatAt: number;
  readonly #queueAt: number[];
  /** The name store's native call (modules/kernels/session.c) and its binding. */
  readonly #kernels: Kernels;
  readonly #nameBinding: Binding;
  /**
   * The state's tables a chat, a rename or a selection reads, held here: carved once, before
   * the rooms are made, and never replaced. On XS a private name is found in a short list of
   * its own, where these lie past most of the state's ~60 properties.
   */
  readonly #announced: Uint8Array;
  readonly #chatTokens: Uint8Array;
  readonly #chatAt: Int32Array;
  readonly #nameTokens: Uint8Array;
  readonly #nameAt: Int32Array;
  readonly #selectTokens: Uint8Array;
  readonly #selectAt: Int32Array;

  constructor(state: ServerState, native: NativeOptions | null) {
    this.#state = state;
    this.#fields.use(state.rx, state.rxView);
    const ring = state.ring;
    const n = state.config.maxPlayers;
    // The state's view of the arena where it has one (the server's), so that no second view is made.
    this.#whole = state.whole !== undefined && state.whole.buffer === ring.buffer && state.whole.byteOffset === 0 ? state.whole : new Uint8Array(ring.buffer);
    this.#wholeView =
      state.wholeView !== undefined && state.wholeView.buffer === ring.buffer && state.wholeView.byteOffset === 0 ? state.wholeView : new DataView(ring.buffer);
    this.#ringAt = ring.byteOffset;
    this.#scratchAt = state.scratch.byteOffset;
    this.#rxAt = state.rx.byteOffset;
    this.#namesAt = state.names.byteOffset;
    this.#lastChatAt = state.lastChat.byteOffset;
    const shared = state.scratch.buffer === ring.buffer && state.rx.buffer === ring.buffer && state.names.buffer === ring.buffer &&
      state.nameScratch.buffer === ring.buffer && state.lastChat.buffer === ring.buffer;
    this.#queueAt = new Array<number>(n);
    this.#kernels = requireKernels(native, "the session's names");
    this.#nameBinding = new Binding(NATIVE_LAYOUT.name, { names: state.names, nameLength: state.nameLength, arena: this.#whole }, 0, native);
    this.#nameBinding.words[this.#nameBinding.scalars + NameWord.Players] = n;
    this.#announced = state.announced;
    this.#chatTokens = state.chatTokens;
    this.#chatAt = state.chatAt;
    this.#nameTokens = state.nameTokens;
    this.#nameAt = state.nameAt;
    this.#selectTokens = state.selectTokens;
    this.#selectAt = state.selectAt;
    for (let s = 0; s < n; s++) {
      const q = state.endpoints[s].buf;
      if (!shared || q.buffer !== ring.buffer) throw new RangeError("the ring, the session's buffers and the queues must share one arena");
      this.#queueAt[s] = q.byteOffset;
    }
  }

  /** Start-up only: where a lapped player is removed. */
  bind(admission: Admission): void {
    this.#admission = admission;
  }

  /** A newcomer in `slot`: full flood buckets, no strike, the ring read from its head on, a default name. */
  join(slot: number, now: number): void {
    const t = this.#state;
    t.strikeAt[slot] = now - STRIKE_WINDOW_MS;
    t.chatTokens[slot] = CHAT_BURST;
    t.nameTokens[slot] = CHANGE_BURST;
    t.selectTokens[slot] = CHANGE_BURST;
    t.chatAt[slot] = now;
    t.nameAt[slot] = now;
    t.selectAt[slot] = now;
    // The newcomer learns the roster from sendRoster; what others broadcast from now on, it reads.
    t.cursor[slot] = this.#ringHead;
    this.#current |= 1 << slot;
    this.#defaultName(slot);
  }

  /** Queue for the newcomer in `slot` its own Join, Name and Selection, then every announced player's. */
  sendRoster(slot: number): void {
    const t = this.#state;
    this.#sendJoin(slot, slot);
    this.#sendName(slot, slot);
    this.#sendSelection(slot, slot);
    for (let s = 0; s < t.config.maxPlayers; s++) {
      if (s === slot || t.active[s] === 0 || t.announced[s] === 0) continue;
      this.#sendJoin(slot, s);
      this.#sendName(slot, s);
      this.#sendSelection(slot, s);
    }
  }

  /** The player `id` in `slot` is leaving: those told of it hear Leave. */
  leave(slot: number, id: number): void {
    if (this.#state.announced[slot] === 0) return;
    const b = this.#state.scratch;
    b[0] = MSG_LEAVE;
    this.#broadcast(MSG_LEAVE, EVERYONE, this.#scratchAt + 1, writeId(b, 1, id) - 1);
  }

  /**
   * The player acknowledged its Join: tell everyone else of it at once (nobody's queue
   * holds it back: each takes the announcement from the ring as it has room).
   */
  announce(slot: number): void {
    const t = this.#state;
    if (t.announced[slot] === 0) t.unannounced--;
    t.announced[slot] = 1;
    const target = EXCEPT | slot;
    this.#broadcastAbout(MSG_JOIN, target, slot);
    this.#broadcastAbout(MSG_NAME, target, slot);
    this.#broadcastAbout(MSG_SELECTION, target, slot);
  }

  /** Chat from `slot` (player `id`) at `p` in `state.rx`: checked, flood-limited, then to everyone. */
  chat(slot: number, id: number, p: number): void {
    const t = this.#state;
    const rx = t.rx;
    const f = this.#fields;
    readChat(rx, p, f);
    if (f.id !== id) return this.#spoofed(slot);
    const n = f.textLength;
    if (n === 0 || f.unprintable !== 0) {
      t.counters[Counter.BadChat]++;
      return this.misbehave(slot);
    }
    if (this.#announced[slot] === 0 || !this.#take(this.#chatTokens, this.#chatAt, slot, CHAT_BURST, CHAT_REFILL_MS)) {
      t.counters[Counter.Refused]++;
      return;
    }
    const rxAt = this.#rxAt;
    const text = rxAt + f.textOffset;
    this.#whole.copyWithin(this.#lastChatAt, text, text + n);
    t.lastChatLength = n;
    // What the player sent is what everyone gets: its type byte (before the payload, as
    // #broadcast wants it), its id (checked), the line and its NUL.
    this.#broadcast(MSG_CHAT, EVERYONE, rxAt + p, chatPayloadSize(n));
    t.host.log(LogEvent.Chat, slot, id);
  }

  /** Name from `slot`: checked, flood-limited, made unique, then to the player and (once announced) everyone. */
  rename(slot: number, id: number, p: number): void {
    const t = this.#state;
    const rx = t.rx;
    const f = this.#fields;
    readName(rx, p, f);
    if (f.id !== id) return this.#spoofed(slot);
    if (f.textLength === 0 || f.unprintable !== 0) {
      t.counters[Counter.BadName]++;
      return this.misbehave(slot);
    }
    if (!this.#take(this.#nameTokens, this.#nameAt, slot, CHANGE_BURST, CHANGE_REFILL_MS)) {
      t.counters[Counter.Refused]++;
      return;
    }
    this.#setName(slot, rx, f.textOffset, f.textLength);
    this.#broadcastAbout(MSG_NAME, this.#announced[slot] !== 0 ? EVERYONE : slot, slot, id);
    t.host.log(LogEvent.Rename, slot, id);
  }

  /** Selection from `slot`: checked, flood-limited, then to the player and (once announced) everyone. */
  select(slot: number, id: number, p: number): void {
    const t = this.#state;
    const f = this.#fields;
    readSelection(t.rx, p, f);
    if (f.id !== id) return this.#spoofed(slot);
    if (f.a >= t.config.shipTypes || f.b >= t.config.weaponTypes) {
      t.counters[Counter.BadSelection]++;
      return this.misbehave(slot);
    }
    if (!this.#take(this.#selectTokens, this.#selectAt, slot, CHANGE_BURST, CHANGE_REFILL_MS)) {
      t.counters[Counter.Refused]++;
      return;
    }
    t.ship[slot] = f.a;
    t.weapon[slot] = f.b;
    t.selected[slot] = 1;
    this.#broadcastAbout(MSG_SELECTION, this.#announced[slot] !== 0 ? EVERYONE : slot, slot, id);
  }

  /**
   * A strike. At most one counts per STRIKE_WINDOW_MS and one decays every STRIKE_DECAY_MS,
   * so a kick takes a sustained pattern (misbehaviourLimit strikes net), not a burst.
   */
  misbehave(slot: number): void {
    const t = this.#state;
    t.counters[Counter.Misbehaviour]++;
    const now = t.now;
    if (((now - t.strikeAt[slot]) | 0) < STRIKE_WINDOW_MS) return;
    t.strikeAt[slot] = now;
    if (++t.misbehaviour[slot] >= t.config.misbehaviourLimit && t.pendingKick[slot] === 0) {
      t.pendingKick[slot] = KickReason.Misbehaviour;
      t.kickPending = true;
    }
  }

  #spoofed(slot: number): void {
    this.#state.counters[Counter.SpoofedId]++;
    this.misbehave(slot);
  }

  /**
   * Takes a token from `slot`'s bucket (`tokens`, refilled one every `refillMs` since
   * `at`, up to `burst`): false when it is empty.
   */
  #take(tokens: Uint8Array, at: Int32Array, slot: number, burst: number, refillMs: number): boolean {
    const now = this.#state.now;
    let t = tokens[slot];
    if (t < burst) {
      let since = at[slot];
      while (t < burst && ((now - since) | 0) >= refillMs) {
        t++;
        since += refillMs;
      }
      at[slot] = since;
      if (t === 0) return false;
    }
    // A full bucket starts its next refill from now.
    if (t === burst) at[slot] = now;
    tokens[slot] = t - 1;
    return true;
  }

  // ---------------------------------------------------------------- the ring

  /**
   * Name, Selection or Join of player `who`, to `target` (EVERYONE, EXCEPT | slot or a slot):
   * a new Name or Selection goes to the player itself and, once it is announced, to everyone.
   */
  #broadcastAbout(type: number, target: number, who: number, id: number = this.#state.playerId(who)): void {
    const t = this.#state;
    const at = this.#scratchAt;
    const v = this.#wholeView;
    // The type byte, then the payload, as #broadcast takes it, a call a field: the id, then
    // for a Name its stored name (NUL-padded to NAME_LENGTH), for a Selection the ship and
    // the weapon (codec.ts has the layouts).
    v.setUint8(at, type);
    v.setUint32(at + 1, id);
    let n = 4;
    if (type === MSG_NAME) {
      this.#copyName(at + 5, who);
      n = 4 + NAME_LENGTH;
    } else if (type === MSG_SELECTION) {
      v.setUint16(at + 5, (t.ship[who] << 8) | t.weapon[who]);
      n = 6;
    }
    this.#broadcast(type, target, at + 1, n);
  }


  /**
   * Puts the message of `type` whose `length`-byte payload is at `from` (an offset in the
   * arena: `scratch` or `rx`), its type byte just before it, into the ring for `target`,
   * then lets every player take what it has room for. A player the new
   * entry would lap (it has not taken an entry that the ring must now overwrite) has failed
   * to keep up: it is dropped, as one that timed out.
   *
   * A player that had taken every earlier entry (the usual case) takes this one here, from
   * `from`, with one copyWithin and no read of the ring; any other goes through #pump. The
   * entry's bytes go into the ring only when some player will read them there: one that
   * is behind, or one that does not take it here.
   */
  #broadcast(type: number, target: number, from: number, length: number): void {
    const t = this.#state;
    const head = this.#ringHead;
    const end = (head + ENTRY_HEADER + length) | 0;
    const source = from - 1;
    const bytes = length + 1;
    this.#ringHead = end;
    // Read once, not per player: each read is a property lookup, each typed-array element
    // hundreds of instructions on XS; who is active and who is a bot are bits.
    const active = t.activeMask;
    // The players this entry laps, among those behind, before any is dropped.
    let lapped = 0;
    const behind = active & ~this.#current;
    if (behind !== 0) {
      this.#write(head, target, source, bytes);
      for (let s = 0; behind >> s !== 0; s++)
        if (((behind >> s) & 1) !== 0 && ((head - t.cursor[s]) | 0) + ENTRY_HEADER + length > BROADCAST_BYTES) lapped |= 1 << s;
      // Dropping one puts its Leave into the ring after this entry: everyone then reads
      // the ring from its cursor, in order.
      if (lapped !== 0) this.#fallBehind(active & this.#current, head);
    }
    // Those behind (all of them after a lap), in slot order: dropped if lapped, else the ring.
    let direct = active & this.#current;
    const others = active & ~direct;
    for (let s = 0; others >> s !== 0; s++) {
      if (((others >> s) & 1) === 0) continue;
      if (((lapped >> s) & 1) !== 0) {
        // Lapped: dropped like a player that timed out (nothing is sent to it).
        t.counters[Counter.Timeouts]++;
        t.counters[Counter.Laggards]++;
        t.host.log(LogEvent.Timeout, s, t.playerId(s));
        this.#admission!.remove(s);
      } else this.#pump(s);
    }
    // The others had taken every earlier entry, and take this one here, as #pump would:
    // one to be kicked takes nothing more (it falls behind), a bot or one it is not for
    // skips it, and one whose queue has no room falls behind.
    if (t.kickPending && direct !== 0) {
      const pendingKick = t.pendingKick;
      let kicked = 0;
      for (let s = 0; direct >> s !== 0; s++) if (((direct >> s) & 1) !== 0 && pendingKick[s] !== 0) kicked |= 1 << s;
      this.#fallBehind(kicked, head);
      direct &= ~kicked;
    }
    direct &= ~t.botMask & recipients(target);
    if (direct !== 0) {
      // What the message must leave free in a queue after it (a Leave may use the reserve).
      const reserve = type === MSG_LEAVE ? LEAVE_SIZE : t.leaveReserve;
      // One native call copies it into every queue (modules/kernels/transport.c) and starts
      // the wait of a front it put into an empty queue (frontSince): back come those that took it.
      const full = direct & ~t.endpointTable.broadcast(direct, source, bytes, reserve, t.now);
      if (full !== 0) {
        this.#ringWaiting = true;
        this.#fallBehind(full, head);
      }
    }
    if (behind === 0 && (active & ~this.#current) !== 0) this.#write(head, target, source, bytes);
  }

  /** The ring entry at `head`: its length and target, then the type and payload from `source`, in one piece or, across the ring's end, two. */
  #write(head: number, target: number, source: number, bytes: number): void {
    const b = this.#state.ring;
    const m = BROADCAST_BYTES - 1;
    b[head & m] = bytes - 1;
    b[(head + 1) & m] = target;
    const whole = this.#whole;
    const ring = this.#ringAt;
    const at = (head + 2) & m;
    const first = BROADCAST_BYTES - at;
    if (bytes <= first) whole.copyWithin(ring + at, source, source + bytes);
    else {
      whole.copyWithin(ring + at, source, source + first);
      whole.copyWithin(ring, source + first, source + bytes);
    }
  }

  /** The players in `mask`, current until now, read the ring from `at` on. */
  #fallBehind(mask: number, at: number): void {
    const cursor = this.#state.cursor;
    for (let s = 0; mask >> s !== 0; s++) if (((mask >> s) & 1) !== 0) cursor[s] = at;
    this.#current &= ~mask;
  }

  /** Each tick: players whose queues were full when an entry came take it now, if they have room. */
  pumpWaiting(): void {
    if (!this.#ringWaiting) return;
    this.#ringWaiting = false;
    const t = this.#state;
    for (let s = 0; s < t.config.maxPlayers; s++) if (t.active[s] !== 0 && ((this.#current >> s) & 1) === 0) this.#pump(s);
  }

  /**
   * Moves ring entries for `slot`, a player that is behind, into its queue, in order, while
   * it has room (a Leave may use the reserve). An entry is `length, type, target, payload`;
   * target EVERYONE, EXCEPT | slot, or a slot. A player that takes them all is current again.
   */
  #pump(slot: number): void {
    const t = this.#state;
    const head = this.#ringHead;
    let c = t.cursor[slot];
    if (t.pendingKick[slot] !== 0) return;
    if (c === head || t.bot[slot] !== 0) {
      // A bot reads nothing: it knows what it needs from the game's tables.
      this.#current |= 1 << slot;
      return;
    }
    const ep = t.endpoints[slot];
    const reserve = t.leaveReserve;
    const b = t.ring;
    const m = BROADCAST_BYTES - 1;
    const whole = this.#whole;
    const ring = this.#ringAt;
    const queue = this.#queueAt[slot];
    while (((head - c) | 0) > 0) {
      const n = b[c & m];
      const target = b[(c + 1) & m];
      if (((recipients(target) >> slot) & 1) !== 0) {
        const type = b[(c + 2) & m];
        if (!ep.canQueue(n + (type === MSG_LEAVE ? LEAVE_SIZE : reserve))) {
          this.#ringWaiting = true;
          break;
        }
        if (ep.count === 0) t.frontSince[slot] = t.now;
        // The payload, in one piece or, across the ring's end, two.
        const to = queue + ep.queue(type, n);
        const at = (c + ENTRY_HEADER) & m;
        const first = BROADCAST_BYTES - at;
        if (n <= first) whole.copyWithin(to, ring + at, ring + at + n);
        else {
          whole.copyWithin(to, ring + at, ring + BROADCAST_BYTES);
          whole.copyWithin(to + first, ring, ring + n - first);
        }
      }
      c = (c + ENTRY_HEADER + n) | 0;
    }
    t.cursor[slot] = c;
    if (c === head) this.#current |= 1 << slot;
  }

  // ---------------------------------------------------------------- queued to one player

  #sendJoin(to: number, who: number): void {
    const t = this.#state;
    const o = t.reserve(to, MSG_JOIN, 4);
    if (o >= 0) writeId(t.endpoints[to].buf, o, t.playerId(who));
  }

  #sendName(to: number, who: number): void {
    const o = this.#state.reserve(to, MSG_NAME, 4 + NAME_LENGTH);
    if (o >= 0) this.#putName(this.#queueAt[to] + o, who);
  }

  /**
   * A Name's payload for `who` at `at` in the arena: its id, then its stored name, which is
   * NUL-padded to NAME_LENGTH (#setName), copied whole: what writeName writes, in two calls.
   */
  #putName(at: number, who: number): void {
    this.#wholeView.setUint32(at, this.#state.playerId(who));
    this.#copyName(at + 4, who);
  }

  /** The stored name of `who`, NUL-padded to NAME_LENGTH, copied whole to `at` in the arena. */
  #copyName(at: number, who: number): void {
    const from = this.#namesAt + who * NAME_LENGTH;
    this.#whole.copyWithin(at, from, from + NAME_LENGTH);
  }

  #sendSelection(to: number, who: number): void {
    const t = this.#state;
    const o = t.reserve(to, MSG_SELECTION, 6);
    if (o >= 0) writeSelection(t.endpoints[to].buf, o, t.playerId(who), t.ship[who], t.weapon[who]);
  }

  // ---------------------------------------------------------------- names

  #defaultName(slot: number): void {
    const s = this.#state.nameScratch;
    // "Player N", N = slot + 1
    s[0] = 0x50; s[1] = 0x6c; s[2] = 0x61; s[3] = 0x79; s[4] = 0x65; s[5] = 0x72; s[6] = 0x20;
    s[7] = 0x31 + slot;
    this.#setName(slot, s, 0, 8);
  }

  /** A bot's name: `star` and " [bot]", made unique like any name. Allocates nothing. */
  nameBot(slot: number, star: string): void {
    const b = this.#state.nameScratch;
    let n = 0;
    for (let i = 0; i < star.length; i++) b[n++] = star.charCodeAt(i);
    for (let i = 0; i < BOT_SUFFIX.length; i++) b[n++] = BOT_SUFFIX.charCodeAt(i);
    this.#setName(slot, b, 0, n);
  }

  /**
   * Store a name for `slot`, made unique among players with a "-N" suffix. `src` is one of
   * the arena's buffers (`rx`, `nameScratch`): the name moves with copyWithin.
   */
  #setName(slot: number, src: Uint8Array, from: number, length: number): void {
    // Copied, made unique among the active players ("-2", "-3", ...: letters compared
    // without their case) and NUL-padded in C (modules/kernels/session.c): one call.
    const b = this.#nameBinding;
    this.#kernels.name(b.layout, b.m0, b.m1, b.m2, b.m3, slot, src.byteOffset + from, length, this.#state.activeMask);
  }

}
