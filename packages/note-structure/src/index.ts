/**
 * The Markdown analysis behind the contracts that read the body: a linear
 * block scan (block-scan.ts, content.ts, definitions.ts, html-flow.ts,
 * leaf-lines.ts), the inline pass behind inline-engine.ts, and heading-text
 * normalization. No I/O and no Node APIs: it runs in workerd. README.md
 * gives the phases, the construct map (each construct's files and
 * functions), the invariants and how to fix a divergence.
 */
export { analyzeNote, analyzeNoteColumns } from './analyze';
export { scanBlocks, type ScanResult } from './block-scan';
export * from './structure';
