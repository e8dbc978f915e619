// Where the reference docs state a count of something the code declares (contracts, log fields,
// rate-limit bindings), the count is derived here from the code: a doc that says "ten fields" of a
// line that has thirteen fails, instead of going stale unseen.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_BINDINGS } from '../../src/config';
import { CONTRACTS } from '../../src/contracts/registry';
import { LOG_FIELDS } from '../../src/log';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = [
  'README.md',
  'demo/README.md',
  'packages/note-structure/README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen'];
const NUMBER = `(${WORDS.join('|')}|\\d+)`;

function valueOf(word: string): number {
  const index = WORDS.indexOf(word.toLowerCase());
  return index === -1 ? Number(word) : index;
}

/** What a doc may count, the phrases that count it, and the number the code declares. */
const COUNTED = [
  { what: 'contracts', phrase: '(?:body-free )?(?:payloads|contracts|contract tools|builders)', count: CONTRACTS.length },
  { what: 'log fields', phrase: '(?:log(?:-line)? )?(?:fields|keys)(?= of `LOG_FIELDS`| in the log| per line|,? in this order)|log fields', count: LOG_FIELDS.length },
  { what: 'rate-limit bindings', phrase: '(?:rate-limit |Rate Limiting )bindings?', count: RATE_LIMIT_BINDINGS.length },
];

interface Claim {
  file: string;
  text: string;
  stated: number;
}

function claims(phrase: string): Claim[] {
  // "the other three contracts" counts all but one.
  const pattern = new RegExp(`\\b(other |all )?${NUMBER} (?:${phrase})`, 'gi');
  return DOCS.flatMap((file) =>
    [...readFileSync(path.join(root, file), 'utf8').matchAll(pattern)].map((match) => ({
      file,
      text: match[0],
      stated: valueOf(match[2]) + (match[1]?.toLowerCase() === 'other ' ? 1 : 0),
    })),
  );
}

describe('counts stated in the docs are the code\'s', () => {
  it.each(COUNTED)('$what: every stated count is $count', ({ phrase, count }) => {
    for (const claim of claims(phrase)) expect(claim.stated, `${claim.file}: "${claim.text}"`).toBe(count);
  });

  it('the check reads the docs it is meant to (the contract count is stated somewhere)', () => {
    expect(claims(COUNTED[0].phrase).length).toBeGreaterThan(3);
  });
});
