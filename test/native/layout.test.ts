/**
 * The native bindings' one declaration (modules/native-layout.ts): the generated C header
 * and TypeScript enums are what it makes now, the header numbers each array and word as
 * the declaration orders them, and a real match binds, for every binding and by name, each
 * array word to the array given under that name.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeConfig } from "../../modules/config";
import { createMatch } from "../../modules/match";
import type { Binding, Kernels } from "../../modules/native";
import { KERNEL_NAMES } from "../../harness/kernels";
import { type BindingLayout, NATIVE_LAYOUT, names } from "../../modules/native-layout";
import { AddAt, UPDATE_HEALTH_MAX, UPDATE_MAX_ENTRIES, UpdateEntryAt } from "../../modules/protocol/constants";
import { ONE } from "../../modules/game/geometry";
import { EDGE_BOUNCE } from "../../modules/game/ships";
import { SHOT_HALF2 } from "../../modules/game/shots";
import { SHOT_MAX_VELOCITY } from "../../modules/game/templates";
import { WIDE_OPEN } from "../../modules/game/spawn";
import { writeAdd, writeUpdateEntry } from "../../modules/protocol/codec";
import { NO_PLAYER } from "../../modules/game/entities";
import { CARRIED, FRESH, MAX_UPDATE_GAP, SETS, WHEEL } from "../../modules/server/updates";
import { SyncWord } from "../../modules/native-words";
import {
  cName, GAME_CONSTANTS, HEADER_PATH, PLANNER_CONSTANTS, renderHeader, renderWords, staleFiles, wordCount, wordIndex, wordRows, WORDS_PATH,
} from "../../tools/native/header";

const LOOPS_PATH = HEADER_PATH.replace(/layout\.h$/, "loops.c");
/** The loops and the files that compile them in for each engine. */
const C_PATHS = [
  LOOPS_PATH, HEADER_PATH.replace(/layout\.h$/, "game.c"), HEADER_PATH.replace(/layout\.h$/, "shots.c"), HEADER_PATH.replace(/layout\.h$/, "wasm.c"),
  fileURLToPath(new URL("../../hosts/moddable/kernels.c", import.meta.url)),
];

/** Every `NAME = value` of the header's enums and defines. */
function headerNumbers(): Map<string, number> {
  const text = readFileSync(HEADER_PATH, "utf8");
  const numbers = new Map<string, number>();
  for (const m of text.matchAll(/\b([A-Z][A-Z0-9_]*) = (\d+)/g)) numbers.set(m[1], Number(m[2]));
  for (const m of text.matchAll(/#define ([A-Z][A-Z0-9_]*) (\d+)/g)) numbers.set(m[1], Number(m[2]));
  return numbers;
}

/** Kernels that do nothing: the core builds its bindings with them and never calls them here. */
function idleKernels(): Kernels {
  const k = {} as Record<string, () => number>;
  for (const name of KERNEL_NAMES) k[name] = () => 0;
  return k as unknown as Kernels;
}

class QuietHost {
  send(): void {}
  now(): number {
    return 1000;
  }
  log(): void {}
}

describe("native layout", function () {
  it("layout.h and native-words.ts are what the declaration makes now (npm run build:native-header)", function () {
    assert.deepEqual(staleFiles(), []);
    assert.equal(readFileSync(HEADER_PATH, "utf8"), renderHeader());
    assert.equal(readFileSync(WORDS_PATH, "utf8"), renderWords());
  });

  it("the header numbers every array, word and code as the declaration orders them", function () {
    const numbers = headerNumbers();
    for (const [key, layout] of Object.entries(NATIVE_LAYOUT) as Array<[string, BindingLayout]>) {
      const p = cName(key);
      names(layout.arrays).forEach((a, i) => assert.equal(numbers.get(`${p}_MEM_${cName(a)}`), i, `${key}.${a}`));
      assert.equal(numbers.get(`${p}_MEMS`), names(layout.arrays).length, `${key}: array count`);
      for (const [name] of wordRows(layout))
        assert.equal(numbers.get(`${p}_WORD_${cName(name)}`), wordIndex(layout, name), `${key} word ${name}`);
      assert.equal(numbers.get(`${p}_WORDS`), wordCount(layout), `${key}: word count`);
      names(layout.codes).forEach((c, i) => assert.equal(numbers.get(`${p}_STOP_${cName(c)}`), i, `${key} code ${c}`));
    }
  });

  it("the game step's arrays and words begin with the ship loop's, in its order: the step runs that loop on its memory", function () {
    const numbers = headerNumbers();
    names(NATIVE_LAYOUT.ship.arrays).forEach((a, i) => assert.equal(numbers.get(`GAME_MEM_${cName(a)}`), i, `game.${a}`));
    for (const [name, at] of wordRows(NATIVE_LAYOUT.ship)) assert.equal(numbers.get(`GAME_WORD_${cName(name)}`), at, `game word ${name}`);
  });

  it("the header's wire offsets are the protocol's", function () {
    const numbers = headerNumbers();
    for (const [k, v] of Object.entries(UpdateEntryAt)) assert.equal(numbers.get(`LW_ENTRY_${cName(k)}`), v, `entry ${k}`);
    for (const [k, v] of Object.entries(AddAt)) assert.equal(numbers.get(`LW_ADD_${cName(k)}`), v, `Add ${k}`);
    assert.equal(numbers.get("LW_UPDATE_MAX_ENTRIES"), UPDATE_MAX_ENTRIES);
    assert.equal(numbers.get("LW_UPDATE_HEALTH_MAX"), UPDATE_HEALTH_MAX);
  });

  it("the header's game constants are the TypeScript's", function () {
    const numbers = headerNumbers();
    const expected: Record<string, number> = { ONE, EDGE_BOUNCE, SHOT_MAX_VELOCITY, SHOT_HALF2, WIDE_OPEN };
    assert.deepEqual(GAME_CONSTANTS, expected);
    for (const [k, v] of Object.entries(expected)) assert.equal(numbers.get(`LW_${k}`), v, k);
  });

  it("the header's planner constants and NO_PLAYER are the TypeScript's", function () {
    const numbers = headerNumbers();
    const expected: Record<string, number> = { WHEEL, SETS, FRESH, CARRIED, MAX_UPDATE_GAP };
    assert.deepEqual(PLANNER_CONSTANTS, expected);
    for (const [k, v] of Object.entries(expected)) assert.equal(numbers.get(`LW_${k}`), v, k);
    const noPlayer = /#define LW_NO_PLAYER 0x([0-9a-f]+)u\n/.exec(readFileSync(HEADER_PATH, "utf8"));
    assert.ok(noPlayer !== null, "LW_NO_PLAYER is in the header");
    assert.equal(Number.parseInt(noPlayer[1], 16), NO_PLAYER);
  });

  it("the C declares no number of its own: its constants come from the header", function () {
    for (const path of C_PATHS) {
      // Object-like macros only (a function-like one has "(" right after its name). LW_VIEWS is
      // the calling convention's count of views (m0..m3), not a shared constant.
      const own = [...readFileSync(path, "utf8").matchAll(/^#define ([A-Za-z_][A-Za-z0-9_]*)[ \t]/gm)].map((m) => m[1]).filter((n) => n !== "LW_VIEWS");
      assert.deepEqual(own, [], path);
    }
    const text = readFileSync(LOOPS_PATH, "utf8");
    for (const k of [...Object.keys(PLANNER_CONSTANTS), "NO_PLAYER"]) assert.match(text, new RegExp(`\\bLW_${k}\\b`), `loops.c uses LW_${k}`);
  });

  it("the codec writes an Update entry and an Add at the offsets the header gives the C", function () {
    const b = new Uint8Array(20);
    writeUpdateEntry(b, 0, 0x01020304, 0x0506, 0x0708, 0x090a, 0x0b0c, 0x0d0e, 0x0f);
    const v = new DataView(b.buffer);
    assert.equal(v.getUint32(UpdateEntryAt.id), 0x01020304);
    assert.equal(v.getInt16(UpdateEntryAt.x), 0x0506);
    assert.equal(v.getInt16(UpdateEntryAt.y), 0x0708);
    assert.equal(v.getInt16(UpdateEntryAt.vx), 0x090a);
    assert.equal(v.getInt16(UpdateEntryAt.vy), 0x0b0c);
    assert.equal(v.getUint16(UpdateEntryAt.rot), 0x0d0e);
    assert.equal(b[UpdateEntryAt.health], 0x0f);
    b.fill(0);
    assert.equal(writeAdd(b, 0, 0x11121314, 0x21222324, 0x31), AddAt.size);
    assert.equal(v.getUint32(AddAt.entityId), 0x11121314);
    assert.equal(v.getUint32(AddAt.playerId), 0x21222324);
    assert.equal(b[AddAt.typeId], 0x31);
  });

  it("a real match binds each array, by name, to the array given under that name", function () {
    const bindings: Binding[] = [];
    const { server, game } = createMatch(makeConfig({ maxPlayers: 8, maxEntities: 192 }), new QuietHost(), 1, { kernels: idleKernels(), bindings });
    assert.ok(game !== null);
    // One binding per declared layout: the planner, the entries, the sync and its marking, and
    // the game's step (the ship loop's own is the page's: ship-stepper.ts); the sync's twice,
    // the second when the game's planner came in, with the planner's sets.
    const keyOf = (b: Binding): string => Object.entries(NATIVE_LAYOUT).find(([, l]) => l === b.declared)?.[0] ?? "?";
    const keys = bindings.map(keyOf);
    assert.deepEqual([...new Set(keys)].sort(), Object.keys(NATIVE_LAYOUT).filter((k) => k !== "ship").sort());
    assert.equal(keys.filter((k) => k === "sync").length, 2);
    const sync = bindings.filter((b) => keyOf(b) === "sync");
    const planner = server.planner.syncArrays;
    assert.ok(planner !== undefined, "the game's planner takes the sync's actions in C");
    assert.equal(sync[1].arrays.sets, planner.sets);
    assert.equal(sync[1].arrays.seen, planner.seen);
    assert.equal(sync[1].words[sync[1].scalars + SyncWord.Notify], 1);
    assert.equal(sync[0].words[sync[0].scalars + SyncWord.Notify], 0, "the server's own planner hears of them from the JavaScript");
    for (const b of bindings) {
      const key = keyOf(b);
      const views = [b.m0, b.m1, b.m2, b.m3];
      assert.deepEqual(Object.keys(b.arrays).sort(), names(b.declared.arrays).sort(), `${key}: the names given are the names declared`);
      names(b.declared.arrays).forEach((name, i) => {
        const a = b.arrays[name];
        assert.equal(views[b.words[2 * i]].buffer, a.buffer, `${key}.${name}: its view`);
        assert.equal(b.words[2 * i + 1], a.byteOffset, `${key}.${name}: its offset`);
      });
      // Where the array is a public one, it is the very one.
      const e = server.entities;
      const known: Record<string, ArrayBufferView> = { x: e.x, y: e.y, vx: e.vx, vy: e.vy, rot: e.rot, owner: e.owner, alive: e.alive, generation: e.generation };
      for (const [name, a] of Object.entries(known)) if (name in b.arrays) assert.equal(b.arrays[name], a, `${key}.${name} is the entity table's`);
      if ("focusIndex" in b.arrays) assert.equal(b.arrays.focusIndex, game.focusIndex, `${key}.focusIndex is the game's`);
      if ("input" in b.arrays) assert.equal(b.arrays.input, server.input, `${key}.input is the server's`);
    }
  });
});
