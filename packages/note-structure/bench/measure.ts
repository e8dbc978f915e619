/**
 * How the engine's bench times and weighs a piece of work in-process. CPU time is
 * process.cpuUsage (user + system), so other processes on a shared machine do not inflate it; a
 * call under MIN_SAMPLE_MS is repeated within each sample, so timer jitter stays small beside it.
 * Peak heap is V8's used heap plus its external memory (typed-array storage) under v8.GCProfiler:
 * both only grow between collections, so the peak is the largest sum just before a collection or
 * at the end, less the sum after a forced gc() before the run.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Below this, one call is timed in a batch of calls. */
export const MIN_SAMPLE_MS = 2;

/** The range a figure's samples leave it in: min to max under 5 samples, the interquartile range from 5 on. */
export interface Spread {
  low: number;
  high: number;
}

/** A median time with its spread and the number of samples it is the median of. */
export interface Timing {
  ms: number;
  samples: number;
  spread: Spread;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length < 5) return { low: sorted[0] as number, high: sorted[sorted.length - 1] as number };
  const at = (q: number): number => {
    const index = (sorted.length - 1) * q;
    const below = sorted[Math.floor(index)] as number;
    return below + ((sorted[Math.ceil(index)] as number) - below) * (index - Math.floor(index));
  };
  return { low: at(0.25), high: at(0.75) };
}

/** CPU ms per call of `work`, over `repeat` calls in a row. */
export function cpuMs(work: () => unknown, repeat = 1): number {
  const started = process.cpuUsage();
  for (let call = 0; call < repeat; call++) work();
  const spent = process.cpuUsage(started);
  return (spent.user + spent.system) / 1000 / repeat;
}

/** Calls per sample: enough for MIN_SAMPLE_MS at `ms` per call, at most 1000. */
const repeatFor = (ms: number): number => Math.min(1000, Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(ms, 0.001))));

/** The median of `runs` samples after `warmup` calls (no warm-up: one call per sample). */
export function timeMedian(work: () => unknown, runs: number, warmup: number): Timing {
  let last = Number.POSITIVE_INFINITY;
  for (let call = 0; call < warmup; call++) last = cpuMs(work);
  const repeat = warmup === 0 ? 1 : repeatFor(last);
  const samples = Array.from({ length: runs }, () => cpuMs(work, repeat));
  return { ms: median(samples), samples: runs, spread: spreadOf(samples) };
}

/**
 * Steady-state timing: the first (cold) call, warm-up until a call is no longer 10% faster than the
 * one before (between `minWarmup` and `maxWarmup` calls), then the median of `runs` samples.
 */
export function timeSteady(work: () => unknown, runs: number, minWarmup: number, maxWarmup: number): Timing & { cold: number } {
  const cold = cpuMs(work);
  let previous = cold;
  for (let call = 0; call < maxWarmup; call++) {
    const spent = cpuMs(work);
    const improving = spent < 0.9 * previous;
    previous = spent;
    if (call + 1 >= minWarmup && !improving) break;
  }
  const repeat = repeatFor(previous);
  const samples = Array.from({ length: runs }, () => cpuMs(work, repeat));
  return { cold, ms: median(samples), samples: runs, spread: spreadOf(samples) };
}

/**
 * Medians per piece of work with the pieces sampled in turn (round r samples every piece before
 * round r + 1), so a change in machine speed lands on every piece alike. Each is warmed 4 times.
 */
export function timeInterleaved(works: ReadonlyArray<() => unknown>, runs: number): Timing[] {
  const repeats = works.map((work) => {
    let spent = cpuMs(work);
    for (let call = 0; call < 3; call++) spent = cpuMs(work);
    return repeatFor(spent);
  });
  const samples = works.map((): number[] => []);
  for (let round = 0; round < runs; round++) works.forEach((work, index) => samples[index]?.push(cpuMs(work, repeats[index] as number)));
  return samples.map((each) => ({ ms: median(each), samples: runs, spread: spreadOf(each) }));
}

const gc: () => void =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  })();

/** Peak growth of used heap plus external memory during one call of `work`, in bytes, and the collections it saw. */
export function peakHeap(work: () => unknown): { bytes: number; collections: number } {
  gc();
  gc();
  const inUse = (): number => {
    const stats = v8.getHeapStatistics();
    return stats.used_heap_size + stats.external_memory;
  };
  const baseline = inUse();
  const profiler = new v8.GCProfiler();
  profiler.start();
  work();
  const atEnd = inUse();
  const { statistics } = profiler.stop();
  let peak = atEnd;
  for (const entry of statistics) peak = Math.max(peak, entry.beforeGC.heapStatistics.usedHeapSize + entry.beforeGC.heapStatistics.externalMemory);
  return { bytes: peak - baseline, collections: statistics.length };
}

/** Millions of UTF-16 chars per second at `ms` per call. */
export const rateOf = (chars: number, ms: number): number => chars / 1e6 / (ms / 1000);

/**
 * `body` as a service holds a note it parsed from JSON: one flat string. A body built by joining,
 * slicing or concatenating is a slice or a cons string, which V8 reads through a pointer on every
 * char (1.1-1.2x on block shapes at 1M), a cost a service reading notes never pays.
 */
export function asParsedFromJson(body: string): string {
  return (JSON.parse(JSON.stringify({ body })) as { body: string }).body;
}
