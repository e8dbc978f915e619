/**
 * One differential check: the linear analysis (the request path) against
 * the micromark oracle, on the NoteStructure and on the four payloads
 * built from it. Errors count as results (the ContractError kind), so a
 * refusal on one side and an answer on the other is a mismatch.
 */
import { analyzeNote } from '../../../src/contracts/analysis';
import { buildAllContracts, structureAnalyzer } from '../../../src/contracts/registry';
import type { NoteStructure } from '../../../src/contracts/analysis/structure';

type Analyzer = (body: string) => NoteStructure;
import { analyzeWithMdast } from '../../../scripts/lib/markdown/oracle';

const PATH = 'notes/differential.md';
const FRONTMATTER = { title: 'Differential' };

function outcome(run: () => unknown): string {
  try {
    return JSON.stringify(run());
  } catch (error) {
    return `error: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`;
  }
}

/** The structure, then the payloads built from that same analysis (the builders analyze the same body three times). */
function results(analyze: Analyzer, body: string): string[] {
  let structure: ReturnType<Analyzer> | undefined;
  const once: Analyzer = (text) => (structure ??= analyze(text));
  const payloads = () => buildAllContracts(PATH, FRONTMATTER, body, { analyze: structureAnalyzer(once), maxBytes: Number.POSITIVE_INFINITY });
  return [outcome(() => once(body)), outcome(payloads)];
}

/** null when both sides agree; otherwise a short description of the first difference (no body text). */
export function differential(body: string): string | null {
  const ours = results(analyzeNote, body);
  const oracle = results(analyzeWithMdast, body);
  const names = ['NoteStructure', 'payloads'];
  for (let index = 0; index < ours.length; index++) {
    if (ours[index] !== oracle[index]) return `${names[index]} differs:\n  linear: ${ours[index].slice(0, 400)}\n  oracle: ${oracle[index].slice(0, 400)}`;
  }
  return null;
}
