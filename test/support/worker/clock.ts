// Vitest's fake Date for worker tests whose rules run on the clock (token times, the JWK set's
// cooldown): only Date is faked, so timers, deadlines and I/O stay real.
import { afterEach, beforeEach, vi } from 'vitest';

/** Sets the clock to `start` before each test of the calling file; returns a setter of ms from `start`. */
export function fakeDateFrom(start: number): (msFromStart: number) => void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
  });
  afterEach(() => vi.useRealTimers());
  return (msFromStart) => vi.setSystemTime(start + msFromStart);
}
