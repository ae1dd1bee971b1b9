/**
 * The page's sounds, made with the Web Audio API from oscillators and a noise buffer: no
 * audio files. Browsers let a page make sound only after the player has touched it, so
 * the AudioContext is created at the first gesture (a key, a click, a touch) and not
 * before; until then, and while muted, play() does nothing. Mute is remembered.
 */

export const Cue = Object.freeze({ Shot: 0, Hit: 1, Explosion: 2, Respawn: 3, Chat: 4, Hurt: 5 } as const);

const MUTE_KEY = "lwar.mute";
/** The same cue no more often than this (ms): a pulse gun fires 10 times a second. */
const MIN_GAP_MS: readonly number[] = [70, 60, 90, 300, 150, 80];

export class Sound {
  #ctx: AudioContext | null = null;
  #out: GainNode | null = null;
  #noise: AudioBuffer | null = null;
  readonly #last: number[] = [-1e9, -1e9, -1e9, -1e9, -1e9, -1e9];
  #muted: boolean;
  readonly #store: Storage | null;
  /** Cues played, for tests and the debug hook. */
  played = 0;

  constructor(store: Storage | null) {
    this.#store = store;
    let saved: string | null = null;
    try {
      saved = store !== null ? store.getItem(MUTE_KEY) : null;
    } catch {
      saved = null;
    }
    this.#muted = saved === "1";
  }

  get muted(): boolean {
    return this.#muted;
  }

  /** True once a gesture has created the AudioContext. */
  get started(): boolean {
    return this.#ctx !== null;
  }

  setMuted(muted: boolean): void {
    this.#muted = muted;
    try {
      if (this.#store !== null) this.#store.setItem(MUTE_KEY, muted ? "1" : "0");
    } catch {
      // Private mode: the choice lasts for this page only.
    }
    if (this.#out !== null && this.#ctx !== null) this.#out.gain.setValueAtTime(muted ? 0 : 0.35, this.#ctx.currentTime);
  }

  /** Create the AudioContext: call from a user gesture's handler only. */
  unlock(): void {
    if (this.#ctx !== null) {
      if (this.#ctx.state === "suspended") void this.#ctx.resume();
      return;
    }
    const Ctor = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (Ctor === undefined) return;
    const ctx = new Ctor();
    const out = ctx.createGain();
    out.gain.value = this.#muted ? 0 : 0.35;
    out.connect(ctx.destination);
    const noise = ctx.createBuffer(1, ctx.sampleRate >> 1, ctx.sampleRate);
    const d = noise.getChannelData(0);
    let seed = 0x2545f491;
    for (let k = 0; k < d.length; k++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      d[k] = (seed | 0) / 2147483648;
    }
    this.#ctx = ctx;
    this.#out = out;
    this.#noise = noise;
  }

  /** Play `cue` (Cue.*) at `volume` 0..1, unless muted, not yet unlocked, or just played. */
  play(cue: number, volume = 1): void {
    const ctx = this.#ctx;
    const out = this.#out;
    if (ctx === null || out === null || this.#muted || volume <= 0.02) return;
    const ms = ctx.currentTime * 1000;
    if (ms - this.#last[cue] < MIN_GAP_MS[cue]) return;
    this.#last[cue] = ms;
    this.played++;
    const t = ctx.currentTime;
    switch (cue) {
      case Cue.Shot:
        this.#tone("square", 880, 220, t, 0.07, 0.18 * volume);
        return;
      case Cue.Hit:
        this.#tone("triangle", 1400, 900, t, 0.05, 0.3 * volume);
        return;
      case Cue.Hurt:
        this.#burst(t, 0.16, 2400, 300, 0.5 * volume);
        this.#tone("sawtooth", 160, 70, t, 0.16, 0.2 * volume);
        return;
      case Cue.Explosion:
        this.#burst(t, 0.7, 1800, 60, 0.9 * volume);
        this.#tone("sine", 90, 30, t, 0.5, 0.5 * volume);
        return;
      case Cue.Respawn:
        this.#tone("sine", 392, 392, t, 0.09, 0.25 * volume);
        this.#tone("sine", 523, 523, t + 0.08, 0.09, 0.25 * volume);
        this.#tone("sine", 784, 784, t + 0.16, 0.16, 0.25 * volume);
        return;
      case Cue.Chat:
        this.#tone("sine", 660, 660, t, 0.06, 0.15 * volume);
        this.#tone("sine", 990, 990, t + 0.07, 0.08, 0.15 * volume);
        return;
    }
  }

  /** One oscillator gliding from `f0` to `f1` Hz over `dur` s, fading out. */
  #tone(type: OscillatorType, f0: number, f1: number, t: number, dur: number, gain: number): void {
    const ctx = this.#ctx!;
    const osc = ctx.createOscillator();
    const g = ctx.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(f0, t);
    if (f1 !== f0) osc.frequency.exponentialRampToValueAtTime(f1, t + dur);
    g.gain.setValueAtTime(gain, t);
    g.gain.exponentialRampToValueAtTime(0.001, t + dur);
    osc.connect(g);
    g.connect(this.#out!);
    osc.start(t);
    osc.stop(t + dur + 0.02);
  }

  /** Noise through a low-pass filter closing from `f0` to `f1` Hz over `dur` s. */
  #burst(t: number, dur: number, f0: number, f1: number, gain: number): void {
    const ctx = this.#ctx!;
    const src = ctx.createBufferSource();
    src.buffer = this.#noise;
    const filter = ctx.createBiquadFilter();
    filter.type = "lowpass";
    filter.frequency.setValueAtTime(f0, t);
    filter.frequency.exponentialRampToValueAtTime(f1, t + dur);
    const g = ctx.createGain();
    g.gain.setValueAtTime(gain, t);
    g.gain.exponentialRampToValueAtTime(0.001, t + dur);
    src.connect(filter);
    filter.connect(g);
    g.connect(this.#out!);
    src.start(t);
    src.stop(t + dur + 0.02);
  }
}
