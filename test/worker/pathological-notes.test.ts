/**
 * A note of the wrong Markdown must not hold the isolate. For
 * every pathological shape of cmark and md4c (test/pathological_tests.py),
 * in every position (ATX heading, setext heading, paragraph, or the whole
 * note), at 100 KB: the section source is served (200, with the heading
 * count the shape makes), and a GET /health sent while that note is being
 * read answers. How long anything takes is `npm run bench`'s question, not this
 * test's.
 */
import { describe, expect, it } from 'vitest';
import { seedNotes, uniqueUser } from '../support/worker/canister';
import { REST_ROUTES, callWorker, mintToken, restGet } from '../support/worker/harness';
import { pathologicalCases, pathologicalNote } from '@knowtation/note-structure';

const SIZE = 100_000;

describe(`GET /health while a pathological ${SIZE.toLocaleString('en')}-char note is read`, () => {
  const cases = pathologicalCases();

  it('answers for every shape in every position, and the note is served', async () => {
    const user = uniqueUser('pathological');
    const notes = cases.map(({ shape, position }, index) => ({
      path: `pathological/${String(index).padStart(3, '0')}.md`,
      frontmatter: { title: `${shape.name} (${position})` },
      body: pathologicalNote(shape, position, SIZE),
    }));
    // Seeded in batches to keep each control request small.
    for (let start = 0; start < notes.length; start += 8) await seedNotes(user, 'default', notes.slice(start, start + 8));
    const token = await mintToken({ sub: user });

    for (const [index, { shape, position }] of cases.entries()) {
      const reading = restGet(REST_ROUTES.section_source, notes[index].path, { token });
      const health = callWorker('/health').then(async (response) => (await response.arrayBuffer(), response.status));
      const [note, healthStatus] = await Promise.all([reading, health]);
      expect(healthStatus, `${shape.name} (${position})`).toBe(200);
      expect(note.status, `${shape.name} (${position})`).toBe(200);
      const payload = await note.json<{ sections: unknown[] }>();
      expect(Array.isArray(payload.sections), `${shape.name} (${position})`).toBe(true);
      if (position === 'atx' || position === 'setext') expect(payload.sections.length, `${shape.name} (${position})`).toBeGreaterThanOrEqual(1);
    }
  }, 300_000);
});
