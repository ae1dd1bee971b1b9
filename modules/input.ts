/**
 * A player's input as bits: what the game steers and fires by, and what the protocol's
 * Input message carries as five booleans (modules/protocol/codec.ts). The game and the
 * protocol both take these from here, so the game does not depend on the wire format.
 */
export const INPUT_FORWARD = 1;
export const INPUT_BACKWARD = 2;
export const INPUT_LEFT = 4;
export const INPUT_RIGHT = 8;
export const INPUT_SHOOTING = 16;
