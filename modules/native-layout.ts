/**
 * The memory of every native binding (modules/native.ts), declared once. For each binding:
 * the arrays its kernels read or write, in the order of their numbers; the scalar words
 * after them; and the codes its kernels return or leave in a word.
 *
 * `npm run build:native-header` writes from this modules/kernels/layout.h (the C's numbers)
 * and modules/native-words.ts (the same numbers as const enums for the JavaScript);
 * test/native/layout.test.ts fails when either is stale.
 */

/**
 * Names are space-separated in one string per list (on XS a string is one slot where an
 * array of names is a slot each, and lwxs counts every slot against the board's budget).
 * A word `name*4` is a run of four words, `name*0` a run whose length the binding's owner
 * gives (it must come last).
 */
export interface BindingLayout {
  readonly arrays: string;
  readonly words: string;
  readonly codes?: string;
  /** What the kernel's run argument may ask for, when it has one. */
  readonly runs?: string;
}

/** The ship loop's arrays and words: its own binding's (the page) and the start of the game step's. */
const SHIP_ARRAYS = "x y vx vy rot type radius focusIndex input prevX prevY sine gravity contact bodyIndex pull mask rsqrtSeed";
const SHIP_WORDS =
  "shipBase headings forward backward left right shooting gridHalf gridShift gridSide octMin tMask dShift sShift " +
  "planetBit planetBits bodies farPull arenaRadius turn*4 thrust*4 maxSpeed*4 clampScale*4 steps dither touching cos sin";

/**
 * One endpoint's delivery state (modules/transport/endpoint.ts), a run of words per endpoint
 * in the transport binding's `state` array, `ENDPOINT_STRIDE` words apart. `srtt` is a
 * double (two words, the first at an even index: the array is 8-byte aligned); the rest are
 * int32, seqnos and times wrapping as uint32 and JavaScript's `| 0` do.
 */
export const ENDPOINT_WORDS =
  "srtt*2 count ackDue sentCount sentBytes usedBytes firstSeq nextSeq lastProcessed lastReliableSend lastHeard " +
  "probing probeSeq probeSent unmeasured sent resent filledMessages hasTimestamp newestTimestamp newestAt";

export const NATIVE_LAYOUT = {
  /** PriorityPlanner: plan, commit, notify (modules/server/updates.ts); the last four words are plan's results. */
  plan: {
    arrays: "x y vx vy owner steady focusX focusY focusIndex sets tick cursor known list actions",
    words: "capacity words limit near mid far hasFocus hasSteady posShift ownEnd freshEnd carriedEnd planned",
  },
  /**
   * A packet's unreliable part (modules/server/entries.ts): Stats, the Update and its entry
   * loop; `o` and `k` are results. `counters` are the server's: it counts what it wrote and
   * the packet, which goes out right after.
   */
  pack: {
    arrays: "entries encoded generation x y vx vy rot health list scores pings counters",
    words: "maxPacket stepHz posShift angleBits centidegrees o k",
  },
  /** The entity sync (modules/server/entity-sync.ts): `queue` holds one byte offset per player. */
  sync: {
    // `sets` and `seen`: the priority planner's bit sets and what each player knows, when it
    // hears of the actions here (`notify` 1).
    arrays: "dirty alive generation known owner type arena actions sets seen",
    // In and out: the queue's length and next seqno; out: messages written, why it stopped.
    words: "capacity words actionRoom queueBytes keep notify used seq messages state queue*0",
    /** Why it stopped: the slot is done, its queue is at the line it keeps, the action list is full. */
    codes: "done room actions",
  },
  /** Folding the indices added or removed since the last sync into each player's dirty bits (modules/server/entity-sync.ts). */
  mark: {
    arrays: "dirty pending",
    words: "words",
  },
  /**
   * The transport (modules/transport/endpoint.ts, receive.ts): the delivery state of
   * `endpoints` peers (ENDPOINT_WORDS each in `state`), their reliable queues (`queueBytes`
   * each, back to back in `queues`), the buffer packets are written into (`out`) and the
   * statistics sink (`counters`, at `sentIndex` and `resentIndex`), and when each queue's
   * front began to wait (`front`, one int32 a peer: a broadcast into an empty queue and an
   * ack that moves the front stamp it with their time). `sizes` is the payload
   * size of each message type from `typeBase`, -1 for a text: `textPrefix` bytes, then up to
   * `textMax` bytes ending at a NUL. The runs are what a call does; the codes, what a fill
   * or a queueing says besides its offset.
   */
  transport: {
    arrays: "state queues out counters front",
    words: "endpoints queueBytes maxPacket typeBase types resendMs appId sentIndex resentIndex textPrefix textMax sizes*0",
    runs:
      "reset receiveReset queue queueCopy broadcast commit acknowledge receive receiveAt acceptReliable acceptUnreliable " +
      "wantsSend owed due dueMask fill repeat ping",
    codes: "tooBig badType unmeasured badSpan badSeq badCommit",
  },
  /**
   * The session's names (modules/server/session.ts, modules/kernels/session.c): each player's
   * row of NAME_LENGTH bytes in `names`, its length in `nameLength`, and the arena a new name
   * is copied from; `players` rows.
   */
  name: {
    arrays: "names nameLength arena",
    words: "players",
  },
  /** The ships' step (modules/game/ship-stepper.ts, the page's own ship); the runs of four are per ship type; `touching`, `cos`, `sin` are results. */
  ship: {
    arrays: SHIP_ARRAYS,
    words: SHIP_WORDS,
    /** What it did: moved the ship; moved it, and it touches something or may fire. */
    codes: "moved effects",
  },
  /**
   * The game's step (modules/game/step-native.ts). Its arrays and words begin with the ship
   * loop's, in the same order, so that the step runs the ship loop on its own memory. The
   * runs of four are per ship or weapon type; from `phase` on, the step's own state, and
   * what it hands the game at a stop and takes back.
   */
  game: {
    arrays:
      `${SHIP_ARRAYS} owner health steady list doomed expires hp playerId bodyPrevX bodyPrevY present cooldown respawnStep ` +
      "newcomer selected guardUntil killer killedWith shipType weaponType focusX focusY orbitPhase orbitOmega orbitR32 " +
      "orbitSpeed markX markY base counters alive",
    words:
      `${SHIP_WORDS} maxPlayers ditherStep zones shipBit sunRadius arenaR2 planetNear reach armSteps shotBase ` +
      "shotCapacity posShift orbitFraction orbitTurnMask markSteps planetMark gentle planetBounce planetDamage " +
      "planetDamageBase shipHp*4 hpReciprocal*4 weaponCooldown*4 weaponVelocity*4 weaponLife*4 weaponDamage*4 shotRadius*4 " +
      "phase next inner innerMask rammed listed doomed dying shots slot other fireType fireOwner fireX fireY added ramDamage " +
      "end clearX clearY spawnReach spawnWant*10 spawnRadius*10",
    /**
     * Why it stopped: the step is done; `slot` is due a ship (spawnShip); the entity table
     * must add a projectile (`fire*`; its index into `added`); ships of `slot` and `other`
     * touched (the bounce into `ramDamage`); the doomed projectiles must leave the table
     * (and the step is done unless `dying` ships died); the ship of `slot` died.
     */
    codes: "done spawn fire ram reap die",
    /**
     * What a call does: begin a step; go on after a stop; place the bodies and mark the grid
     * (start-up); say how clear (clearX, clearY) is for a spawn (spawnClearance).
     */
    runs: "step resume place clear",
  },
} as const satisfies Record<string, BindingLayout>;

export type BindingName = keyof typeof NATIVE_LAYOUT;

/** A binding's arrays, by name. */
export type BindingArrays = { readonly [name: string]: ArrayBufferView };

/** The names in a space-separated list. Allocates: start-up and tools only. */
export function names(list: string | undefined): string[] {
  return list === undefined || list === "" ? [] : list.split(" ");
}

/** How many scalar words `layout` declares (a run `name*0` adds none: its owner says how many). */
export function wordCount(layout: BindingLayout): number {
  let at = 0;
  for (const w of names(layout.words)) {
    const star = w.indexOf("*");
    at += star < 0 ? 1 : Number(w.slice(star + 1));
  }
  return at;
}
