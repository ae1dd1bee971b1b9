/**
 * Keyboard and touch controls, read as Input bits (INPUT_*) whenever the client ticks.
 * Keyboard: arrows or WASD to thrust (up, down) and turn (left, right), space to fire.
 * Touch: an on-screen stick (push up to thrust, down to brake, sideways to turn), a fire
 * button that looks pressed while held, and an auto-fire toggle beside it. They show only
 * while the player flies: the page calls `setPlaying`, which sets the body's `playing`
 * class that index.html's CSS keys them on.
 */
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../modules/protocol/codec";

const KEYS: Readonly<Record<string, number>> = Object.freeze({
  ArrowUp: INPUT_FORWARD,
  KeyW: INPUT_FORWARD,
  ArrowDown: INPUT_BACKWARD,
  KeyS: INPUT_BACKWARD,
  ArrowLeft: INPUT_LEFT,
  KeyA: INPUT_LEFT,
  ArrowRight: INPUT_RIGHT,
  KeyD: INPUT_RIGHT,
  Space: INPUT_SHOOTING,
});
/** Stick travel (fraction of its radius) before a direction counts. */
const DEAD_ZONE = 0.35;

/** True when a key goes to a form field rather than to the ship. */
export function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return el !== null && (el.tagName === "INPUT" || el.tagName === "SELECT" || el.tagName === "TEXTAREA");
}

export class Controls {
  #keys = 0;
  #stick = 0;
  #fire = 0;
  #pointer = -1;
  #auto = false;
  #playing: boolean | null = null;
  readonly #fireButton: HTMLElement;
  readonly #knob: HTMLElement;
  readonly #autoButton: HTMLElement | null;

  constructor(stick: HTMLElement, knob: HTMLElement, fire: HTMLElement, auto: HTMLElement | null = document.getElementById("auto-fire")) {
    this.#fireButton = fire;
    this.#knob = knob;
    this.#autoButton = auto;
    window.addEventListener("keydown", (e) => {
      const bit = KEYS[e.code];
      if (bit === undefined || typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      this.#keys |= bit;
      e.preventDefault();
    });
    window.addEventListener("keyup", (e) => {
      const bit = KEYS[e.code];
      if (bit !== undefined) this.#keys &= ~bit;
    });
    window.addEventListener("blur", () => this.release());

    const move = (e: PointerEvent): void => {
      const r = stick.getBoundingClientRect();
      const radius = r.width / 2;
      let dx = (e.clientX - (r.left + radius)) / radius;
      let dy = (e.clientY - (r.top + radius)) / radius;
      const len = Math.hypot(dx, dy);
      if (len > 1) {
        dx /= len;
        dy /= len;
      }
      knob.style.transform = `translate(${dx * radius * 0.6}px, ${dy * radius * 0.6}px)`;
      this.#stick = (dy < -DEAD_ZONE ? INPUT_FORWARD : 0) | (dy > DEAD_ZONE ? INPUT_BACKWARD : 0) |
        (dx < -DEAD_ZONE ? INPUT_LEFT : 0) | (dx > DEAD_ZONE ? INPUT_RIGHT : 0);
    };
    const end = (e: PointerEvent): void => {
      if (e.pointerId !== this.#pointer) return;
      this.#pointer = -1;
      this.#stick = 0;
      knob.style.transform = "";
    };
    stick.addEventListener("pointerdown", (e) => {
      this.#pointer = e.pointerId;
      stick.setPointerCapture(e.pointerId);
      move(e);
      e.preventDefault();
    });
    stick.addEventListener("pointermove", (e) => {
      if (e.pointerId === this.#pointer) move(e);
    });
    stick.addEventListener("pointerup", end);
    stick.addEventListener("pointercancel", end);

    fire.addEventListener("pointerdown", (e) => {
      fire.setPointerCapture(e.pointerId);
      this.#fire = INPUT_SHOOTING;
      fire.classList.add("pressed");
      e.preventDefault();
    });
    const stop = (): void => {
      this.#fire = 0;
      fire.classList.remove("pressed");
    };
    fire.addEventListener("pointerup", stop);
    fire.addEventListener("pointercancel", stop);

    if (auto !== null) {
      auto.addEventListener("click", () => this.setAutoFire(!this.#auto));
      auto.addEventListener("pointerdown", (e) => e.preventDefault());
    }
  }

  /** Current Input bits. */
  bits(): number {
    return this.#keys | this.#stick | this.#fire | (this.#auto ? INPUT_SHOOTING : 0);
  }

  get autoFire(): boolean {
    return this.#auto;
  }

  /** Fire continuously without holding FIRE (a touch player's other thumb stays free), or stop. */
  setAutoFire(on: boolean): void {
    this.#auto = on;
    this.#fireButton.classList.toggle("auto", on);
    if (this.#autoButton !== null) this.#autoButton.setAttribute("aria-pressed", on ? "true" : "false");
  }

  /**
   * Whether our ship is flying: the touch controls show only then (the body's `playing`
   * class). Cheap to call every frame; on leaving play it lets go of the stick and FIRE.
   */
  setPlaying(on: boolean): void {
    if (on === this.#playing) return;
    this.#playing = on;
    document.body.classList.toggle("playing", on);
    if (!on) this.release();
  }

  /** Let go of everything (the window lost focus, a menu opened). Auto-fire stays as set. */
  release(): void {
    this.#keys = 0;
    this.#stick = 0;
    this.#fire = 0;
    this.#pointer = -1;
    this.#knob.style.transform = "";
    this.#fireButton.classList.remove("pressed");
  }
}
