/**
 * Question: how much memory does the Markdown analysis take for the largest note, whatever its
 * Markdown? In-process (Node), through the analysis's one entry point as the request path calls it.
 *
 * Every pathological shape in each position (--quick: inline shapes in an ATX heading, block shapes
 * as the whole note; --shape: those named) at 1,000,000 chars, the note's cap. After one unmeasured analysis (the buffers
 * the analysis keeps between notes then count in the baseline, as in a warm isolate), gc(), then
 * v8.GCProfiler around one analysis: the peak of V8's used heap plus its external memory (the
 * ArrayBuffer storage of the record tables) just before each collection and at the end, minus the
 * same after the gc(), per char of the note.
 *
 * Target: at most 16 B/char, so a note at the cap takes at most 16 MB of an isolate's 128 MB.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { analyzeNoteColumns, MAX_NOTE_HEADINGS, MAX_NOTE_INPUT_CHARS } from '../../src/contracts/analysis';
import { pathologicalNote, type Position, type Shape } from '../lib/markdown/pathological';
import { figure, type Report } from './report';
import type { Check, Target } from './targets';

export const ENGINE_TARGETS = {
  heap: {
    label: 'analysis heap at 1M chars, every shape, at most 16 B/char',
    protects: 'a platform limit: an isolate has 128 MB, and a note at the cap may take at most 16 MB of it',
    bound: 16,
    kind: 'max',
    unit: 'B/char',
    digits: 2,
    scale: 'fixed',
  },
} as const satisfies Record<string, Target>;

function exposedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** The peak growth of used heap plus external memory during `work`, in bytes. */
function peakHeapBytes(work: () => unknown, gc: () => void): number {
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
  return peak - baseline;
}

/** The rows: pathological shapes in their positions (bench.ts picks them). */
export function engine(options: { cases: { shape: Shape; position: Position }[]; report: Report; progress: (line: string) => void }): Check[] {
  const { cases, report } = options;
  const gc = exposedGc();
  options.progress(`engine: peak heap of one analysis at 1M chars, ${cases.length} rows`);
  report.section('What the analysis holds in memory at the note cap (in-process, peak heap per char)');
  const rows = cases.map(({ shape, position }) => {
    // JSON.parse gives one flat string, as the Worker holds a note it read; a built string is a rope.
    const body = (JSON.parse(JSON.stringify({ body: pathologicalNote(shape, position, MAX_NOTE_INPUT_CHARS) })) as { body: string }).body;
    const analyze = (): unknown => analyzeNoteColumns(body, MAX_NOTE_HEADINGS);
    analyze();
    return { name: `${shape.name} (${position})`, perChar: peakHeapBytes(analyze, gc) / body.length };
  });
  const worst = [...rows].sort((a, b) => b.perChar - a.perChar).slice(0, 10);
  report.table([{ header: 'row (the 10 largest)', text: true }, { header: 'B/char' }], worst.map((row) => [row.name, figure(row.perChar, 2)]));
  return [{ target: ENGINE_TARGETS.heap, measured: { values: rows.map((row) => row.perChar), rows: rows.map((row) => row.name) } }];
}
