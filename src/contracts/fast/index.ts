/**
 * Fast Markdown analysis for the contracts: pure TypeScript, no I/O and no
 * Node APIs (it runs in workerd). analyzeFast returns exactly what
 * analyzeWithMdast returns; notes the scanner cannot prove are analyzed by
 * analyzeWithMdast itself.
 */
export { analyzeFast, analyzeFastTraced, type AnalysisPath, type TracedAnalysis } from './analyze';
export { Decline, scanNote, type ScanResult } from './scanner';
export { runContractsWith, type Analyzer, type ContractPayloads } from './contracts';
