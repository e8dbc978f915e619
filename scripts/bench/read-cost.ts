/**
 * Question: what does a warm read cost, against the least any Worker must pay for it?
 *
 * Three Workers in one workerd, each on its own socket: ours (the bundle `wrangler deploy` uploads,
 * with HOSTED_CONTEXT_URL at the Hub's stand-in), the read floor (read-floor-worker.js: our canister
 * GET, its JSON parsed, one log line, a one-field answer) and the MCP floor (mcp-floor-worker.ts: the
 * official SDK answering a constant tools/call as our Worker serves each era); with --compare two
 * more, another build of the Worker and a twin of ours (our bundle again), each sent the same corpus
 * reads. Every kind of request is sent a request at a time, each pass one of every kind in an order
 * that turns by one each pass, and its workerd CPU read around it (lab.ts cpuOf); figures are
 * differences of medians, their spread the same difference in each of BLOCKS consecutive blocks of
 * samples. A burst of other load on a shared machine lands on a few samples, which the medians set
 * aside. A kind always follows the same kinds, and what ran before a request (its own isolate or
 * others) shows in its CPU, so two reads compared request by request share one slot (HUB_PAIR).
 *
 * Our requests send a token that carries its hosted context; the pair also reads each corpus note
 * with a token that carries none (as the Hub's own tokens), so our Worker asks the Hub's stand-in
 * and then answers from what it keeps (5 s per token and vault): the stand-in's calls are counted.
 *
 * Targets:
 * - our REST read of each real note (the shared corpus) over the read floor's read of the same notes,
 *   both net of the floor's no-op exchange: at most 1.5x;
 * - the fixed cost of a REST read, a 404 for a missing note over our GET /health: at most 1 ms;
 * - what an MCP tools/call costs over the same REST read, beyond what the SDK's own exchange costs
 *   over a JSON GET (the MCP floor): at most 0.3 ms, per era, on a 10-char note and on the corpus;
 * - a corpus read whose hosted context is remembered (asked of the Hub) over the same read with a
 *   token that carries it: at most 0.05 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MCP_ERAS, type McpEra } from '../lib/worker-api';
import { answered, benchToken, buildMcpFloor, cpuOf, mcpCall, READ_FLOOR, restRead, startCanister, startHub, startLab, type BenchNote } from './lab';
import { figure, firstLine, median, quantile, spreadOf, type Report } from './report';
import type { Check, Target } from './targets';

export const READ_TARGETS = {
  overFloor: {
    label: 'warm REST read of a real note, at most 1.5x the read floor',
    protects: "the CPU bill: what a read costs beyond the platform's own fetch and parse of the note",
    bound: 1.5,
    kind: 'max',
    unit: 'x',
    digits: 2,
    scale: 'fixed',
  },
  fixed: {
    label: 'fixed cost of a REST read (404 over /health), at most 1 ms',
    protects: 'the CPU bill of every request: token, checks and the canister round trip',
    bound: 1,
    kind: 'max',
    unit: 'ms',
    digits: 2,
    scale: 'cpu',
  },
  mcp: {
    label: "MCP tools/call over REST beyond the SDK's own exchange, at most 0.3 ms",
    protects: "an agent's CPU bill: our MCP adapter's cost on top of the official SDK's",
    bound: 0.3,
    kind: 'max',
    unit: 'ms',
    digits: 2,
    scale: 'cpu',
  },
  remembered: {
    label: 'a read whose hosted context is remembered, CPU over one whose token carries it, at most 0.05 ms',
    protects: "the CPU bill of the Hub's own tokens: they carry no hosted context, so each of their reads takes it from what the Worker keeps",
    bound: 0.05,
    kind: 'max',
    unit: 'ms',
    digits: 3,
    scale: 'fixed',
  },
} as const satisfies Record<string, Target>;

export interface ReadCostOptions {
  quick: boolean;
  repoRoot: string;
  /** Our Worker's module (index.js of the dry-run build). */
  ourScript: string;
  report: Report;
  progress: (line: string) => void;
  /** The real notes of the read rows, each read in turn; none: no read rows. */
  corpus: BenchNote[];
  /** Another build's module (an index.js of `wrangler deploy --dry-run`), its corpus reads measured beside ours. */
  compareScript?: string;
}

/** A figure's median and its spread (low to high over the blocks), workerd CPU ms or a ratio. */
export interface Spreading {
  ms: number;
  low: number;
  high: number;
}

/** One build's warm corpus reads: over the no-op exchange, and the REST read over the read floor's. */
export interface BuildReads {
  rest: Spreading;
  overFloor: Spreading;
  mcp: Record<McpEra, Spreading>;
}

/** Ours beside the --compare build, in the same passes. */
export interface Comparison {
  /** Our bundle as the twin: a Worker of its own sent the same kinds as the compared build. */
  ours: BuildReads;
  compared: BuildReads;
  /** Ours minus the compared build's, pass by pass: the REST read and each era's MCP call. */
  difference: { rest: Spreading; mcp: Record<McpEra, Spreading> };
}

export interface ReadCostResult {
  checks: Check[];

  /** Net of the no-op exchange, for the floors picture: our corpus read and the floor's; MCP ours and the SDK's, per era. */
  floors?: { read: number; readFloor: number; mcp: { era: McpEra; ours: number; sdk: number }[] };
  /** The Hub's stand-in: its calls while the reads were measured, over how many seconds, and how many reads asked for the context. */
  hub?: { calls: number; seconds: number; reads: number };
  comparison?: Comparison;
  /** Why it did not run or stopped. */
  skipped?: string;
}

type Worker = 'ours' | 'floor' | 'sdk' | 'twin' | 'compare';

/** The two bench tokens: one that carries its hosted context, one that carries none (the Hub is asked). */
interface Tokens {
  carries: string;
  none: string;
}

interface Kind {
  key: string;
  label: string;
  worker: Worker;
  statuses: number[];
  mcp?: boolean;
  /** The kind's `index`th request (reads take the corpus notes in turn). */
  send: (base: URL, index: number) => Promise<Response>;
}

const SMALL = { path: 'bench/small.md', body: '# Note\n\nHi' };

/**
 * The hosted-context pairs: a kind, so one slot in the order, whose passes 2k and 2k + 1 read the
 * same note once with the token that carries its context and once with the one that carries none,
 * which goes first turning pair by pair. What ran before a request shows in its CPU (0.16-0.18 ms
 * between two slots of the same read), so the two reads compared share a slot. Two such kinds, one
 * after the other, for twice the pairs; their series are split out of the kinds' samples (`token`,
 * `hub`), pair by pair.
 */
const HUB_PAIR = { keys: ['read pair', 'read pair again'], token: 'read token', hub: 'read hub' } as const;
/** Whether pass `pass` of the pair kind sends the token that carries no context. */
const hubAt = (pass: number): boolean => (pass & 1) !== ((pass >> 1) & 1);
/** Consecutive blocks the samples are cut into for a figure's spread. */
const BLOCKS = 8;

function kinds({ carries: token, none }: Tokens, readPaths: string[], withSdk: boolean, withCompare: boolean): Kind[] {
  const readPath = (index: number): string => readPaths[index % readPaths.length] as string;
  const health = (base: URL): Promise<Response> => fetch(new URL('/health', base));
  const small: Kind[] = [
    { key: 'noop', label: 'read floor GET /health (no-op)', worker: 'floor', statuses: [200], send: health },
    { key: 'health', label: 'our GET /health', worker: 'ours', statuses: [200], send: health },
    { key: 'missing', label: '404, missing note', worker: 'ours', statuses: [404], send: (base) => restRead(base, 'note_outline', 'bench/missing.md', token) },
    { key: 'small', label: `200 outline, ${SMALL.body.length}-char note`, worker: 'ours', statuses: [200], send: (base) => restRead(base, 'note_outline', SMALL.path, token) },
    ...MCP_ERAS.map((era): Kind => ({ key: `small ${era}`, label: `MCP ${era}, ${SMALL.body.length}-char note`, worker: 'ours', statuses: [200], mcp: true, send: (base) => mcpCall(base, token, era, SMALL.path) })),
  ];
  const sdk: Kind[] = [
    { key: 'sdk json', label: 'MCP floor GET /json', worker: 'sdk', statuses: [200], send: (base) => fetch(new URL('/json', base)) },
    ...MCP_ERAS.map((era): Kind => ({ key: `sdk ${era}`, label: `MCP floor ${era} tools/call`, worker: 'sdk', statuses: [200], mcp: true, send: (base) => mcpCall(base, token, era, SMALL.path) })),
  ];
  const reads: Kind[] = [
    { key: 'read', label: 'our REST read, corpus', worker: 'ours', statuses: [200], send: (base, index) => restRead(base, 'note_outline', readPath(index), token) },
    { key: 'floor', label: 'read floor, corpus', worker: 'floor', statuses: [200], send: (base, index) => restRead(base, 'note_outline', readPath(index), null) },
    ...MCP_ERAS.map((era): Kind => ({ key: `read ${era}`, label: `MCP ${era}, corpus`, worker: 'ours', statuses: [200], mcp: true, send: (base, index) => mcpCall(base, token, era, readPath(index)) })),
    // Pass 2k and 2k + 1 read note k, once with each token, in one slot of the order (HUB_PAIR).
    ...HUB_PAIR.keys.map((key): Kind => ({ key, label: `${key}, either token`, worker: 'ours', statuses: [200], send: (base, index) => restRead(base, 'note_outline', readPath(index >> 1), hubAt(index) ? none : token) })),
  ];
  // Our bundle again as a Worker of its own (the twin), with the same kinds as the compared build, so both see the same traffic.
  const compared = (['twin', 'compare'] as const).flatMap((worker): Kind[] => [
    { key: `read@${worker}`, label: `${worker}: REST read, corpus`, worker, statuses: [200], send: (base, index) => restRead(base, 'note_outline', readPath(index), token) },
    ...MCP_ERAS.map((era): Kind => ({ key: `read ${era}@${worker}`, label: `${worker}: MCP ${era}, corpus`, worker, statuses: [200], mcp: true, send: (base, index) => mcpCall(base, token, era, readPath(index)) })),
  ]);
  return [...small, ...(withSdk ? sdk : []), ...(readPaths.length > 0 ? [...reads, ...(withCompare ? compared : [])] : [])];
}

/** The samples cut into BLOCKS consecutive blocks. */
function blocksOf(samples: number[]): number[][] {
  const size = Math.max(1, Math.ceil(samples.length / BLOCKS));
  return Array.from({ length: Math.ceil(samples.length / size) }, (_, block) => samples.slice(block * size, (block + 1) * size));
}

export async function readCost(options: ReadCostOptions): Promise<ReadCostResult> {
  const { report, quick } = options;
  report.section('What a warm read costs, against the read floor and the MCP floor (workerd CPU per request)');
  const readPaths = options.corpus.map((note) => note.path);
  const warmups = quick ? 5 : 20;
  // Reads take the corpus notes in turn: whole passes over them, so every note is read alike.
  const passes = readPaths.length > 0 ? readPaths.length * (quick ? 1 : 3) : quick ? 100 : 400;
  options.progress(`read cost: ${passes} interleaved passes over every kind of request`);
  const sdkDir = mkdtempSync(path.join(os.tmpdir(), 'knowtation-bench-mcp-floor-'));
  const canister = await startCanister([{ path: SMALL.path, body: SMALL.body }, ...options.corpus]);
  const hub = await startHub();
  let samples = new Map<string, number[]>();
  let all: Kind[] = [];
  let errors = '';
  let hubCalls = { calls: 0, seconds: 0 };
  try {
    let sdkScript: string | null = null;
    try {
      sdkScript = buildMcpFloor(options.repoRoot, sdkDir);
    } catch (error) {
      report.text(`MCP floor: not built (${firstLine(error)}); the MCP target is not judged`);
    }
    const hubBindings = { HOSTED_CONTEXT_URL: hub.contextUrl };
    const lab = await startLab(canister.url, [
      { name: 'ours', scriptPath: options.ourScript, bindings: hubBindings },
      { name: 'floor', scriptPath: READ_FLOOR },
      ...(sdkScript ? [{ name: 'sdk', scriptPath: sdkScript }] : []),
      ...(options.compareScript
        ? [
            { name: 'twin', scriptPath: options.ourScript, bindings: hubBindings },
            { name: 'compare', scriptPath: options.compareScript, bindings: hubBindings },
          ]
        : []),
    ]);
    try {
      const tokens = { carries: await benchToken({ carriesContext: true }), none: await benchToken() };
      all = kinds(tokens, readPaths, sdkScript !== null, options.compareScript !== undefined);
      const sent = new Map<string, number>();
      const send = async (kind: Kind): Promise<void> => {
        const index = sent.get(kind.key) ?? 0;
        sent.set(kind.key, index + 1);
        const response = await kind.send(lab.bases.get(kind.worker) as URL, index);
        const text = await response.text();
        if (!answered(response, text, kind.statuses, kind.mcp)) throw new Error(`${kind.label}: status ${response.status} ${text.slice(0, 160)}`);
      };
      for (const kind of all) for (let index = 0; index < warmups; index++) await send(kind);
      // Every kind's `index`th measured request is its pass's.
      sent.clear();
      samples = new Map(all.map((kind) => [kind.key, []]));
      const [callsBefore, started] = [await hub.calls(), Date.now()];
      for (let pass = 0; pass < passes; pass++) {
        for (let step = 0; step < all.length; step++) {
          const kind = all[(pass + step) % all.length] as Kind;
          samples.get(kind.key)?.push(await cpuOf(lab.workerd, () => send(kind)));
        }
      }
      hubCalls = { calls: (await hub.calls()) - callsBefore, seconds: (Date.now() - started) / 1000 };
    } finally {
      errors = lab.errors();
      await lab.dispose();
    }
  } catch (error) {
    const why = firstLine(error);
    report.text(`skipped: ${why}${errors ? `; Worker stderr: ${errors.slice(0, 300)}` : ''}`);
    return { checks: [], skipped: why };
  } finally {
    canister.close();
    await hub.close();
    rmSync(sdkDir, { recursive: true, force: true });
  }
  if ([...samples.values()].some((cpu) => cpu.some(Number.isNaN))) {
    report.text('workerd schedstat not readable under this process: nothing measured');
    return { checks: [], skipped: 'no /proc schedstat' };
  }
  return judged(options, all, samples, hubCalls);
}

/** A figure of medians, and the same figure in each block of samples (its spread). */
interface Figure {
  ms: number;
  blocks: number[];
}

const minus = (a: Figure, b: Figure): Figure => ({ ms: a.ms - b.ms, blocks: a.blocks.map((value, at) => value - (b.blocks[at] as number)) });
const over = (a: Figure, b: Figure): Figure => ({ ms: a.ms / b.ms, blocks: a.blocks.map((value, at) => value / (b.blocks[at] as number)) });
const spreading = (each: Figure): Spreading => ({ ms: each.ms, ...spreadOf(each.blocks) });
const perEra = <T>(value: (era: McpEra) => T): Record<McpEra, T> => Object.fromEntries(MCP_ERAS.map((era) => [era, value(era)])) as Record<McpEra, T>;

/** The pair kinds' samples as two series whose kth samples read one note in one slot, and the rows of the table with them. */
function splitPair(all: Kind[], samples: Map<string, number[]>): { rows: { key: string; label: string }[]; series: Map<string, number[]> } {
  const series = new Map(samples);
  const [tokenSeries, hubSeries] = [[] as number[], [] as number[]];
  const kinds = HUB_PAIR.keys.map((key) => samples.get(key) ?? []);
  const pairs = Math.min(...kinds.map((each) => each.length)) >> 1;
  for (let pair = 0; pair < pairs; pair++) {
    for (const each of kinds) {
      const [first, second] = [each[2 * pair] as number, each[2 * pair + 1] as number];
      tokenSeries.push(hubAt(2 * pair) ? second : first);
      hubSeries.push(hubAt(2 * pair) ? first : second);
    }
  }
  for (const key of HUB_PAIR.keys) series.delete(key);
  series.set(HUB_PAIR.token, tokenSeries);
  series.set(HUB_PAIR.hub, hubSeries);
  const rows = all.flatMap((kind): { key: string; label: string }[] =>
    kind.key === HUB_PAIR.keys[1]
      ? []
      : kind.key === HUB_PAIR.keys[0]
      ? [
          { key: HUB_PAIR.token, label: "our REST read, corpus, the token's context (pair)" },
          { key: HUB_PAIR.hub, label: 'our REST read, corpus, context from the Hub (pair)' },
        ]
      : [kind],
  );
  return { rows, series };
}

function judged(options: ReadCostOptions, all: Kind[], samples: Map<string, number[]>, hubCalls: { calls: number; seconds: number }): ReadCostResult {
  const { report } = options;
  const { rows, series } = splitPair(all, samples);
  const cpu = (key: string): number[] => series.get(key) ?? [];
  const of = (key: string): Figure => ({ ms: median(cpu(key)), blocks: blocksOf(cpu(key)).map(median) });
  // Two series whose kth samples read the same note: the median of their differences.
  const paired = (key: string, other: string): Figure => {
    const differences = cpu(key).map((value, pass) => value - (cpu(other)[pass] as number));
    return { ms: median(differences), blocks: blocksOf(differences).map(median) };
  };
  const noop = of('noop');
  report.table(
    [{ header: 'request', text: true }, { header: 'n' }, { header: 'CPU p25' }, { header: 'CPU p50' }, { header: 'CPU p75' }, { header: 'over no-op' }],
    rows.map((kind) => {
      const sorted = [...cpu(kind.key)].sort((a, b) => a - b);
      return [kind.label, String(sorted.length), ...[0.25, 0.5, 0.75].map((q) => quantile(sorted, q).toFixed(3)), (median(sorted) - noop.ms).toFixed(3)];
    }),
  );
  report.legend([
    ['CPU', 'workerd CPU ms per request (schedstat of every workerd thread, read around each request): its quartiles'],
    ['no-op', "the read floor's GET /health, which answers at once: an HTTP exchange alone"],
  ]);
  const measured = (figures: { row: string; figure: Figure }[]): Check['measured'] => ({
    values: figures.map((each) => each.figure.ms),
    rows: figures.map((each) => each.row),
    spreads: figures.map((each) => spreadOf(each.figure.blocks)),
  });
  const result: ReadCostResult = { checks: [] };
  const readRows = cpu('read').length > 0;
  const withSdk = cpu('sdk json').length > 0;
  if (readRows) {
    const [read, floor] = [minus(of('read'), noop), minus(of('floor'), noop)];
    result.checks.push({ target: READ_TARGETS.overFloor, measured: measured([{ row: 'corpus', figure: over(read, floor) }]) });
    report.raw('');
    report.text(
      `Reads: the ${options.corpus.length} notes of the shared corpus in turn; ours ${figure(read.ms, 3)} ms and the read floor ` +
        `${figure(floor.ms, 3)} ms of workerd CPU per read, both over the no-op exchange.`,
    );
  } else {
    result.checks.push({ target: READ_TARGETS.overFloor, skipped: 'no corpus at ../shared/corpus' });
  }
  result.checks.push({ target: READ_TARGETS.fixed, measured: measured([{ row: '404', figure: minus(of('missing'), of('health')) }]) });
  // What our MCP call costs over our REST read of the same note, beyond what the SDK's call costs over a JSON GET.
  const sdk = (era: McpEra): Figure => minus(of(`sdk ${era}`), of('sdk json'));
  const mcpOver = (era: McpEra, note: 'small' | 'read'): Figure => minus(of(`${note} ${era}`), of(note));
  if (withSdk) {
    result.checks.push({
      target: READ_TARGETS.mcp,
      measured: measured(
        MCP_ERAS.flatMap((era) => [
          { row: `${era}, 10 chars`, figure: minus(mcpOver(era, 'small'), sdk(era)) },
          ...(readRows ? [{ row: `${era}, corpus`, figure: minus(mcpOver(era, 'read'), sdk(era)) }] : []),
        ]),
      ),
    });
  } else {
    result.checks.push({ target: READ_TARGETS.mcp, skipped: 'the MCP floor was not built' });
  }
  if (!readRows) {
    result.checks.push({ target: READ_TARGETS.remembered, skipped: 'no corpus at ../shared/corpus' });
    return result;
  }
  const remembered = paired(HUB_PAIR.hub, HUB_PAIR.token);
  result.checks.push({ target: READ_TARGETS.remembered, measured: measured([{ row: 'corpus', figure: remembered }]) });
  result.hub = { ...hubCalls, reads: cpu(HUB_PAIR.hub).length };
  report.text(
    `Hosted context: each corpus note read twice in one slot of the order, with the token that carries its context and ` +
      `with one that carries none, whose context our Worker takes from the Hub's stand-in and keeps 5 s: ` +
      `${figure(remembered.ms, 3)} ms of workerd CPU more for the second (median over the pairs). The stand-in was asked ` +
      `${hubCalls.calls} times in the ${figure(hubCalls.seconds, 0)} s of ${result.hub.reads} such reads; the reads that asked ` +
      'it are among the samples, which the median sets aside.',
  );
  if (withSdk) {
    result.floors = {
      read: minus(of('read'), noop).ms,
      readFloor: minus(of('floor'), noop).ms,
      mcp: MCP_ERAS.map((era) => ({ era, ours: mcpOver(era, 'read').ms, sdk: sdk(era).ms })),
    };
  }
  if (cpu('read@compare').length > 0) result.comparison = compared(options, of, paired, noop);
  return result;
}

/** Ours (the twin) beside the --compare build: each one's corpus reads, and ours minus its pass by pass. */
function compared(options: ReadCostOptions, of: (key: string) => Figure, paired: (key: string, other: string) => Figure, noop: Figure): Comparison {
  const floor = minus(of('floor'), noop);
  const reads = (worker: 'twin' | 'compare'): BuildReads => ({
    rest: spreading(minus(of(`read@${worker}`), noop)),
    overFloor: spreading(over(minus(of(`read@${worker}`), noop), floor)),
    mcp: perEra((era) => spreading(minus(of(`read ${era}@${worker}`), noop))),
  });
  const comparison: Comparison = {
    ours: reads('twin'),
    compared: reads('compare'),
    difference: {
      rest: spreading(paired('read@twin', 'read@compare')),
      mcp: perEra((era) => spreading(paired(`read ${era}@twin`, `read ${era}@compare`))),
    },
  };
  const cell = (each: Spreading, digits = 3): string => `${figure(each.ms, digits)} (${figure(each.low, digits)} to ${figure(each.high, digits)})`;
  options.report.raw('');
  options.report.text(
    `Compared with ${options.compareScript}: its corpus reads beside those of our bundle loaded again as a Worker of its own (the twin), ` +
      'which is sent the same kinds, in the same passes, with the same token.',
  );
  options.report.table(
    [{ header: 'corpus read', text: true }, { header: 'ours' }, { header: 'compared' }, { header: 'ours - compared' }],
    [
      ['REST', cell(comparison.ours.rest), cell(comparison.compared.rest), cell(comparison.difference.rest)],
      ['REST / read floor', cell(comparison.ours.overFloor, 2), cell(comparison.compared.overFloor, 2), ''],
      ...MCP_ERAS.map((era) => [`MCP ${era}`, ...[comparison.ours, comparison.compared, comparison.difference].map((each) => cell(each.mcp[era]))]),
    ],
  );
  options.report.legend([
    ['cells', "workerd CPU ms over the no-op (REST / read floor: the ratio of the two): the median, and in brackets its spread over the blocks of samples"],
    ['ours', 'the twin: our bundle as a second Worker with only the compared kinds, as the compared build has'],
    ['ours - compared', 'the median of the differences of the two reads of the same note in each pass'],
  ]);
  return comparison;
}
