/**
 * Where the page's floating panels go, from the measured sizes of the others: the kill
 * feed, the menu on a phone and the death box. No fixed offsets: the scoreboard's height
 * depends on the font and the number of players, its width on the names, so the panels
 * that share the screen with it are placed from its rectangle, every frame it changes.
 * No DOM here: web/main.ts measures and applies; the Node tests call it directly.
 */

/** A rectangle in css px; `null` for an element not shown. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface FlowInput {
  width: number;
  height: number;
  /** Touch controls shown (the HUD line is at the top then, except on an upright phone). */
  touch: boolean;
  /** The panels fixed to the top corners: scoreboard, minimap, menu button, mute; null when hidden. */
  scores: Box | null;
  minimap: Box | null;
  menuButton: Box | null;
  mute: Box | null;
  /** What sits at the bottom and the HUD: chat, stick, FIRE, AUTO, chat button, HUD; null when hidden. */
  bottom: (Box | null)[];
  /** The feed's height (px) when it is `FEED_WIDE` wide or less, one line per report; 0 when empty. */
  feedHeight: number;
  /** The death box's size, 0 × 0 when not shown. */
  deathWidth: number;
  deathHeight: number;
}

export interface Flow {
  /** The scoreboard's top: at the top right, or under the left column when the screen is too narrow for both. */
  scoresTop: number;
  /** The kill feed: left edge, top, width (its lines are centred in it). */
  feedLeft: number;
  feedTop: number;
  feedWidth: number;
  /** The menu on a phone: its top (upright) and the room below it; its left edge and width (sideways). */
  menuTop: number;
  menuMaxHeight: number;
  menuLeft: number;
  menuWidth: number;
  /** The death box's top: clear of the ships at the centre (ours and, near it, the killer's). */
  deathTop: number;
}

/** Gap between panels, px. */
export const GAP = 8;
/** The feed's widest, and the narrowest it takes beside the scoreboard before it goes under it, px. */
export const FEED_WIDE = 520;
export const FEED_NARROW = 300;
/** The feed's top on a desktop: under the status line. */
const FEED_TOP_DESKTOP = 46;
/** ... with touch controls: under the HUD line. */
const FEED_TOP_TOUCH = 28;
/** Half the height kept clear around the screen's centre by the death box, px: our ship and a killer near it. */
export const DEATH_CLEAR = 80;
/** The phone menu's room kept for the stick and FIRE below it, px. */
const TOUCH_BELOW = 294;
const MENU_WIDE = 420;
const MENU_MIN_HEIGHT = 240;

/** An upright phone: the panels stack. */
export function upright(width: number, height: number): boolean {
  return width <= 600 && height > width;
}

/** A phone held sideways. */
export function sideways(width: number, height: number): boolean {
  return height <= 500 && width > height;
}

function right(b: Box | null): number {
  return b === null ? 0 : b.right;
}

function bottom(b: Box | null): number {
  return b === null ? 0 : b.bottom;
}

/** Place the feed, the phone menu and the death box. Allocates one result. */
export function flow(f: FlowInput): Flow {
  const w = f.width;
  const h = f.height;
  // What the top left corner takes: the left column's right edge and bottom.
  const leftEdge = Math.max(right(f.minimap), right(f.menuButton), right(f.mute)) + GAP;
  const leftBottom = Math.max(bottom(f.minimap), bottom(f.menuButton), bottom(f.mute));
  // The scoreboard, at the top right (GAP from the edges), or under the left column when both do not fit side by side.
  let scores: Box | null = null;
  let scoresTop = GAP;
  if (f.scores !== null) {
    const sw = f.scores.right - f.scores.left;
    const sh = f.scores.bottom - f.scores.top;
    if (w - GAP - sw < leftEdge) scoresTop = leftBottom + GAP;
    scores = { left: w - GAP - sw, top: scoresTop, right: w - GAP, bottom: scoresTop + sh };
  }
  const scoresLeft = scores === null ? w : scores.left;
  const band = Math.max(bottom(scores), leftBottom) + GAP;

  // The feed: centred between the corners when there is room, else beside the left column,
  // else under everything at the top, the screen's width.
  let feedLeft: number;
  let feedWidth: number;
  let feedTop = upright(w, h) ? band : f.touch ? FEED_TOP_TOUCH : FEED_TOP_DESKTOP;
  const half = Math.min(w / 2 - leftEdge, scoresLeft - GAP - w / 2);
  const span = scoresLeft - GAP - leftEdge;
  if (!upright(w, h) && 2 * half >= FEED_NARROW) {
    feedWidth = Math.min(FEED_WIDE, 2 * half);
    feedLeft = w / 2 - feedWidth / 2;
  } else if (!upright(w, h) && span >= FEED_NARROW) {
    feedWidth = Math.min(FEED_WIDE, span);
    feedLeft = leftEdge;
  } else {
    feedLeft = GAP;
    feedWidth = w - 2 * GAP;
    feedTop = band;
  }

  // The phone menu: upright, under the top panels; sideways, between the left column and the scoreboard.
  const menuTop = band;
  const menuMaxHeight = Math.max(MENU_MIN_HEIGHT, h - band - GAP - (f.touch ? TOUCH_BELOW : 0));
  let menuLeft = Math.max(leftEdge + 48, w / 2 - MENU_WIDE / 2);
  let menuWidth = Math.min(MENU_WIDE, scoresLeft - GAP - menuLeft);
  if (menuWidth < FEED_NARROW) {
    menuLeft = leftEdge;
    menuWidth = Math.min(MENU_WIDE, scoresLeft - GAP - leftEdge);
  }

  // The death box: above the centre's clear zone if it fits under the top panels and the
  // feed, else below it over what sits at the bottom, else as close as it gets.
  const boxLeft = w / 2 - f.deathWidth / 2;
  const boxRight = w / 2 + f.deathWidth / 2;
  let top = Math.max(GAP, feedTop + f.feedHeight + GAP);
  for (const b of [scores, f.minimap, f.menuButton, f.mute]) if (b !== null && b.right > boxLeft && b.left < boxRight) top = Math.max(top, b.bottom + GAP);
  let low = h - GAP;
  for (const b of f.bottom) if (b !== null && b.right > boxLeft && b.left < boxRight && b.top > h / 2) low = Math.min(low, b.top - GAP);
  let deathTop: number;
  const above = h / 2 - DEATH_CLEAR - f.deathHeight;
  if (above >= top) deathTop = above;
  else if (h / 2 + DEATH_CLEAR + f.deathHeight <= low) deathTop = h / 2 + DEATH_CLEAR;
  else deathTop = Math.max(top, Math.min(above, low - f.deathHeight));
  return { scoresTop, feedLeft, feedTop, feedWidth, menuTop, menuMaxHeight, menuLeft, menuWidth, deathTop };
}
