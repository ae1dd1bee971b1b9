/**
 * The memory of every native binding (modules/native.ts), declared once. For each binding:
 * the arrays its kernels read or write, in the order of their numbers; the scalar words
 * after them (a name, or [name, count] for a run of words, count 0 for a run whose length
 * the binding's owner gives); and the codes its kernels return or leave in a word.
 *
 * `npm run build:native-header` writes from this hosts/moddable/kernels.h (the C's numbers)
 * and modules/native-words.ts (the same numbers as const enums for the JavaScript);
 * test/native/layout.test.ts fails when either is stale. Plain data: no code runs here.
 */

export type WordSpec = string | readonly [string, number];

export interface BindingLayout {
  readonly arrays: readonly string[];
  readonly words: readonly WordSpec[];
  readonly codes?: readonly string[];
}

export const NATIVE_LAYOUT = {
  /** PriorityPlanner: plan, commit, notify (modules/server/updates.ts). */
  plan: {
    arrays: [
      "x", "y", "vx", "vy", "owner", "steady", "focusX", "focusY", "focusIndex", "sets", "tick", "cursor", "known", "list",
      "actions",
    ],
    words: [
      "capacity", "words", "limit", "near", "mid", "far", "hasFocus", "hasSteady", "posShift",
      // Results of plan, read by commit.
      "ownEnd", "freshEnd", "carriedEnd", "planned",
    ],
  },
  /** The Update entry loop (Server#sendUpdates); `o` and `k` are results. */
  pack: {
    arrays: ["entries", "encoded", "x", "y", "vx", "vy", "rot", "health", "list"],
    words: ["maxPacket", "stepHz", "posShift", "angleBits", "centidegrees", "o", "k"],
  },
  /** The entity sync (Server#sync): `queue` holds one byte offset per player. */
  sync: {
    arrays: ["dirty", "alive", "generation", "known", "owner", "type", "arena", "actions"],
    words: [
      "capacity", "words", "actionRoom", "queueBytes", "keep",
      // In and out: the queue's length and next seqno; out: messages written, why it stopped.
      "used", "seq", "messages", "state",
      ["queue", 0],
    ],
    /** Why it stopped: the slot is done, its queue is at the line it keeps, the action list is full. */
    codes: ["done", "room", "actions"],
  },
  /** Game#moveShots; `listed`, `doomed`, `why` and `slot` are results. */
  shot: {
    arrays: [
      "x", "y", "vx", "vy", "owner", "type", "list", "doomed", "expires", "gravity", "radius", "bodyIndex", "focusIndex", "hp",
      "playerId", "prevX", "prevY", "bodyPrevX", "bodyPrevY", "mask",
    ],
    words: [
      "gridHalf", "gridShift", "gridSide", "octMin", "octMax", "tMask", "dShift", "sShift", "zones", "planetBit", "shipBit",
      "planetBits", "sunRadius", "arenaR2", "planetNear", "reach", "armSteps", "shotBase", ["life", 4],
      "steps", "dither", "listed", "doomed", "why", "slot",
    ],
    /** Why it stopped: done; list[k] hit a ship; list[k] moved and its pull is the JavaScript's. */
    codes: ["done", "hit", "pull"],
  },
  /** Game#moveShip; the runs of four are per ship type; `touching`, `cos`, `sin` are results. */
  ship: {
    arrays: [
      "x", "y", "vx", "vy", "rot", "type", "radius", "focusIndex", "input", "prevX", "prevY", "sine", "gravity", "contact",
      "bodyIndex", "pull", "mask",
    ],
    words: [
      "shipBase", "headings", "forward", "backward", "left", "right", "shooting", "gridHalf", "gridShift", "gridSide",
      "octMin", "tMask", "dShift", "sShift", "planetBit", "planetBits", "bodies", "farPull", "one", "arenaRadius",
      ["turn", 4], ["thrust", 4], ["maxSpeed", 4], ["clampScale", 4],
      "steps", "dither", "touching", "cos", "sin",
    ],
    /** What it did: moved the ship; moved it, and it touches something or may fire; left it to the JavaScript. */
    codes: ["moved", "effects", "redo"],
  },
  /** Game#clearance: `want` holds a pair per template (radius counts: 0 or 1, plus). */
  clear: {
    arrays: ["alive", "type", "radius", "x", "y", "rsqrtSeed"],
    words: ["capacity", "posShift", "one", "templates", "otherPlus", "wideOpen", ["want", 0]],
  },
} as const satisfies Record<string, BindingLayout>;

export type BindingName = keyof typeof NATIVE_LAYOUT;

/** The arrays of binding `L`, by name. */
export type BindingArrays<L extends BindingLayout> = { readonly [K in L["arrays"][number]]: ArrayBufferView };

/** Word `name`'s index among `layout`'s scalar words (the first of a run); -1 if it has none. */
export function wordIndex(layout: BindingLayout, name: string): number {
  let at = 0;
  for (const w of layout.words) {
    if (typeof w === "string") {
      if (w === name) return at;
      at++;
    } else {
      if (w[0] === name) return at;
      at += w[1];
    }
  }
  return -1;
}

/** How many scalar words `layout` declares (a run of count 0 adds none: its owner says how many). */
export function wordCount(layout: BindingLayout): number {
  let at = 0;
  for (const w of layout.words) at += typeof w === "string" ? 1 : w[1];
  return at;
}
