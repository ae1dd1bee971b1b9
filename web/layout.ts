/**
 * Screen geometry with no DOM, shared by the renderer and the Node tests: how much of the
 * arena the camera shows, where the minimap sits, and where an arrow at the screen's edge
 * points to a ship outside the view.
 */

/** World units across the screen's short side while flying: never fewer, so a phone sees as far as it needs to. */
export const MIN_VIEW_WU = 1700;
/** ... and never more, so a large screen does not shrink ships to dots. */
export const MAX_VIEW_WU = 2000;
/** Pixels of short side per 1000 wu wanted, before the limits above. */
const VIEW_WU_PER_PX = 2.4;

/** World units across the short side (`short` px) while flying or just destroyed. */
export function viewSpan(short: number): number {
  return Math.min(MAX_VIEW_WU, Math.max(MIN_VIEW_WU, short * VIEW_WU_PER_PX));
}

/** The minimap's side in px: smaller on a small screen. It sits 8 px from the top left corner. */
export function minimapSize(w: number, h: number): number {
  return Math.min(w, h) < 520 ? 92 : 132;
}
export const MINIMAP_MARGIN = 8;

/** Arrows sit this far (px) inside the screen's edge. */
export const ARROW_INSET = 18;

/** Where an edge arrow goes: screen px, and the direction it points (radians, screen axes: y down). */
export interface Arrow {
  x: number;
  y: number;
  angle: number;
}

/**
 * The arrow toward a point `dx`, `dy` px from the screen's centre (y down) on a `w` × `h`
 * screen. False when the point is on screen, `margin` px to spare (the ship is visible);
 * otherwise `out` gets where the line from the centre to the point crosses the rectangle
 * ARROW_INSET px inside the edge, and the line's direction.
 */
export function edgeArrow(dx: number, dy: number, w: number, h: number, margin: number, out: Arrow): boolean {
  const hw = w / 2;
  const hh = h / 2;
  if (Math.abs(dx) <= hw + margin && Math.abs(dy) <= hh + margin) return false;
  const ax = Math.max(hw - ARROW_INSET, 1);
  const ay = Math.max(hh - ARROW_INSET, 1);
  const t = Math.min(dx === 0 ? Infinity : ax / Math.abs(dx), dy === 0 ? Infinity : ay / Math.abs(dy));
  out.x = hw + dx * t;
  out.y = hh + dy * t;
  out.angle = Math.atan2(dy, dx);
  return true;
}

/** A rectangle arrows keep out of (css px): the minimap, the HUD line. */
export interface KeepOut {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Arrows keep this far (px) from a keep-out rectangle: an arrow reaches 11 px from its point, and a little room. */
export const ARROW_CLEARANCE = 16;

/**
 * Move arrow `a` (from edgeArrow) out of the rectangles of `keep` it falls in, the shortest
 * way: along the screen's edge past the rectangle's side, or in from the edge past it.
 * The direction it points stays. A `w` × `h` screen.
 */
export function clearArrow(a: Arrow, keep: readonly KeepOut[], w: number, h: number): void {
  const m = ARROW_CLEARANCE;
  const lo = ARROW_INSET;
  for (let pass = 0; pass < 2; pass++) {
    for (const r of keep) {
      if (a.x <= r.left - m || a.x >= r.right + m || a.y <= r.top - m || a.y >= r.bottom + m) continue;
      // The four ways out, and how far each moves the arrow.
      const left = a.x - (r.left - m);
      const right = r.right + m - a.x;
      const up = a.y - (r.top - m);
      const down = r.bottom + m - a.y;
      const canLeft = r.left - m >= lo;
      const canRight = r.right + m <= w - lo;
      const canUp = r.top - m >= lo;
      const canDown = r.bottom + m <= h - lo;
      let best = Infinity;
      let dx = 0;
      let dy = 0;
      if (canLeft && left < best) {
        best = left;
        dx = -left;
        dy = 0;
      }
      if (canRight && right < best) {
        best = right;
        dx = right;
        dy = 0;
      }
      if (canUp && up < best) {
        best = up;
        dx = 0;
        dy = -up;
      }
      if (canDown && down < best) {
        dx = 0;
        dy = down;
      }
      a.x += dx;
      a.y += dy;
    }
  }
}

/** An edge arrow as drawn: toward the ship of player `slot`. */
export interface ShipArrow extends Arrow {
  slot: number;
}

/** The last frame's camera, screen (css px), scale (px per wu), minimap square and edge arrows; tests read it as `lwar.drawn.view`. */
export interface View {
  /** The camera's centre, wu. */
  x: number;
  y: number;
  width: number;
  height: number;
  scale: number;
  minimap: { x: number; y: number; size: number };
  /** What the arrows keep out of (clearArrow): the minimap and the HUD line. */
  keepOut: KeepOut[];
  arrows: ShipArrow[];
}
