/**
 * Keyboard and touch controls, read as Input bits (INPUT_*) whenever the client ticks.
 * Keyboard: arrows or WASD to thrust (up, down) and turn (left, right), space to fire.
 * Touch: an on-screen stick (push up to thrust, down to brake, sideways to turn) and a
 * fire button.
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

  constructor(stick: HTMLElement, knob: HTMLElement, fire: HTMLElement) {
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
      e.preventDefault();
    });
    const stop = (): void => {
      this.#fire = 0;
    };
    fire.addEventListener("pointerup", stop);
    fire.addEventListener("pointercancel", stop);
  }

  /** Current Input bits. */
  bits(): number {
    return this.#keys | this.#stick | this.#fire;
  }

  /** Let go of everything (the window lost focus, a menu opened). */
  release(): void {
    this.#keys = 0;
    this.#stick = 0;
    this.#fire = 0;
  }
}
