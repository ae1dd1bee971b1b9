/**
 * Our own ship, predicted: the page turns and thrusts it from the frame a key goes down,
 * with the game's own ship loop (the C of modules/kernels/loops.c as WebAssembly, through
 * modules/game/ship-stepper.ts: the code the server steps ships with), and blends in the
 * server's Updates. No DOM here: the Node tests drive it too.
 *
 * Two copies of the ship advance at the game's step rate (STEP_HZ) in local time, each step
 * as the server's: drift by the velocity, turn and thrust, the speed limit (no gravity, edge
 * or contacts: the page leaves those to the server's corrections). Until the page has its
 * `stepper` (kernels.wasm loads after the page), the ship is drawn where the server says.
 *
 *   lead   takes each step's input as held then: what the page draws.
 *   lag    takes the input held `delay` steps earlier: the ship as the server steps it, since
 *          our Input reaches the server's step that late (the client sends it every
 *          INPUT_INTERVAL_MS, the server steps every STEP_MS, and the trip takes half a ping).
 *
 * An Update of our ship says where the server had it when it sent it (the packet's
 * timestamp, put on our clock by the fastest trip seen). Its difference from `lag` at that
 * moment (gravity, the edge, a collision, an Input that arrived a step sooner or later) is
 * added to both copies; `lead` − `lag` (the effect of the inputs the server has not applied
 * yet) is kept. Along the track, a difference of up to PHASE_STEPS steps of travel is mostly
 * the server's step phase (an Update leaves some ticks after the step it reports, more or
 * fewer each time): only PHASE_GAIN of it is taken per Update. What is drawn does not jump:
 * the correction goes into an offset that fades with time constant BLEND_MS. A difference
 * over PREDICT_SNAP_WU (a respawn, a teleport) is taken at once.
 *
 * Between steps the drawn pose moves on by the fraction of the next step gone: the position
 * along the velocity, the heading by the turn the held input makes in that step. So a turn
 * shows at the first frame after its key goes down.
 */
import type { ShipState, ShipStepper } from "../modules/game/ship-stepper";
import { STEP_MS } from "../modules/game/templates";
import { ANGLE_MASK, ANGLE_TURN, CENTIDEGREES, POS_ONE, STEP_HZ } from "../modules/units";

/** Time constant (ms) of the fade of a correction. */
export const BLEND_MS = 100;
/** A correction larger than this (wu) is taken at once. */
export const PREDICT_SNAP_WU = 200;
/** How often the client library sends our Input (its default). */
export const INPUT_INTERVAL_MS = 50;
/** Inputs kept: more steps than any delay the page assumes. */
const HISTORY = 16;
/** Most steps one advance runs (a tab back from the background starts over instead). */
const MAX_STEPS = 30;
const TO_RADIANS = (2 * Math.PI) / ANGLE_TURN;
/** The shortest trip may grow by this (ms per ms) since it was seen: a slower route, clocks apart. */
const TRIP_CREEP = 0.002;
const RESEED_MS = 10000;
/**
 * Along-track differences up to this many steps of travel may be the server's step phase
 * (a step is 33 ms, its Updates go a tick of 10 ms or so after some step); of those a
 * part PHASE_GAIN is taken per Update.
 */
const PHASE_STEPS = 1.5;
const PHASE_GAIN = 0.25;

export type { ShipState };

/** Steps between pressing a key and the server's step that uses it, for a ping of `pingMs`. */
export function inputDelaySteps(pingMs: number, tickMs: number): number {
  const ms = INPUT_INTERVAL_MS / 2 + tickMs / 2 + STEP_MS / 2 + Math.max(0, pingMs) / 2;
  return Math.min(HISTORY - 1, Math.max(0, Math.round(ms / STEP_MS)));
}

/** Signed difference a − b of two headings, −2048..2047. */
function turnDiff(a: number, b: number): number {
  return ((((a - b) & ANGLE_MASK) + ANGLE_TURN / 2) & ANGLE_MASK) - ANGLE_TURN / 2;
}

/** A drawn pose: wu and radians, as World.pose gives. */
export interface PredictedPose {
  x: number;
  y: number;
  rot: number;
}

export class Predictor {
  readonly lead: ShipState = { x: 0, y: 0, vx: 0, vy: 0, rot: 0 };
  readonly lag: ShipState = { x: 0, y: 0, vx: 0, vy: 0, rot: 0 };
  /** The game's ship loop, once the page has loaded it; null: no prediction yet. */
  stepper: ShipStepper | null = null;
  /** For the heading the held input gives (pose). */
  readonly #turned: ShipState = { x: 0, y: 0, vx: 0, vy: 0, rot: 0 };
  /** Inputs of the last HISTORY steps, by step number modulo HISTORY. */
  readonly #inputs = new Uint8Array(HISTORY);
  /** Steps run since reset, and when the next one is due (ms). */
  steps = 0;
  #nextAt = 0;
  /** The input held now: the next step's. */
  #input = 0;
  type = 0;
  /** Steps our Input takes to reach the server's step. */
  delay = 1;
  /** False until the first Update of a ship places it. */
  active = false;
  /** The drawn pose's offset from `lead` (wu, heading units) when it was set, and when. */
  #ox = 0;
  #oy = 0;
  #orot = 0;
  #oat = 0;
  readonly #pose: PredictedPose = { x: 0, y: 0, rot: 0 };
  /** The shortest trip (ms, our clock less the server's) of recent Updates, and when it was seen; -1 before one. */
  #trip = 0;
  #tripAt = -1;
  /**
   * Updates since `resetStats`: how many, the last and the largest position difference
   * from the prediction (wu), and the largest correction made to it (wu).
   */
  corrections = 0;
  lastError = 0;
  maxError = 0;
  maxCorrection = 0;
  /** The largest heading difference (heading units, 1/4096 turn). */
  maxTurnError = 0;
  snaps = 0;

  /** Forget the ship (it was destroyed, or the connection ended). */
  clear(): void {
    this.active = false;
  }

  resetStats(): void {
    this.corrections = 0;
    this.lastError = 0;
    this.maxError = 0;
    this.maxCorrection = 0;
    this.maxTurnError = 0;
    this.snaps = 0;
  }

  /** Start over from the server's state `s` of a ship of `type`, at `now` (ms). */
  reset(s: ShipState, type: number, now: number): void {
    copy(s, this.lead);
    copy(s, this.lag);
    this.type = type;
    this.#inputs.fill(0);
    this.steps = 0;
    this.#nextAt = now + STEP_MS;
    this.#ox = this.#oy = this.#orot = 0;
    this.active = true;
  }

  /** Hold `input` (INPUT_* bits) from `now` on, running the steps due by then. */
  advance(now: number, input: number): void {
    this.#input = input;
    const m = this.stepper;
    if (!this.active || m === null) return;
    if (now - this.#nextAt > MAX_STEPS * STEP_MS) this.#nextAt = now - STEP_MS;
    while (now >= this.#nextAt) {
      const k = this.steps;
      this.#inputs[k % HISTORY] = input;
      const late = k >= this.delay ? this.#inputs[(k - this.delay) % HISTORY] : 0;
      m.step(this.lead, this.type, input);
      m.step(this.lag, this.type, late);
      this.steps = k + 1;
      this.#nextAt += STEP_MS;
    }
  }

  /**
   * An Update of our ship, here at `now`, sent at `sentAt` by the server's clock (the
   * packet's timestamp; `now` when unknown): the server has it at `s`. Steps due by then
   * run first with the input held. Returns the position difference (wu) it corrected.
   */
  server(s: ShipState, type: number, now: number, sentAt = now): number {
    // When it was sent, by our clock: the fastest trip seen stands for all, so a packet
    // that waited (in the network, or for the page's event loop) is taken at its sending.
    const trip = now - sentAt;
    const creep = this.#tripAt < 0 ? Infinity : (now - this.#tripAt) * TRIP_CREEP;
    // (A server clock that wrapped, or a new server, starts over.)
    if (trip <= this.#trip + creep || this.#tripAt < 0 || Math.abs(trip - this.#trip) > RESEED_MS) {
      this.#trip = trip;
      this.#tripAt = now;
    }
    const at = Math.min(now, sentAt + this.#trip);
    if (!this.active || type !== this.type || this.stepper === null) {
      this.reset(s, type, at);
      return 0;
    }
    this.advance(now, this.#input);
    // Where `lag` was when the server sent it: its last step, moved by the part of the next one gone then.
    const f = 1 - (this.#nextAt - at) / STEP_MS;
    const lag = this.lag;
    let ex = s.x - (lag.x + lag.vx * f);
    let ey = s.y - (lag.y + lag.vy * f);
    const wu = Math.hypot(ex, ey) / POS_ONE;
    this.corrections++;
    this.lastError = wu;
    if (wu > this.maxError) this.maxError = wu;
    if (wu > PREDICT_SNAP_WU) {
      this.snaps++;
      this.reset(s, type, at);
      return wu;
    }
    // Along the track, a difference within what the server's step phase explains (its
    // Update leaves a tick after some step, and which one varies) is taken a part at a time:
    // the mean phase is learnt, its jitter not drawn.
    const v2 = lag.vx * lag.vx + lag.vy * lag.vy;
    if (v2 > 0) {
      const along = (ex * lag.vx + ey * lag.vy) / v2;
      if (Math.abs(along) <= PHASE_STEPS) {
        ex -= along * lag.vx * (1 - PHASE_GAIN);
        ey -= along * lag.vy * (1 - PHASE_GAIN);
      }
    }
    const applied = Math.hypot(ex, ey) / POS_ONE;
    if (applied > this.maxCorrection) this.maxCorrection = applied;
    const erot = turnDiff(s.rot, lag.rot);
    if (Math.abs(erot) > this.maxTurnError) this.maxTurnError = Math.abs(erot);
    const evx = s.vx - lag.vx;
    const evy = s.vy - lag.vy;
    // What is drawn stays put: the offset takes what the ship is moved by.
    const k = this.#fade(now);
    this.#ox = this.#ox * k - ex / POS_ONE;
    this.#oy = this.#oy * k - ey / POS_ONE;
    this.#orot = this.#orot * k - erot;
    this.#oat = now;
    shift(this.lead, Math.round(ex), Math.round(ey), evx, evy, erot);
    shift(this.lag, Math.round(ex), Math.round(ey), evx, evy, erot);
    return wu;
  }

  #fade(now: number): number {
    const age = now - this.#oat;
    return age > 0 ? Math.exp(-age / BLEND_MS) : 1;
  }

  /** Where the ship is drawn at `now` (wu, radians counter-clockwise from +x). Reused by the next call. */
  pose(now: number): PredictedPose {
    const s = this.lead;
    const f = Math.min(Math.max(1 - (this.#nextAt - now) / STEP_MS, 0), 1);
    const k = this.#fade(now);
    // The heading the held input gives at the end of the next step, a fraction f of the way.
    let next = s.rot;
    if (this.stepper !== null) {
      copy(s, this.#turned);
      this.stepper.step(this.#turned, this.type, this.#input);
      next = this.#turned.rot;
    }
    const rot = s.rot + turnDiff(next, s.rot) * f + this.#orot * k;
    const p = this.#pose;
    p.x = (s.x + s.vx * f) / POS_ONE + this.#ox * k;
    p.y = (s.y + s.vy * f) / POS_ONE + this.#oy * k;
    p.rot = rot * TO_RADIANS;
    return p;
  }
}

function shift(s: ShipState, x: number, y: number, vx: number, vy: number, rot: number): void {
  s.x += x;
  s.y += y;
  s.vx += vx;
  s.vy += vy;
  s.rot = (s.rot + rot) & ANGLE_MASK;
}

function copy(from: ShipState, to: ShipState): void {
  to.x = from.x;
  to.y = from.y;
  to.vx = from.vx;
  to.vy = from.vy;
  to.rot = from.rot;
}

/**
 * The game's integer state of a ship from an Update as the client library keeps it
 * (x, y in wu, vx, vy in wu/s, rot in centidegrees), into `out`. Ship headings are
 * multiples of 4 heading units, which the wire's centidegrees tell apart exactly.
 */
export function fromUpdate(x: number, y: number, vx: number, vy: number, centidegrees: number, out: ShipState): ShipState {
  out.x = Math.round(x * POS_ONE);
  out.y = Math.round(y * POS_ONE);
  out.vx = Math.round((vx * POS_ONE) / STEP_HZ);
  out.vy = Math.round((vy * POS_ONE) / STEP_HZ);
  out.rot = Math.round((centidegrees * ANGLE_TURN) / CENTIDEGREES) & ANGLE_MASK;
  return out;
}
