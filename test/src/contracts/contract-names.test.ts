/**
 * A contract is named in src only in the registry, in its own module
 * (src/contracts/<kebab name>.ts) and in its output schema (schemas.ts), so
 * adding, renaming or removing one touches those files and no other source.
 * Every spelling of the name counts: snake (`section_source`, the tool, the
 * `knowtation.*` id), kebab (the route, the module path), upper snake
 * (constants) and camel or Pascal case (`SectionSource`, `sectionSourceBytes`).
 * The contracts are read from the registry itself, so a new one is covered
 * without editing this file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../../src/contracts/registry';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Every file under src, as a repository-relative POSIX path. */
function sourceFiles(directory = 'src'): string[] {
  return readdirSync(path.join(repoRoot, directory), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${directory}/${entry.name}`;
    return entry.isDirectory() ? sourceFiles(relative) : [relative];
  });
}

const SOURCES = new Map(sourceFiles().map((file) => [file, readFileSync(path.join(repoRoot, file), 'utf8')]));

/** Any spelling of a snake_case name: its words joined by '_', '-' or nothing, in any case. */
const spellingsOf = (name: string): RegExp => new RegExp(name.split('_').join('[-_]?'), 'gi');

const moduleOf = (name: string): string => `src/contracts/${name.replace(/_/g, '-')}.ts`;
const allowedFor = (name: string): string[] => ['src/contracts/registry.ts', 'src/contracts/schemas.ts', moduleOf(name)];

const occurrences = (text: string, name: string): number => text.match(spellingsOf(name))?.length ?? 0;

describe('where a contract is named in src', () => {
  it('reads every source file, and the registry lists contracts', () => {
    expect(SOURCES.size).toBeGreaterThan(20);
    expect(SOURCES.has('src/contracts/registry.ts')).toBe(true);
    expect(CONTRACTS.length).toBeGreaterThan(0);
  });

  it('recognises every spelling of a name, and nothing that merely shares a word', () => {
    const named = ['section_source', 'knowtation.section_source/v0', 'get_section_source', '/api/v1/section-source', "'./section-source'", 'SECTION_SOURCE_SCHEMA', 'SectionSource', 'sectionSourceBytes'];
    for (const text of named) expect(occurrences(text, 'section_source'), text).toBe(1);
    const unnamed = ['section source', 'sections', 'sourceSection', 'normalizeOutlinePath', 'section.source', 'sectionsSource'];
    for (const text of unnamed) expect(occurrences(text, 'section_source'), text).toBe(0);
  });

  for (const contract of CONTRACTS) {
    describe(contract.name, () => {
      it('its registry entry spells every public form of the name', () => {
        for (const form of [contract.name, contract.schema, contract.tool, contract.route]) {
          expect(occurrences(form, contract.name), form).toBeGreaterThan(0);
        }
      });

      it('is named in the registry, its module and schemas.ts, each of which exists and names it', () => {
        for (const file of allowedFor(contract.name)) {
          expect(SOURCES.has(file), file).toBe(true);
          expect(occurrences(SOURCES.get(file) as string, contract.name), file).toBeGreaterThan(0);
        }
        const registry = SOURCES.get('src/contracts/registry.ts') as string;
        expect(registry).toContain(`from './${contract.name.replace(/_/g, '-')}'`);
      });

      it('is named in no other source file', () => {
        const allowed = allowedFor(contract.name);
        const elsewhere = [...SOURCES]
          .filter(([file]) => !allowed.includes(file))
          .filter(([, text]) => occurrences(text, contract.name) > 0)
          .map(([file]) => file);
        expect(elsewhere).toEqual([]);
      });
    });
  }
});
