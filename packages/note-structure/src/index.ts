/**
 * The package's one entry point. The analysis: body in, the note's structure
 * out (analyzeNote, or analyzeNoteColumns for columns), in time linear in the
 * body, exactly as micromark and mdast-util-from-markdown give it; a body over
 * MAX_NOTE_INPUT_CHARS is refused with NoteTooLargeError. No I/O and no Node
 * API: it runs in Node and in workerd. Also here, for callers that measure or
 * bound their own service on the engine's inputs: the pathological notes the
 * engine is tested and measured on, and a realistic synthetic note. README.md gives the phases, the construct map, the
 * invariants and how to fix a divergence.
 */
export { analyzeNote, analyzeNoteColumns } from './analyze';
export {
  MAX_NOTE_INPUT_CHARS,
  NoteTooLargeError,
  columnsOf,
  structureOf,
  type BlockInfo,
  type HeadingInfo,
  type NoteStructure,
  type StructureColumns,
} from './structure';
export {
  PATHOLOGICAL_SHAPES,
  pathologicalCases,
  pathologicalNote,
  type PathologicalPosition,
  type PathologicalShape,
} from './pathological';
export { syntheticNote } from './synthetic-note';
export { fittedGrowth } from './growth-fit';
