/**
 * A realistic Markdown note of exactly `chars` chars from a seed (a heading every ~2,000 chars,
 * paragraphs with emphasis, code and links, nested lists, quotes with lazy lines, fenced code
 * holding fake headings, pipe tables as plain text): the same note for the same seed, for
 * measuring the engine (bench/) and, through the entry point, the Worker on ordinary notes.
 * Linear bound: O(chars).
 */

/** mulberry32: a small deterministic PRNG, so every run benches the same notes. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'note vault edge worker canister outline section heading tree facet project tag review plan ' +
  'meeting agenda decision follow up draft summary context memory index query token schema ' +
  'payload contract source parity latency cache build deploy release migration storage sync ' +
  'agent prompt model embedding search result episode chain entity author date update status'
).split(' ');

/**
 * Realistic Markdown of exactly `chars` chars: a heading (h1-h4, some with
 * inline markup) every ~2,000 chars, paragraphs with emphasis, code and
 * links, nested lists, block quotes with lazy lines, fenced code holding
 * fake headings, pipe tables as plain text, the odd thematic break.
 */
export function syntheticNote(chars: number, seed: number): string {
  const random = prng(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const word = (): string => pick(WORDS);
  const phrase = (count: number): string => Array.from({ length: count }, word).join(' ');
  const sentence = (): string => {
    const parts = [phrase(int(3, 9))];
    const roll = random();
    if (roll < 0.15) parts.push(`*${phrase(int(1, 3))}*`);
    else if (roll < 0.25) parts.push(`**${phrase(int(1, 2))}**`);
    else if (roll < 0.4) parts.push(`\`${word()}.${word()}()\``);
    else if (roll < 0.5) parts.push(`[${phrase(int(1, 3))}](https://example.com/${word()}/${int(1, 999)})`);
    parts.push(phrase(int(2, 8)));
    const text = parts.join(' ');
    return text[0].toUpperCase() + text.slice(1) + '.';
  };
  const paragraph = (): string => Array.from({ length: int(2, 5) }, sentence).join(' ');
  const blocks: (() => string)[] = [
    paragraph,
    paragraph,
    paragraph,
    () =>
      Array.from({ length: int(3, 6) }, () =>
        random() < 0.2 ? `- ${sentence()}\n  - ${phrase(int(2, 6))}` : `- ${sentence()}`,
      ).join('\n'),
    () => Array.from({ length: int(2, 5) }, (_, index) => `${index + 1}. ${sentence()}`).join('\n'),
    () => `> ${sentence()}\n> ${sentence()}\n${phrase(int(3, 7))}.`,
    () =>
      '```' + pick(['ts', 'md', 'sh', '']) + '\n' +
      `# not a heading ${word()}\nconst ${word()} = ${int(1, 99)};\n## also not ${word()}\n` + '```',
    () =>
      `| ${word()} | ${word()} | ${word()} |\n| --- | --- | --- |\n` +
      Array.from({ length: int(2, 4) }, () => `| ${word()} | ${int(1, 99)} | ${phrase(2)} |`).join('\n'),
    () => (random() < 0.5 ? '---' : paragraph()),
  ];
  const out: string[] = [];
  let length = 0;
  let sinceHeading = Number.POSITIVE_INFINITY;
  while (length < chars) {
    let block: string;
    if (sinceHeading >= 1900 + int(0, 200)) {
      const level = pick([1, 2, 2, 3, 3, 3, 4, 4]);
      const roll = random();
      const title = roll < 0.1 ? `${phrase(2)} *${word()}*` : roll < 0.2 ? `${phrase(2)} \`${word()}\`` : phrase(int(2, 5));
      block = `${'#'.repeat(level)} ${title[0].toUpperCase()}${title.slice(1)}`;
      sinceHeading = 0;
    } else {
      block = pick(blocks)();
    }
    out.push(block);
    length += block.length + 2;
    sinceHeading += block.length + 2;
  }
  return out.join('\n\n').slice(0, chars);
}
