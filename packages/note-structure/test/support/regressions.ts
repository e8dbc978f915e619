/**
 * Reads test/regressions.md: every example (between a line of 32 backticks and
 * ` example`, and a line of 32 backticks) as the note it stands for, named by the heading above
 * it. The file's escapes: `→` is a tab, `⟨U+XXXX⟩` that code unit, `⟨EOF⟩` at the end of the last
 * line no final line ending. A line that ends in a literal space or tab is refused (an editor
 * may have stripped or kept it: such a char is written as its escape).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REGRESSIONS_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../regressions.md');

const FENCE = '`'.repeat(32);
const OPENING = `${FENCE} example`;
const END_OF_NOTE = '⟨EOF⟩';

export interface Regression {
  /** The heading above the example, numbered when it holds more than one. */
  title: string;
  /** The example's first line in the file (1-based). */
  line: number;
  markdown: string;
}

/** One example line with its escapes decoded. */
function decodeLine(raw: string, line: number): string {
  if (/[ \t]$/.test(raw)) throw new Error(`regressions.md:${line}: a line ends in a literal space or tab; write it as ⟨U+0020⟩ or →`);
  return raw.replaceAll('→', '\t').replace(/⟨U\+([0-9A-F]{4})⟩/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

export function readRegressions(file = REGRESSIONS_FILE): Regression[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const regressions: Regression[] = [];
  let heading = '';
  let underHeading = 0;
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] as string;
    if (text.startsWith('## ')) {
      heading = text.slice(3).trim();
      underHeading = 0;
      continue;
    }
    if (text !== OPENING) continue;
    const first = index + 1;
    const body: string[] = [];
    for (index++; index < lines.length && lines[index] !== FENCE; index++) body.push(lines[index] as string);
    if (index === lines.length) throw new Error(`regressions.md:${first}: the example is not closed`);
    if (heading === '') throw new Error(`regressions.md:${first}: an example before any heading`);
    let markdown = body.map((raw, offset) => decodeLine(raw, first + 1 + offset)).join('\n') + '\n';
    if (markdown.endsWith(`${END_OF_NOTE}\n`)) markdown = markdown.slice(0, -END_OF_NOTE.length - 1);
    if (markdown.includes(END_OF_NOTE)) throw new Error(`regressions.md:${first}: ${END_OF_NOTE} only ends the last line`);
    if (markdown.includes('⟨U+')) throw new Error(`regressions.md:${first}: an escape is not ⟨U+XXXX⟩ with four upper-case hex digits`);
    underHeading++;
    regressions.push({ title: underHeading === 1 ? heading : `${heading} (${underHeading})`, line: first, markdown });
  }
  return regressions;
}
