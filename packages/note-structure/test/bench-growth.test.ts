import { describe, expect, it } from 'vitest';
import { fittedGrowth } from '../src/growth-fit';

// The engine bench's growth column (target: at most 2.3x per doubling) is fitted over four sizes.
const sizes = [125_000, 250_000, 500_000, 1_000_000];

describe('fittedGrowth (the bench growth per doubling)', () => {
  it('reads 2.0 for linear time, 4.0 for quadratic, and between them for n log n', () => {
    expect(fittedGrowth(sizes.map((n) => [n, n / 1e5]))).toBeCloseTo(2, 10);
    expect(fittedGrowth(sizes.map((n) => [n, (n / 1e5) ** 2]))).toBeCloseTo(4, 10);
    const nLogN = fittedGrowth(sizes.map((n) => [n, (n * Math.log2(n)) / 1e6]));
    expect(nLogN).toBeGreaterThan(2.05);
    expect(nLogN).toBeLessThan(2.2);
  });

  it('still reads a superlinear shape as superlinear when one point is off', () => {
    const times = sizes.map((n) => (n / 1e5) ** 2);
    times[3] = (times[3] as number) * 0.75;
    expect(fittedGrowth(sizes.map((n, index) => [n, times[index] as number]))).toBeGreaterThan(3.3);
  });

  it('moves less than the last ratio when only the largest size is off by 30%', () => {
    const times = sizes.map((n) => n / 1e5);
    times[3] = (times[3] as number) * 1.3;
    const lastRatio = (times[3] as number) / (times[2] as number);
    const fitted = fittedGrowth(sizes.map((n, index) => [n, times[index] as number]));
    expect(lastRatio).toBeCloseTo(2.6, 10);
    expect(fitted).toBeGreaterThan(2);
    expect(fitted).toBeLessThan(2.2);
  });
});
