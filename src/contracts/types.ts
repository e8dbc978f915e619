/**
 * What every contract shares: the decoded frontmatter it reads and the
 * fields every payload has. Each payload's own shape is declared in its
 * contract's module, with properties in the serialized key order the
 * reference emits (the builders construct object literals in that order).
 */
export type Frontmatter = Record<string, unknown>;

/** The fields every payload has: its schema id, the note's path and whether a cap was hit. */
export interface PayloadBase {
  schema: string;
  path: string;
  truncated: boolean;
}
