/**
 * Question: does a read's CPU grow linearly with the note, whatever its Markdown, and stay clear of
 * the platform's CPU limit at the largest note the Worker accepts?
 *
 * Every pathological shape (@knowtation/note-structure's PATHOLOGICAL_SHAPES: cmark's and md4c's
 * pathological tests and more), in each position a note can hold it (a full run; --quick: inline shapes in an ATX
 * heading, block shapes as the whole note), and real notes joined (the shared corpus), at SIZES chars.
 * Each note is read through our Worker (REST section source: one analysis and the largest payload),
 * the sizes sampled in turn so a change in machine speed lands on all of them; per size, the median
 * workerd CPU of the samples. The first row's notes are also read through the read floor (the same
 * canister GET and JSON parse, nothing else): the platform's own share of a read of each size.
 *
 * Targets: every row at 1M chars at most 100 ms of workerd CPU (wrangler.toml's cpu_ms = 300 cuts a
 * request off with the platform's error, not ours); growth per doubling at most 2.3x, fitted on our
 * CPU per read, 2.0 being linear.
 */
import { fittedGrowth, pathologicalNote, type PathologicalPosition, type PathologicalShape } from '@knowtation/note-structure';
// The engine's bench fits growth the same way on one analysis; both read it by this one rule.
import { answered, benchToken, cpuOf, READ_FLOOR, restRead, startCanister, startLab, type BenchNote } from './lab';
import { figure, firstLine, median, spreadOf, type Report, type Spread } from './report';
import type { Check, Target } from './targets';

/** The note sizes, in chars: doublings up to the Worker's cap (MAX_NOTE_INPUT_CHARS). */
export const SIZES = [125_000, 250_000, 500_000, 1_000_000] as const;

export const SIZE_TARGETS = {
  atCap: {
    label: 'every shape at 1M chars, at most 100 ms of workerd CPU',
    protects: "a platform limit: past cpu_ms = 300 the platform cuts the read off with its own error",
    bound: 100,
    kind: 'max',
    unit: 'ms',
    digits: 1,
    scale: 'cpu',
  },
  growth: {
    label: 'growth per doubling, 125K to 1M chars, every shape, at most 2.3x',
    protects: 'the linear-time claim: no Markdown costs more per char as the note grows, so the size cap bounds every read',
    bound: 2.3,
    kind: 'max',
    unit: 'x',
    digits: 2,
    scale: 'fixed',
  },
} as const satisfies Record<string, Target>;

/** A pathological shape in one position: a row of the note-size and engine questions. */
export type ShapeCase = { shape: PathologicalShape; position: PathologicalPosition };

export interface NoteSizeOptions {
  quick: boolean;
  /** The pathological rows (bench.ts picks them: all, --quick's, or --shape's). */
  cases: ShapeCase[];
  /** Our Worker's module (index.js of the dry-run build). */
  ourScript: string;
  report: Report;
  progress: (line: string) => void;
  /** Real notes, joined to each size as the baseline row; none: no baseline. */
  corpus: BenchNote[];
}

/** One row: a shape in a position (or the real notes), our median CPU per size, and the floor's for the first row. */
export interface SizeRow {
  name: string;
  ours: number[];
  floor: number[] | null;
  /** The spread of our samples at 1M chars. */
  spreadAtCap: Spread;
  growth: number;
}

export interface NoteSizeResult {
  checks: Check[];
  rows: SizeRow[];
}

const POSITION: Record<PathologicalPosition, string> = { atx: 'in an ATX heading', setext: 'in a setext heading', paragraph: 'in a paragraph', block: 'as the note' };

/** The rows' notes: a name and a body of each size. */
function rowInputs(cases: ShapeCase[], corpus: BenchNote[]): { name: string; body: (chars: number) => string }[] {
  const rows = cases.map(({ shape, position }) => ({ name: `${shape.name} ${POSITION[position]}`, body: (chars: number) => pathologicalNote(shape, position, chars) }));
  if (corpus.length === 0) return rows;
  const joined = corpus.map((note) => note.body).join('\n\n');
  const real = (chars: number): string => joined.repeat(Math.ceil(chars / joined.length)).slice(0, chars);
  return [{ name: 'real notes, joined', body: real }, ...rows];
}

export async function noteSize(options: NoteSizeOptions): Promise<NoteSizeResult> {
  const { report, quick } = options;
  const samples = quick ? 3 : 5;
  const inputs = rowInputs(options.cases, options.corpus);
  report.section('How a read grows with the note: workerd CPU per read at 125K to 1M chars');
  options.progress(`note size: ${inputs.length} rows at ${SIZES.length} sizes, ${samples} samples each`);
  const canister = await startCanister();
  const rows: SizeRow[] = [];
  try {
    const lab = await startLab(canister.url, [
      { name: 'ours', scriptPath: options.ourScript },
      { name: 'floor', scriptPath: READ_FLOOR },
    ]);
    try {
      const token = await benchToken();
      const read = async (worker: 'ours' | 'floor', notePath: string): Promise<void> => {
        const response = await restRead(lab.bases.get(worker) as URL, 'section_source', notePath, worker === 'ours' ? token : null);
        const text = await response.text();
        // 422: a section source over 4 MiB is refused, sized before it is built.
        if (!answered(response, text, worker === 'ours' ? [200, 422] : [200])) throw new Error(`${worker} answered ${response.status} ${text.slice(0, 160)}`);
      };
      for (const [index, input] of inputs.entries()) {
        if (process.stderr.isTTY) process.stderr.write(`\r  row ${index + 1} of ${inputs.length}`);
        const notes = SIZES.map((chars) => ({ path: `bench/size-${chars}.md`, body: input.body(chars) }));
        canister.serve(notes);
        const taken = { ours: SIZES.map((): number[] => []), floor: SIZES.map((): number[] => []) };
        const workers = index === 0 ? (['ours', 'floor'] as const) : (['ours'] as const);
        for (let round = -1; round < samples; round++) {
          for (const [at, note] of notes.entries()) {
            for (const worker of workers) {
              const cpu = await cpuOf(lab.workerd, () => read(worker, note.path));
              // Round -1 warms each note's path: compiled code, and the canister's first answer.
              if (round >= 0) taken[worker][at]?.push(cpu);
            }
          }
        }
        const ours = taken.ours.map(median);
        const growth = fittedGrowth(SIZES.map((chars, at) => [chars, ours[at] as number]));
        rows.push({ name: input.name, ours, floor: index === 0 ? taken.floor.map(median) : null, growth, spreadAtCap: spreadOf(taken.ours[SIZES.length - 1] as number[]) });
      }
      if (process.stderr.isTTY) process.stderr.write('\n');
    } finally {
      await lab.dispose();
    }
  } catch (error) {
    const why = firstLine(error);
    report.text(`skipped: ${why}`);
    return { checks: [SIZE_TARGETS.atCap, SIZE_TARGETS.growth].map((target) => ({ target, skipped: why })), rows: [] };
  } finally {
    canister.close();
  }
  report.table(
    [{ header: 'row', text: true }, ...SIZES.map((chars) => ({ header: `${chars / 1000}K ms` })), { header: 'growth' }],
    [
      ...rows.map((row) => [row.name, ...row.ours.map((ms) => figure(ms, 2)), figure(row.growth, 2)]),
      ...(rows[0]?.floor ? [[`read floor, ${rows[0].name}`, ...rows[0].floor.map((ms) => figure(ms, 2)), '-']] : []),
    ],
  );
  report.legend([
    ['ms', `median workerd CPU of ${samples} reads of the note's section source through our Worker`],
    ['read floor', "the read floor's CPU for the first row's notes: the platform's own fetch and JSON parse of a note that size"],
    ['growth', 'per doubling, fitted over the four sizes (2 ** slope of log CPU on log chars; linear 2.0, quadratic 4.0)'],
  ]);
  const atCap = rows.map((row) => row.ours[SIZES.length - 1] as number);
  return {
    rows,
    checks: [
      {
        target: SIZE_TARGETS.atCap,
        measured: { values: atCap, rows: rows.map((row) => row.name), spreads: rows.map((row) => row.spreadAtCap) },
      },
      { target: SIZE_TARGETS.growth, measured: { values: rows.map((row) => row.growth), rows: rows.map((row) => row.name) } },
    ],
  };
}
