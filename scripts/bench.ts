/**
 * `npm run bench`: the performance targets of docs/PERFORMANCE.md, each judged PASS, FAIL or NOISY
 * with what it protects and, for a FAIL, whether it is the code's or the machine's (targets.ts). It
 * answers three questions, one file each under scripts/bench/, and measures the Worker only through
 * HTTP into the bundle `wrangler deploy` would upload (the engine alone has its own bench, in
 * process: `npm run bench:engine`, packages/note-structure/bench/engine.ts):
 *
 * - read-cost.ts:  what a warm read costs, against the read floor and the MCP floor;
 * - note-size.ts:  whether a read's CPU grows linearly with the note for every pathological shape,
 *                  and stays clear of the platform's CPU limit at the cap;
 * - cold-start.ts: what a fresh isolate costs (startup CPU, bundle, first request against the floors).
 *
 * It prints the verdicts (with --detail every question's tables after them), writes two SVGs
 * (svg.ts), and exits 1 only when a FAIL is the code's.
 *
 *   node --expose-gc --import tsx scripts/bench.ts [--quick] [--detail] [--only QUESTION ...] [--compare DIR]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathologicalCases } from '@knowtation/note-structure';
import { parseOptionsOrExit } from './cli-options.mjs';
import { coldStart, type ColdStartResult } from './bench/cold-start';
import { buildWithWrangler, measureMachine, type BenchNote } from './bench/lab';
import { noteSize, SIZES, SIZE_TARGETS, type NoteSizeResult } from './bench/note-size';
import { readCost, type ReadCostResult, type Spreading } from './bench/read-cost';
import { MCP_ERAS } from './lib/worker-api';
import { firstLine, Report, WIDTH, wrap } from './bench/report';
import { floorsChart, linearChart } from './bench/svg';
import { judgeCheck, machineOf, verdictLines, type Check, type Machine } from './bench/targets';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const QUESTIONS = ['read-cost', 'note-size', 'cold-start'] as const;
type Question = (typeof QUESTIONS)[number];

const USAGE = [
  'usage: npm run bench -- [--quick] [--detail] [--only QUESTION ...] [--shape TEXT] [--compare DIR]',
  '  (= node --expose-gc --import tsx scripts/bench.ts ...; a full run takes 3 minutes on a quiet',
  '  2-core machine, 8 on a busy one)',
  '  --quick          fewer samples and rows: 1 minute quiet, 2.5 busy (more targets may read NOISY)',
  '  --detail         every question\'s tables after the verdicts',
  `  --only QUESTION  only these questions (repeatable): ${QUESTIONS.join(', ')}`,
  '  --shape TEXT     note-size rows of the pathological shapes whose name holds TEXT',
  '  --compare DIR    read-cost also reads the corpus through another build of the Worker (DIR/index.js,',
  '                   from wrangler deploy --dry-run --outdir DIR) in the same passes, beside ours',
  'A full run writes docs/bench-linear.svg and docs/bench-floors.svg; --quick, --only and --shape write them',
  'under bench-results/. Exit 1 when a target FAILs and the code, not the machine, misses it.',
].join('\n');

interface BenchOptions {
  quick: boolean;
  detail: boolean;
  questions: Question[];
  /** --shape: only the pathological shapes whose name holds it. */
  shape: string | null;
  /** --compare: another build's module, read beside ours. */
  compareScript: string | null;
}

function readOptions(argv: string[]): BenchOptions {
  const options = { quick: { type: 'boolean' }, detail: { type: 'boolean' }, only: { type: 'string', multiple: true }, shape: { type: 'string' }, compare: { type: 'string' } } as const;
  return parseOptionsOrExit(argv, options, USAGE, (values, UsageError) => {
    const only = (values.only ?? []) as string[];
    for (const name of only) if (!(QUESTIONS as readonly string[]).includes(name)) throw new UsageError(`--only ${name}: not one of ${QUESTIONS.join(', ')}`);
    if (values.shape === '') throw new UsageError('--shape needs a text');
    const shape = typeof values.shape === 'string' ? values.shape : null;
    const compareScript = typeof values.compare === 'string' ? path.resolve(values.compare, 'index.js') : null;
    if (compareScript !== null && !existsSync(compareScript)) throw new UsageError(`--compare ${values.compare}: no index.js there (build it with wrangler deploy --dry-run --outdir DIR)`);
    const questions = only.length > 0 ? (only as Question[]) : [...QUESTIONS];
    if (compareScript !== null && !questions.includes('read-cost')) throw new UsageError('--compare measures in the read-cost question, which --only leaves out');
    return { quick: values.quick === true, detail: values.detail === true, questions, shape, compareScript };
  });
}

/** A line on the terminal while the bench runs (stderr: not part of the report). */
function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** The shared corpus as the canister serves it, or none when ../shared is absent. */
function loadCorpus(): BenchNote[] {
  const file = path.resolve(repoRoot, '../shared/corpus/knowtation-notes.json');
  if (!existsSync(file)) return [];
  const notes = JSON.parse(readFileSync(file, 'utf8')) as { path: string; frontmatter: unknown; body: string }[];
  return notes.map((note) => ({ path: note.path, body: note.body, wireFrontmatter: JSON.stringify(note.frontmatter) }));
}

interface Results {
  checks: Check[];
  read?: ReadCostResult;
  size?: NoteSizeResult;
  cold?: ColdStartResult;
  /** The slower of the machine's probes before and after the Worker questions. */
  machine: Machine | null;
  probes: Machine[];
}

async function runQuestions(options: BenchOptions, report: Report): Promise<Results> {
  const results: Results = { checks: [], machine: null, probes: [] };
  const asked = (question: Question): boolean => options.questions.includes(question);
  const corpus = loadCorpus();
  if (corpus.length === 0) report.text('No corpus at ../shared/corpus: the read and real-note rows are left out.');
  // --quick: every shape once, inline shapes in an ATX heading (their costliest place), block shapes as the note.
  const cases = pathologicalCases().filter(
    ({ shape, position }) => (options.shape === null ? !options.quick || position === 'atx' || position === 'block' : shape.name.includes(options.shape)),
  );
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-'));
  try {
    progress('building the Worker as wrangler deploy would upload it (--dry-run)');
    const metafile = path.join(outDir, 'meta.json');
    const buildOutput = buildWithWrangler(repoRoot, outDir, ['--metafile', metafile]);
    const ourScript = path.join(outDir, 'index.js');
    const shared = { quick: options.quick, report, progress };
    const probe = async (): Promise<void> => {
      progress("the machine's speed: the read floor's probes");
      const { noopMs, computeMs } = await measureMachine();
      results.probes.push(machineOf(noopMs, computeMs));
    };
    await probe();
    if (asked('read-cost')) {
      results.read = await readCost({ ...shared, repoRoot, ourScript, corpus, ...(options.compareScript ? { compareScript: options.compareScript } : {}) });
      results.checks.push(...results.read.checks);
    }
    if (asked('note-size')) {
      results.size = await noteSize({ ...shared, ourScript, cases, corpus: options.shape === null ? corpus : [] });
      results.checks.push(...results.size.checks);
    }
    if (asked('cold-start')) {
      results.cold = await coldStart({ ...shared, repoRoot, ourScript, buildOutput, metafile });
      results.checks.push(...results.cold.checks);
    }
    await probe();
    const slower = results.probes.reduce((a, b) => (b.factor > a.factor ? b : a));
    results.machine = Number.isFinite(slower.factor) ? slower : null;
  } catch (error) {
    report.text(`The Worker questions stopped: ${firstLine(error)}`);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  return results;
}

/** Writes the pictures of what was measured; the paths written. */
function writePictures(results: Results, options: BenchOptions, started: Date): string[] {
  const full = !options.quick && options.shape === null && options.questions.length === QUESTIONS.length;
  const dir = path.join(repoRoot, full ? 'docs' : 'bench-results');
  const run = `${started.toISOString().slice(0, 10)}${options.quick ? ', --quick' : ''}`;
  const written: string[] = [];
  const write = (name: string, svg: string): void => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, name), svg);
    written.push(path.relative(repoRoot, path.join(dir, name)));
  };
  if (results.size && results.size.rows.length > 0) write('bench-linear.svg', linearChart({ sizes: SIZES, rows: results.size.rows, boundMs: SIZE_TARGETS.atCap.bound, run }));
  const floors = results.read?.floors;
  const first = results.cold?.first;
  if (floors && first) {
    write(
      'bench-floors.svg',
      floorsChart({
        run,
        warm: [
          { what: 'REST read of a real note', ours: floors.read, floor: floors.readFloor, floorName: 'read floor' },
          ...floors.mcp.map((each) => ({ what: `MCP call ${each.era}`, ours: each.ours, floor: each.sdk, floorName: 'MCP floor' })),
        ],
        first: [
          { what: 'REST read', ours: first.rest, floor: first.readFloor, floorName: 'read floor' },
          ...first.mcp.map((each) => ({ what: `MCP call ${each.era}`, ours: each.ours, floor: each.sdk, floorName: 'MCP floor' })),
        ],
      }),
    );
  }
  return written;
}

/** A path relative to the working directory when it lies under it, else as it is. */
function shortPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
}

function summary(results: Results, options: BenchOptions, started: Date, pictures: string[]): { lines: string[]; codeFails: number } {
  const lines: string[] = [];
  const text = (paragraph: string): void => void lines.push(...wrap(paragraph, WIDTH, '    '));
  const { machine } = results;
  const judgements = results.checks.map((check) => judgeCheck(check, machine));
  lines.push(`## Verdicts: the targets of docs/PERFORMANCE.md${options.quick ? ' (--quick: fewer samples and rows)' : ''}`, '');
  // A verdict's lines keep their indent when wrapped, and its first line wraps under its label.
  for (const judgement of judgements) {
    for (const line of verdictLines(judgement)) {
      const lead = /^ */.exec(line)?.[0] ?? '';
      lines.push(...wrap(line.slice(lead.length), WIDTH - lead.length, lead === '' ? '       ' : '  ').map((each) => `${lead}${each}`));
    }
  }
  lines.push('');
  const count = (verdict: string, cause?: string): number =>
    judgements.filter((each) => each.verdict === verdict && (cause === undefined || each.cause === cause)).length;
  const measured = judgements.filter((each) => each.verdict !== null).length;
  const codeFails = count('FAIL', 'code');
  text(
    `verdict: ${count('PASS')} PASS, ${count('NOISY')} NOISY, ${count('FAIL', 'machine')} FAIL the machine's, ${codeFails} FAIL the code's, ` +
      `of ${measured} measured targets (NOISY: this run's spread straddles the bound)`,
  );
  const probed = (each: Machine): string => `no-op ${each.noopMs.toFixed(3)}, computation ${each.computeMs.toFixed(2)} (${each.factor.toFixed(2)}x the reference)`;
  if (results.probes.length > 0) {
    text(
      `machine, workerd CPU ms of the read floor's probes before and after: ${results.probes.map(probed).join('; ')}; ` +
        'the slower judges the CPU targets (quote it with the figures)',
    );
  }
  const floors = results.read?.floors;
  if (floors) {
    text(
      `floors, warm workerd CPU ms: our REST read ${floors.read.toFixed(3)}, the read floor's ${floors.readFloor.toFixed(3)}; ` +
        floors.mcp.map((each) => `MCP ${each.era} over REST ${each.ours.toFixed(3)}, the SDK's own ${each.sdk.toFixed(3)}`).join('; '),
    );
  }
  const hub = results.read?.hub;
  if (hub) {
    text(
      `hosted context: the Hub's stand-in asked ${hub.calls} times in ${hub.seconds.toFixed(0)} s by ${hub.reads} reads whose token ` +
        'carries none (our Worker keeps an answer 5 s)',
    );
  }
  const comparison = results.read?.comparison;
  if (comparison && options.compareScript) {
    const cell = (each: Spreading, digits = 3): string => `${each.ms.toFixed(digits)} [${each.low.toFixed(digits)}, ${each.high.toFixed(digits)}]`;
    const { ours, compared, difference } = comparison;
    text(
      `compared with ${shortPath(options.compareScript)}, warm corpus reads, workerd CPU ms over the no-op, median [spread], ours (its twin) vs compared: ` +
        `REST read ${cell(ours.rest)} vs ${cell(compared.rest)}, ${cell(ours.overFloor, 2)}x vs ${cell(compared.overFloor, 2)}x the read floor; ` +
        MCP_ERAS.map((era) => `MCP ${era} ${cell(ours.mcp[era])} vs ${cell(compared.mcp[era])}`).join('; ') +
        `; ours minus compared, pass by pass: REST ${cell(difference.rest)}, ` +
        MCP_ERAS.map((era) => `MCP ${era} ${cell(difference.mcp[era])}`).join(', '),
    );
  }
  const first = results.cold?.first;
  if (first) {
    text(
      `first request, workerd CPU ms over warm: our REST read ${first.rest.toFixed(2)}, the read floor's ${first.readFloor.toFixed(2)}; ` +
        first.mcp.map((each) => `MCP ${each.era} ${each.ours.toFixed(2)}, the SDK's own ${each.sdk.toFixed(2)}`).join('; '),
    );
  }
  if (pictures.length > 0) text(`pictures: ${pictures.join(', ')}`);
  text(`run: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${Math.round((Date.now() - started.getTime()) / 1000)} s, ${os.cpus().length} cpus, node ${process.version}`);
  text(codeFails > 0 ? `exit 1: ${codeFails} target${codeFails === 1 ? '' : 's'} FAIL and the code misses ${codeFails === 1 ? 'it' : 'them'}` : 'exit 0: no FAIL is the code\'s');
  return { lines, codeFails };
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  const started = new Date();
  const report = new Report();
  const results = await runQuestions(options, report);
  const pictures = writePictures(results, options, started);
  const { lines, codeFails } = summary(results, options, started, pictures);
  const detail = options.detail ? report.output() : ['', 'every question\'s tables: npm run bench -- --detail'];
  process.stdout.write(`${[...lines, ...detail].join('\n')}\n`);
  process.exitCode = codeFails > 0 ? 1 : 0;
}

await main();
