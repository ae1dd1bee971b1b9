/**
 * Sine and cosine from +, −, × and floor only. Math.sin and Math.cos may differ in the
 * last bit between V8 and XS (and between libms on ESP32 and Linux); these give the
 * same bits on every IEEE 754 engine, so a world stepped on Node and on XS stays equal.
 */
export const PI = 3.141592653589793;
export const TWO_PI = 6.283185307179586;
export const HALF_PI = 1.5707963267948966;

/** `a` reduced to [0, 2π). */
export function wrapAngle(a: number): number {
  const r = a - TWO_PI * Math.floor(a / TWO_PI);
  return r >= TWO_PI || r < 0 ? 0 : r;
}

/** sin(a); absolute error below 1e-13 after reduction to [−π/2, π/2]. */
export function sin(a: number): number {
  let x = a - TWO_PI * Math.floor((a + PI) / TWO_PI);
  if (x > HALF_PI) x = PI - x;
  else if (x < -HALF_PI) x = -PI - x;
  const x2 = x * x;
  // Taylor series through x^17, Horner form; the coefficients are 1/n!.
  return x * (1 + x2 * (-0.16666666666666666 + x2 * (0.008333333333333333 + x2 * (-0.0001984126984126984 +
    x2 * (0.0000027557319223985893 + x2 * (-2.505210838544172e-8 + x2 * (1.6059043836821613e-10 +
    x2 * (-7.647163731819816e-13 + x2 * 2.8114572543455206e-15))))))));
}

export function cos(a: number): number {
  return sin(a + HALF_PI);
}
