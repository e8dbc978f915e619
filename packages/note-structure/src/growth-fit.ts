/**
 * The linear-time claim's measure, shared by the engine's bench and the Worker's note-size question:
 * how a time grows per doubling of the note.
 */

/**
 * Per-doubling growth fitted over (chars, ms) points: 2 ** (least-squares slope of log2 ms on
 * log2 chars). Linear work gives 2.0, quadratic 4.0; one noisy point moves it far less than it
 * moves a ratio of two medians.
 */
export function fittedGrowth(points: ReadonlyArray<readonly [chars: number, ms: number]>): number {
  const xs = points.map(([chars]) => Math.log2(chars));
  const ys = points.map(([, ms]) => Math.log2(Math.max(ms, 1e-6)));
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, index) => {
    covariance += (x - meanX) * ((ys[index] as number) - meanY);
    variance += (x - meanX) ** 2;
  });
  return 2 ** (covariance / variance);
}
