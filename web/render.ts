/**
 * The arena on a 2D canvas, once per display frame: stars, the arena edge (radius 3000 wu),
 * orbits, the sun, planets, projectiles, ships with names, headings and health, blasts,
 * arrows at the screen's edge toward ships outside the view, and a minimap. The world is
 * y-up; the canvas is y-down, so screen y = centre − y × scale and a heading turns the
 * other way on screen.
 */
import { ARENA_RADIUS, Kind, kindOf, TEMPLATE_RADIUS, TemplateId } from "../modules/game/templates";
import { MAX_PLAYERS } from "../modules/protocol/constants";
import { EDGE_COLOR, PLANET_COLORS, SLOT_COLORS, SUN_COLOR, SUN_CORE } from "./colors";
import { PREDICTED_SHOTS } from "./fire";
import { clearArrow, edgeArrow, type KeepOut, MINIMAP_MARGIN, minimapSize, viewSpan, type ShipArrow, type View } from "./layout";
import type { Drawn, World } from "./world";

export { SLOT_COLORS } from "./colors";
const BLAST_MS = 600;

export class Renderer {
  readonly canvas: HTMLCanvasElement;
  readonly ctx: CanvasRenderingContext2D;
  readonly drawn: Drawn & { view: View } = {
    frames: 0, ships: [], projectiles: [],
    view: { x: 0, y: 0, width: 0, height: 0, scale: 0, minimap: { x: MINIMAP_MARGIN, y: MINIMAP_MARGIN, size: 0 }, keepOut: [], arrows: [] },
  };
  /** Camera centre (wu) and scale (px per wu), eased towards their targets. */
  camX = 0;
  camY = 0;
  /**
   * Where the followed point (our ship) should sit, px from the screen's centre: the page
   * moves it out from under a panel (the menu over a match). Eased like the camera.
   */
  focusX = 0;
  focusY = 0;
  /** The HUD line's rectangle (css px), set by the page; null when it is empty. Arrows keep out of it. */
  hud: KeepOut | null = null;
  readonly #minimapBox: KeepOut = { left: 0, top: 0, right: 0, bottom: 0 };
  #ox = 0;
  #oy = 0;
  scale = 0;
  #w = 0;
  #h = 0;
  #dpr = 1;
  readonly #stars: Float32Array;
  /** Drawn over the world each frame: origin at (cx, cy) px, `s` px per wu, y-up. */
  overlay: ((ctx: CanvasRenderingContext2D, cx: number, cy: number, s: number, now: number) => void) | null = null;
  readonly #arrows: ShipArrow[] = [];

  constructor(canvas: HTMLCanvasElement) {
    this.canvas = canvas;
    const ctx = canvas.getContext("2d", { alpha: false });
    if (ctx === null) throw new Error("no 2D canvas");
    this.ctx = ctx;
    // Stars on a 2048 px tile in three depths: x, y, depth.
    this.#stars = new Float32Array(3 * 180);
    let seed = 12345;
    const rnd = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    for (let k = 0; k < this.#stars.length; k += 3) {
      this.#stars[k] = rnd() * 2048;
      this.#stars[k + 1] = rnd() * 2048;
      this.#stars[k + 2] = 0.15 + rnd() * 0.35;
    }
  }

  #resize(): void {
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = window.innerWidth;
    const h = window.innerHeight;
    if (w !== this.#w || h !== this.#h || dpr !== this.#dpr) {
      this.#w = w;
      this.#h = h;
      this.#dpr = dpr;
      this.canvas.width = Math.round(w * dpr);
      this.canvas.height = Math.round(h * dpr);
    }
  }

  frame(world: World, now: number): void {
    this.#resize();
    const ctx = this.ctx;
    const w = this.#w;
    const h = this.#h;
    const phase = world.phase();
    const short = Math.min(w, h);
    // Follow our ship; between lives stay where it died; otherwise show the whole arena.
    let tx = this.camX;
    let ty = this.camY;
    let span = viewSpan(short);
    if (phase === "playing") {
      const p = world.pose(world.selfShip, now);
      tx = p.x;
      ty = p.y;
    } else if (phase !== "dead") {
      tx = 0;
      ty = 0;
      span = ARENA_RADIUS * 2.15;
    }
    const target = short / span;
    if (this.scale === 0) {
      this.scale = target;
      this.camX = tx;
      this.camY = ty;
    } else {
      this.scale += (target - this.scale) * 0.08;
      const jump = Math.hypot(tx - this.camX, ty - this.camY) > 1500;
      this.camX = jump ? tx : this.camX + (tx - this.camX) * 0.35;
      this.camY = jump ? ty : this.camY + (ty - this.camY) * 0.35;
    }
    const s = this.scale;
    this.#ox += (this.focusX - this.#ox) * 0.2;
    this.#oy += (this.focusY - this.#oy) * 0.2;
    if (Math.abs(this.focusX - this.#ox) < 0.5) this.#ox = this.focusX;
    if (Math.abs(this.focusY - this.#oy) < 0.5) this.#oy = this.focusY;
    const view = this.drawn.view;
    view.width = w;
    view.height = h;
    view.scale = s;
    // The world point at the screen's centre: the camera, less the focus offset.
    view.x = this.camX - this.#ox / s;
    view.y = this.camY + this.#oy / s;
    const cx = w / 2 - view.x * s;
    const cy = h / 2 + view.y * s;
    ctx.setTransform(this.#dpr, 0, 0, this.#dpr, 0, 0);
    ctx.fillStyle = "#05070d";
    ctx.fillRect(0, 0, w, h);
    this.#drawStars(w, h);

    // Outside the arena: darker, behind a red edge.
    ctx.beginPath();
    ctx.rect(0, 0, w, h);
    ctx.arc(cx, cy, ARENA_RADIUS * s, 0, Math.PI * 2, true);
    ctx.fillStyle = "rgba(40,0,0,0.45)";
    ctx.fill();
    ctx.beginPath();
    ctx.arc(cx, cy, ARENA_RADIUS * s, 0, Math.PI * 2);
    ctx.strokeStyle = EDGE_COLOR;
    ctx.globalAlpha = 0.7;
    ctx.lineWidth = 2;
    ctx.setLineDash([10, 8]);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;

    const c = world.client;
    const live = world.live;
    const drawn = this.drawn;
    drawn.ships.length = 0;
    drawn.projectiles.length = 0;

    // Orbits, then bodies.
    ctx.lineWidth = 1;
    ctx.strokeStyle = "rgba(120,150,200,0.13)";
    for (const i of live) {
      if (world.placed[i] === 0 || kindOf(c.type[i]) !== Kind.Planet) continue;
      const p = world.pose(i, now);
      ctx.beginPath();
      ctx.arc(cx, cy, Math.hypot(p.x, p.y) * s, 0, Math.PI * 2);
      ctx.stroke();
    }
    for (const i of live) {
      if (world.placed[i] === 0) continue;
      const t = c.type[i];
      const kind = kindOf(t);
      if (kind !== Kind.Sun && kind !== Kind.Planet) continue;
      const p = world.pose(i, now);
      const x = cx + p.x * s;
      const y = cy - p.y * s;
      const r = Math.max(TEMPLATE_RADIUS[t] * s, kind === Kind.Sun ? 6 : 3);
      if (kind === Kind.Sun) {
        const g = ctx.createRadialGradient(x, y, r * 0.2, x, y, r * 2.2);
        g.addColorStop(0, SUN_CORE);
        g.addColorStop(0.42, SUN_COLOR);
        g.addColorStop(0.46, "rgba(255,150,30,0.55)");
        g.addColorStop(1, "rgba(255,120,0,0)");
        ctx.fillStyle = g;
        ctx.beginPath();
        ctx.arc(x, y, r * 2.2, 0, Math.PI * 2);
        ctx.fill();
      } else {
        const g = ctx.createRadialGradient(x - r * 0.4, y - r * 0.4, r * 0.1, x, y, r);
        g.addColorStop(0, "#ffffff");
        g.addColorStop(0.25, PLANET_COLORS[t] ?? "#888");
        g.addColorStop(1, "#10141c");
        ctx.fillStyle = g;
        ctx.beginPath();
        ctx.arc(x, y, r, 0, Math.PI * 2);
        ctx.fill();
        if (t === TemplateId.PlanetLarge) {
          ctx.strokeStyle = "rgba(230,200,160,0.5)";
          ctx.beginPath();
          ctx.ellipse(x, y, r * 1.6, r * 0.45, -0.4, 0, Math.PI * 2);
          ctx.stroke();
        }
      }
    }

    // Projectiles, with a short trail along their velocity; first our shots the page predicted.
    ctx.lineCap = "round";
    const fire = world.fire;
    const selfSlot = c.selfSlot;
    for (let k = 0; k < PREDICTED_SHOTS; k++) {
      if (!fire.drawn(k) || selfSlot < 0) continue;
      const p = fire.pose(k, now);
      const x = cx + p.x * s;
      const y = cy - p.y * s;
      ctx.globalAlpha = p.alpha;
      ctx.fillStyle = "#fff";
      ctx.beginPath();
      ctx.arc(x, y, Math.max(1.8, TEMPLATE_RADIUS[fire.type(k)] * s), 0, Math.PI * 2);
      ctx.fill();
      ctx.globalAlpha = 1;
      drawn.projectiles.push({ slot: selfSlot, x: p.x, y: p.y, predicted: true, fading: p.alpha < 1 });
    }
    for (const i of live) {
      if (world.placed[i] === 0) continue;
      const t = c.type[i];
      if (kindOf(t) !== Kind.Shot) continue;
      const p = world.pose(i, now);
      const slot = c.owner[i] & 0xffff;
      const x = cx + p.x * s;
      const y = cy - p.y * s;
      const color = SLOT_COLORS[slot % MAX_PLAYERS];
      ctx.strokeStyle = color;
      ctx.globalAlpha = 0.45;
      ctx.lineWidth = Math.max(1.5, TEMPLATE_RADIUS[t] * s);
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x - c.vx[i] * 0.05 * s, y + c.vy[i] * 0.05 * s);
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fillStyle = "#fff";
      ctx.beginPath();
      ctx.arc(x, y, Math.max(1.8, TEMPLATE_RADIUS[t] * s), 0, Math.PI * 2);
      ctx.fill();
      drawn.projectiles.push({ slot, x: p.x, y: p.y, predicted: false, fading: false });
    }

    // Ships: a narrow triangle, nose along the heading; the name above, health below.
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "center";
    for (const i of live) {
      if (world.placed[i] === 0) continue;
      const t = c.type[i];
      if (kindOf(t) !== Kind.Ship) continue;
      const p = world.pose(i, now);
      const slot = c.owner[i] & 0xffff;
      const x = cx + p.x * s;
      const y = cy - p.y * s;
      const r = Math.max(TEMPLATE_RADIUS[t] * s, 9 + (t - TemplateId.Interceptor) * 2);
      const color = SLOT_COLORS[slot % MAX_PLAYERS];
      ctx.save();
      ctx.translate(x, y);
      ctx.rotate(-p.rot);
      ctx.beginPath();
      ctx.moveTo(r * 1.7, 0);
      ctx.lineTo(-r, r * 0.7);
      ctx.lineTo(-r, -r * 0.7);
      ctx.closePath();
      ctx.fillStyle = color;
      ctx.fill();
      if ((c.owner[i] >>> 0) === (c.selfId >>> 0)) {
        ctx.strokeStyle = "#fff";
        ctx.lineWidth = 1.5;
        ctx.stroke();
      }
      ctx.restore();
      if (world.guarded(i, now)) {
        // Spawn protection: a ring that fades as the guard runs out.
        ctx.beginPath();
        ctx.arc(x, y, r * 2.2, 0, Math.PI * 2);
        ctx.strokeStyle = "rgba(140,220,255,0.75)";
        ctx.lineWidth = 2;
        ctx.setLineDash([5, 4]);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      const name = world.nameOf(slot);
      ctx.fillStyle = color;
      ctx.fillText(name, x, y - r * 1.7 - 6);
      const hw = 14;
      ctx.fillStyle = "rgba(255,255,255,0.18)";
      ctx.fillRect(x - hw, y + r * 1.7 + 5, hw * 2, 3);
      const hp = c.health[i];
      ctx.fillStyle = hp > 50 ? "#5dff7a" : hp > 25 ? "#ffd84a" : "#ff5b4a";
      ctx.fillRect(x - hw, y + r * 1.7 + 5, (hw * 2 * hp) / 100, 3);
      drawn.ships.push({ slot, name, x: p.x, y: p.y, rot: p.rot, guarded: world.guarded(i, now) });
    }

    // Blasts where ships were destroyed.
    world.expireBlasts(now, BLAST_MS);
    for (const b of world.blasts) {
      const k = (now - b.at) / BLAST_MS;
      ctx.strokeStyle = SLOT_COLORS[b.slot % MAX_PLAYERS];
      ctx.globalAlpha = 1 - k;
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.arc(cx + b.x * s, cy - b.y * s, Math.max(4, b.radius * s * (0.3 + k)), 0, Math.PI * 2);
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    if (this.overlay !== null) this.overlay(ctx, cx, cy, s, now);
    this.#edgeArrows(world, now, cx, cy, w, h);
    this.#minimap(world, now, w, h);
    drawn.frames++;
  }

  #drawStars(w: number, h: number): void {
    const ctx = this.ctx;
    const st = this.#stars;
    ctx.fillStyle = "#9fb0d0";
    for (let k = 0; k < st.length; k += 3) {
      const d = st[k + 2];
      const x = (((st[k] - this.camX * this.scale * d) % 2048) + 2048) % 2048;
      const y = (((st[k + 1] + this.camY * this.scale * d) % 2048) + 2048) % 2048;
      if (x > w || y > h) continue;
      ctx.globalAlpha = d * 1.8;
      ctx.fillRect(x, y, d > 0.35 ? 2 : 1, d > 0.35 ? 2 : 1);
    }
    ctx.globalAlpha = 1;
  }

  /** An arrow at the screen's edge toward each other ship outside the view, in its colour. */
  #edgeArrows(world: World, now: number, cx: number, cy: number, w: number, h: number): void {
    const ctx = this.ctx;
    const c = world.client;
    const s = this.scale;
    const arrows = this.drawn.view.arrows;
    arrows.length = 0;
    // What the arrows keep out of: the minimap and the HUD line.
    const keep = this.drawn.view.keepOut;
    keep.length = 0;
    const mm = this.#minimapBox;
    const size = minimapSize(w, h);
    mm.left = MINIMAP_MARGIN;
    mm.top = MINIMAP_MARGIN;
    mm.right = MINIMAP_MARGIN + size;
    mm.bottom = MINIMAP_MARGIN + size;
    keep.push(mm);
    if (this.hud !== null) keep.push(this.hud);
    for (const i of world.live) {
      if (world.placed[i] === 0 || i === world.selfShip || kindOf(c.type[i]) !== Kind.Ship) continue;
      const p = world.pose(i, now);
      const n = arrows.length;
      if (n === this.#arrows.length) this.#arrows.push({ slot: 0, x: 0, y: 0, angle: 0 });
      const a = this.#arrows[n];
      if (!edgeArrow(cx + p.x * s - w / 2, cy - p.y * s - h / 2, w, h, 12, a)) continue;
      clearArrow(a, keep, w, h);
      a.slot = c.owner[i] & 0xffff;
      arrows.push(a);
      ctx.save();
      ctx.translate(a.x, a.y);
      ctx.rotate(a.angle);
      ctx.beginPath();
      ctx.moveTo(11, 0);
      ctx.lineTo(-7, 8);
      ctx.lineTo(-3, 0);
      ctx.lineTo(-7, -8);
      ctx.closePath();
      ctx.fillStyle = SLOT_COLORS[a.slot % MAX_PLAYERS];
      ctx.fill();
      ctx.strokeStyle = "rgba(0,0,0,0.6)";
      ctx.lineWidth = 1;
      ctx.stroke();
      ctx.restore();
    }
  }

  #minimap(world: World, now: number, w: number, h: number): void {
    const ctx = this.ctx;
    const size = minimapSize(w, h);
    const mm = this.drawn.view.minimap;
    mm.size = size;
    const m = size / 2 - 4;
    const ox = MINIMAP_MARGIN + size / 2;
    const oy = MINIMAP_MARGIN + size / 2;
    const k = m / ARENA_RADIUS;
    ctx.fillStyle = "rgba(10,14,24,0.75)";
    ctx.beginPath();
    ctx.arc(ox, oy, m + 3, 0, Math.PI * 2);
    ctx.fill();
    ctx.strokeStyle = EDGE_COLOR;
    ctx.globalAlpha = 0.6;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.arc(ox, oy, m, 0, Math.PI * 2);
    ctx.stroke();
    ctx.globalAlpha = 1;
    const c = world.client;
    for (const i of world.live) {
      if (world.placed[i] === 0) continue;
      const kind = kindOf(c.type[i]);
      if (kind === Kind.Shot) continue;
      const p = world.pose(i, now);
      const x = ox + p.x * k;
      const y = oy - p.y * k;
      if (kind === Kind.Sun) ctx.fillStyle = SUN_COLOR;
      else if (kind === Kind.Planet) ctx.fillStyle = PLANET_COLORS[c.type[i]] ?? "#888";
      else ctx.fillStyle = SLOT_COLORS[(c.owner[i] & 0xffff) % MAX_PLAYERS];
      const r = kind === Kind.Sun ? 3 : kind === Kind.Planet ? 2 : i === world.selfShip ? 3 : 2;
      ctx.beginPath();
      ctx.arc(x, y, r, 0, Math.PI * 2);
      ctx.fill();
      if (i === world.selfShip) {
        // Our own dot, ringed in white.
        ctx.strokeStyle = "#fff";
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.arc(x, y, r + 2.5, 0, Math.PI * 2);
        ctx.stroke();
      }
    }
    // The part of the arena on screen.
    const s = this.scale;
    ctx.save();
    ctx.beginPath();
    ctx.arc(ox, oy, m + 3, 0, Math.PI * 2);
    ctx.clip();
    ctx.strokeStyle = "rgba(255,255,255,0.35)";
    ctx.lineWidth = 1;
    const view = this.drawn.view;
    ctx.strokeRect(ox + (view.x - this.#w / 2 / s) * k, oy - (view.y + this.#h / 2 / s) * k, (this.#w / s) * k, (this.#h / s) * k);
    ctx.restore();
  }
}
