/**
 * The per-phase CPU of one warm REST read (scripts/bench.ts, fixed-cost section): a bench-only
 * build of scripts/lib/bench-phases-worker.ts runs each phase of the read on its own, once per
 * note of the read rows, in one request; workerd's CPU around that request (schedstat, every
 * thread), minus that of the same loop with no phase in it, over the notes, is the phase's CPU per
 * read. The production Worker is not touched: it carries no timing code, on or off.
 *
 * Each phase runs on the inputs of the read it stands for (the note's request, the canister's
 * answer, its analysis, its payload) but in a loop of its own, so its code and data stay in the
 * caches, as they do not between the requests of a real read. The Worker's whole handler is timed
 * the same way beside them: the phases' sum against it says what the phases leave out (routing),
 * and it against the real read what one request costs beyond its handler in the loop.
 */
import path from 'node:path';
import { figure, type Report } from './bench-report';
import { buildWorkerBundle, type WorkerSetup } from './bench-worker';
import { schedTime } from './bench-proc';

/** The phases in the order a read runs them, with what each covers (bench-phases-worker.ts PHASES). */
export const PHASE_ROWS: { phase: string; covers: string }[] = [
  { phase: 'entry', covers: 'request id, clock, config, headers (index.ts)' },
  { phase: 'authenticate', covers: 'bearer token, HS256 verify, claims (auth/jwt.ts)' },
  { phase: 'checks', covers: 'vault, budget, ACL, path, scope (gate.ts, read-note.ts)' },
  { phase: 'canister', covers: 'GET, bounded read, JSON parse (vault/canister.ts)' },
  { phase: 'analysis', covers: 'the linear Markdown analysis (@knowtation/note-structure)' },
  { phase: 'build', covers: 'payload sizing and build (contracts/registry.ts)' },
  { phase: 'serialize', covers: 'JSON.stringify and the body (http/responses.ts)' },
  { phase: 'log', covers: 'the one log line (log.ts)' },
];

const ENTRY = 'scripts/lib/bench-phases-worker.ts';

/** Builds the phase Worker into outDir; its Miniflare setup, reading `notePaths` from the bench canister. */
export function phaseWorkerSetup(repoRoot: string, outDir: string, notePaths: string[]): WorkerSetup {
  buildWorkerBundle(repoRoot, outDir, [ENTRY]);
  return {
    name: 'phases',
    direct: true,
    scriptPath: path.join(outDir, `${path.basename(ENTRY, '.ts')}.js`),
    bindings: { BENCH_NOTE_PATHS: JSON.stringify(notePaths) },
  };
}

export interface PhaseResult {
  /** workerd CPU ms per read, by phase, in PHASE_ROWS order. */
  phases: { phase: string; ms: number }[];
  /** Their sum. */
  sum: number;
  /** The Worker's whole fetch handler on the same reads, in the same kind of loop: over REST, over MCP. */
  handler: number;
  mcpHandler: number;
  /** The whole handler on GET /health, and the floor Worker's canister GET, in the same loop. */
  healthHandler: number;
  floorCanister: number;
  /** The REST route's handler alone on the same reads. */
  restRoute: number;
}

/** Measures every phase over `rounds` rounds (each round starting at the next phase); null without schedstat. */
export async function measurePhases(base: URL, authorization: string, workerd: number[], rounds: number, notes: number): Promise<PhaseResult | null> {
  const get = async (target: string): Promise<void> => {
    const response = await fetch(new URL(target, base), { headers: { authorization } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`phase Worker ${target}: ${response.status} ${text.slice(0, 160)}`);
  };
  await get('/prepare');
  const names = ['none', ...PHASE_ROWS.map((row) => row.phase), 'handler', 'mcpHandler', 'restRoute', 'healthHandler', 'floorCanister'];
  // One unmeasured pass of each, so every phase's code is compiled before it is timed.
  for (const name of names) await get(`/phase/${name}`);
  const totals = new Map(names.map((name) => [name, 0]));
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < names.length; step++) {
      const name = names[(round + step) % names.length] as string;
      const before = await schedTime(workerd);
      await get(`/phase/${name}`);
      const after = await schedTime(workerd);
      if (!before || !after) return null;
      totals.set(name, (totals.get(name) as number) + after.runMs - before.runMs);
    }
  }
  const perRead = (name: string): number => ((totals.get(name) as number) - (totals.get('none') as number)) / (rounds * notes);
  const phases = PHASE_ROWS.map((row) => ({ phase: row.phase, ms: perRead(row.phase) }));
  return {
    phases,
    sum: phases.reduce((sum, each) => sum + each.ms, 0),
    handler: perRead('handler'),
    mcpHandler: perRead('mcpHandler'),
    healthHandler: perRead('healthHandler'),
    floorCanister: perRead('floorCanister'),
    restRoute: perRead('restRoute'),
  };
}

/** The breakdown's table, each phase beside the whole read it is part of (our read net of a no-op exchange). */
export function reportPhases(report: Report, result: PhaseResult, wholeRead: number, rounds: number, notes: number): void {
  report.raw('');
  report.text(`Where one warm REST read's CPU goes (the read rows' notes; ${rounds} rounds of one pass over the ${notes} notes per phase; files under src/):`);
  report.raw('');
  const share = (ms: number): string => `${((100 * ms) / wholeRead).toFixed(0)}%`;
  report.table(
    [{ header: 'phase', text: true }, { header: 'ms/read' }, { header: 'share' }, { header: 'covers', text: true }],
    [
      ...result.phases.map((each, index) => [each.phase, figure(each.ms, 3), share(each.ms), (PHASE_ROWS[index] as (typeof PHASE_ROWS)[number]).covers]),
      ['sum of the phases', figure(result.sum, 3), share(result.sum), ''],
      ['whole handler, same loop', figure(result.handler, 3), share(result.handler), "index.ts's fetch on the same requests"],
      ['MCP handler, same loop', figure(result.mcpHandler, 3), share(result.mcpHandler), 'the same reads as tools/call (2025-11-25)'],
      ['REST route alone', figure(result.restRoute, 3), share(result.restRoute), "http/rest.ts's handler: no router, log or headers"],
      ['GET /health handler', figure(result.healthHandler, 3), share(result.healthHandler), 'entry, routing, log, headers around a no-op route'],
      ["the floor's canister GET", figure(result.floorCanister, 3), share(result.floorCanister), 'fetch and json(), as bench-floor-worker.js reads'],
      ['our read (read - no-op)', figure(wholeRead, 3), '100%', 'the REST read row above, a request each'],
    ],
  );
  report.legend([
    [
      'how',
      'a bench-only build (scripts/lib/bench-phases-worker.ts) runs one phase once per note in one request; ' +
        'ms/read = (workerd CPU of that request - CPU of the same loop without the phase) / notes, summed over ' +
        'the rounds (schedstat). The production Worker carries no timing code.',
    ],
  ]);
}
