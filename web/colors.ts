/**
 * The page's colours. Players are told apart by SLOT_COLORS (ship, name, shots, scoreboard
 * dot, chat name), so those keep clear of the colours the arena itself uses: the sun, the
 * planets and the red arena edge. test/web/layout.test.ts measures the distances (CIEDE2000).
 * No DOM here: the Node tests import it.
 */

/** One colour per player slot: green, pink, cyan, orange, violet, lime, mint, lavender. */
export const SLOT_COLORS: readonly string[] = ["#0df218", "#ff66a3", "#1ae8ff", "#ff7300", "#c966ff", "#dff425", "#5eedc2", "#f1b6fb"];
/** The sun's body and its white-hot core. */
export const SUN_COLOR = "#ffcc33";
export const SUN_CORE = "#fff6c8";
/** Planets by template id (small, medium, large); index 0 is the sun's. */
export const PLANET_COLORS: readonly string[] = ["", "#8fb3c9", "#6fa37a", "#c59a6a"];
/** The arena edge, drawn at 70 % opacity, and the minimap's ring. */
export const EDGE_COLOR = "#ff5050";
/** The colours players must not be confused with. */
export const RESERVED_COLORS: readonly string[] = [SUN_COLOR, SUN_CORE, PLANET_COLORS[1], PLANET_COLORS[2], PLANET_COLORS[3], EDGE_COLOR];
