/**
 * Feedback on what happens to ships, from the World's events: our ship and the screen's
 * edge flash red when our hull drops; a hit marker on a ship whose hull drops just as one
 * of our projectiles vanished next to it; a short explosion of sparks where a ship dies;
 * and the sounds that go with them, with our shots, respawns and others' chat.
 */
import { Kind, kindOf } from "../modules/game/templates";
import { MAX_PLAYERS } from "../modules/protocol/constants";
import { SLOT_COLORS } from "./render";
import { Cue, type Sound } from "./sound";
import type { World, WorldEvents } from "./world";

export const HURT_FLASH_MS = 350;
export const HIT_MARKER_MS = 300;
export const EXPLOSION_MS = 900;
/** A hull drop and one of our projectiles vanishing belong together within this (ms) and distance (wu). */
const HIT_WINDOW_MS = 350;
const HIT_DISTANCE_WU = 120;
/**
 * A projectile born and spent between two of the server's syncs never reaches us: a hull
 * drop of a ship within this range (wu) and angle (rad) of our nose, while we were firing
 * within HIT_FIRING_MS, counts as our hit too.
 */
const HIT_RANGE_WU = 1500;
const HIT_CONE = 0.45;
const HIT_FIRING_MS = 1200;
const SPARKS = 18;
/** Sounds of things this far from our ship (wu) are silent; nearer ones louder. */
const HEARING_WU = 2200;

interface Mark {
  x: number;
  y: number;
  at: number;
  slot: number;
}

/** Counts for tests and the debug hook. */
export interface EffectCounts {
  hurt: number;
  hits: number;
  explosions: number;
  sounds: number;
}

export class Effects implements WorldEvents {
  readonly sound: Sound;
  readonly #now: () => number;
  #world: World | null = null;
  /** When our hull last dropped; -1 never. */
  hurtAt = -1;
  /** When we last held fire with a ship; -1 never. */
  firedAt = -1;
  readonly hitMarks: Mark[] = [];
  readonly explosions: Mark[] = [];
  /** Our projectiles that vanished lately, and other ships hurt lately: matched into hit markers. */
  readonly #shotEnds: Mark[] = [];
  readonly #hurts: Mark[] = [];
  readonly counts: EffectCounts = { hurt: 0, hits: 0, explosions: 0, sounds: 0 };
  /** The screen-edge flash, an element whose opacity the page sets each frame. */
  readonly #edge: HTMLElement | null;
  #edgeShown = 0;
  /** When the flash of the last hull drop began: the first frame drawn after it (a busy page may draw it late, never weaker). */
  #flashFrom = -1;
  #flashFor = -1;

  constructor(sound: Sound, edge: HTMLElement | null, now: () => number) {
    this.sound = sound;
    this.#edge = edge;
    this.#now = now;
  }

  /** Listen to `world` (a new connection's) from now on. */
  follow(world: World): void {
    if (this.#world !== null && this.#world.events === this) this.#world.events = null;
    this.#world = world;
    world.events = this;
    this.#shotEnds.length = 0;
    this.#hurts.length = 0;
  }

  // ---------------------------------------------------------------- WorldEvents

  added(i: number): void {
    const w = this.#world!;
    const c = w.client;
    if ((c.owner[i] >>> 0) !== (c.selfId >>> 0) || c.selfId < 0) return;
    const kind = kindOf(c.type[i]);
    // A shot the page predicted made its sound when it was fired (shotFired).
    if (kind === Kind.Shot) {
      if (!w.fire.claims(i)) this.#play(Cue.Shot, 0.6);
    } else if (kind === Kind.Ship) this.#play(Cue.Respawn, 1);
  }

  hurt(i: number, before: number, after: number): void {
    const w = this.#world!;
    const now = this.#now();
    if (i === w.selfShip) {
      this.hurtAt = now;
      this.counts.hurt++;
      if (after > 0) this.#play(Cue.Hurt, Math.min(1, 0.4 + (before - after) / 40));
      return;
    }
    const p = w.pose(i, now);
    const slot = w.client.owner[i] & 0xffff;
    const mark = { x: p.x, y: p.y, at: now, slot };
    if (this.#match(this.#shotEnds, mark, now) !== null || this.#aimedAt(mark, now)) this.#hit(mark);
    else this.#hurts.push(mark);
  }

  removed(i: number, x: number, y: number, placed: boolean): void {
    const w = this.#world!;
    const c = w.client;
    const kind = kindOf(c.type[i]);
    const now = this.#now();
    if (kind === Kind.Shot && c.selfId >= 0 && (c.owner[i] >>> 0) === (c.selfId >>> 0)) {
      // A projectile that hit before any Update placed it could be anywhere: time alone matches it.
      const end = placed ? { x, y, at: now, slot: -1 } : { x: NaN, y: NaN, at: now, slot: -1 };
      const hurt = this.#match(this.#hurts, end, now);
      if (hurt !== null) this.#hit(hurt);
      else this.#shotEnds.push(end);
    } else if (kind === Kind.Ship && placed) {
      const slot = c.owner[i] & 0xffff;
      // The blow that destroyed it leaves no hull drop to see: our projectile beside it does.
      const mark = { x, y, at: now, slot };
      if (i !== w.selfShip && (this.#match(this.#shotEnds, mark, now) !== null || this.#aimedAt(mark, now))) this.#hit(mark);
      this.explosions.push({ x, y, at: now, slot: slot < MAX_PLAYERS ? slot : 0 });
      this.counts.explosions++;
      this.#play(Cue.Explosion, i === w.selfShip ? 1 : this.#near(x, y));
    }
  }

  /** The page fired one of our shots ahead of the server (web/fire.ts): its sound now. */
  shotFired(): void {
    this.#play(Cue.Shot, 0.6);
  }

  chat(_slot: number): void {
    this.#play(Cue.Chat, 0.8);
  }

  // ---------------------------------------------------------------- drawing

  /**
   * Draw what is live: the glow on our ship, hit markers, explosions. `cx`, `cy`: where the
   * world's origin is on screen (px); `s`: px per wu; the world is y-up.
   */
  draw(ctx: CanvasRenderingContext2D, cx: number, cy: number, s: number, now: number): void {
    const w = this.#world;
    if (w === null) return;
    const hurt = this.#flash(now);
    if (hurt < 1 && w.selfShip >= 0 && w.placed[w.selfShip] !== 0) {
      const p = w.pose(w.selfShip, now);
      const x = cx + p.x * s;
      const y = cy - p.y * s;
      const g = ctx.createRadialGradient(x, y, 0, x, y, 34);
      g.addColorStop(0, `rgba(255,90,70,${0.75 * (1 - hurt)})`);
      g.addColorStop(1, "rgba(255,60,40,0)");
      ctx.fillStyle = g;
      ctx.beginPath();
      ctx.arc(x, y, 34, 0, Math.PI * 2);
      ctx.fill();
    }
    expire(this.hitMarks, now, HIT_MARKER_MS);
    ctx.lineWidth = 2;
    ctx.strokeStyle = "#fff";
    for (const m of this.hitMarks) {
      const k = (now - m.at) / HIT_MARKER_MS;
      const x = cx + m.x * s;
      const y = cy - m.y * s;
      const a = 9 + 6 * k;
      const b = 4 + 6 * k;
      ctx.globalAlpha = 1 - k;
      ctx.beginPath();
      ctx.moveTo(x - a, y - a);
      ctx.lineTo(x - b, y - b);
      ctx.moveTo(x + a, y - a);
      ctx.lineTo(x + b, y - b);
      ctx.moveTo(x - a, y + a);
      ctx.lineTo(x - b, y + b);
      ctx.moveTo(x + a, y + a);
      ctx.lineTo(x + b, y + b);
      ctx.stroke();
    }
    expire(this.explosions, now, EXPLOSION_MS);
    for (const e of this.explosions) {
      const k = (now - e.at) / EXPLOSION_MS;
      const x = cx + e.x * s;
      const y = cy - e.y * s;
      const r = Math.max(6, 70 * s) * Math.sqrt(k);
      ctx.globalAlpha = (1 - k) * 0.8;
      const g = ctx.createRadialGradient(x, y, 0, x, y, r + 1);
      g.addColorStop(0, "#fff3c0");
      g.addColorStop(0.4, "#ff9a30");
      g.addColorStop(1, "rgba(255,60,20,0)");
      ctx.fillStyle = g;
      ctx.beginPath();
      ctx.arc(x, y, r + 1, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = SLOT_COLORS[e.slot % MAX_PLAYERS];
      ctx.globalAlpha = 1 - k;
      // Sparks on fixed bearings per explosion, flying out and slowing.
      const seed = (e.at * 7.3) % 6.28;
      for (let n = 0; n < SPARKS; n++) {
        const ang = seed + (n * 6.2832) / SPARKS + ((n * 37) % 11) * 0.05;
        const d = r * (1.2 + ((n * 53) % 7) * 0.12);
        ctx.fillRect(x + Math.cos(ang) * d - 1.5, y + Math.sin(ang) * d - 1.5, 3, 3);
      }
    }
    ctx.globalAlpha = 1;
  }

  /** Set the screen-edge flash for this frame. */
  frame(now: number): void {
    const el = this.#edge;
    if (el === null) return;
    const k = this.#flash(now);
    const shown = k < 1 ? Math.round((1 - k) * 20) / 20 : 0;
    if (shown !== this.#edgeShown) {
      this.#edgeShown = shown;
      el.style.opacity = String(shown);
    }
  }

  // ---------------------------------------------------------------- helpers

  /** How far the hull-drop flash has run at `now`, 0..1 (1: over, or none); it starts at the first frame after the drop. */
  #flash(now: number): number {
    if (this.hurtAt < 0) return 1;
    if (this.#flashFor !== this.hurtAt) {
      this.#flashFor = this.hurtAt;
      this.#flashFrom = now;
    }
    const k = (now - this.#flashFrom) / HURT_FLASH_MS;
    return k < 0 ? 0 : k;
  }

  #hit(mark: Mark): void {
    this.hitMarks.push(mark);
    this.counts.hits++;
    this.#play(Cue.Hit, 1);
  }

  /** Whether we were firing lately at where `m` is. */
  #aimedAt(m: Mark, now: number): boolean {
    const w = this.#world!;
    if (this.firedAt < 0 || now - this.firedAt > HIT_FIRING_MS || w.selfShip < 0 || w.placed[w.selfShip] === 0) return false;
    const p = w.pose(w.selfShip, now);
    const dx = m.x - p.x;
    const dy = m.y - p.y;
    if (Math.hypot(dx, dy) > HIT_RANGE_WU) return false;
    let d = (Math.atan2(dy, dx) - p.rot) % (2 * Math.PI);
    if (d > Math.PI) d -= 2 * Math.PI;
    else if (d < -Math.PI) d += 2 * Math.PI;
    return Math.abs(d) <= HIT_CONE;
  }

  /** Take from `list` the first mark near `m` in time and space; drop stale ones. */
  #match(list: Mark[], m: Mark, now: number): Mark | null {
    expire(list, now, HIT_WINDOW_MS);
    for (let k = 0; k < list.length; k++) {
      const o = list[k];
      if (o.x !== o.x || m.x !== m.x || Math.hypot(o.x - m.x, o.y - m.y) <= HIT_DISTANCE_WU) {
        list.splice(k, 1);
        return o;
      }
    }
    return null;
  }

  /** Loudness of something at x, y: 1 at our ship, 0 beyond HEARING_WU. */
  #near(x: number, y: number): number {
    const w = this.#world!;
    if (w.selfShip < 0 || w.placed[w.selfShip] === 0) return 0.5;
    const p = w.pose(w.selfShip, this.#now());
    return Math.max(0, 1 - Math.hypot(p.x - x, p.y - y) / HEARING_WU);
  }

  #play(cue: number, volume: number): void {
    const before = this.sound.played;
    this.sound.play(cue, volume);
    if (this.sound.played !== before) this.counts.sounds++;
  }
}

function expire(list: Mark[], now: number, ms: number): void {
  let n = 0;
  for (const m of list) if (now - m.at < ms) list[n++] = m;
  list.length = n;
}
