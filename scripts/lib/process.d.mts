// Types for scripts/lib/process.mjs (kept in step with its JSDoc), for TypeScript callers (bench.ts).
import type { SpawnOptions } from 'node:child_process';

export interface ProcessGroup {
  /** The leader, undefined when it could not be spawned. */
  pid: number | undefined;
  /** The leader's exit code; null when a signal ended it. */
  exited: Promise<number | null>;
  /** True once the leader has exited. */
  done: boolean;
}

export function sleep(ms: number): Promise<void>;
export function groupAlive(pid: number): boolean;
export function signalGroup(pid: number, signal: NodeJS.Signals): void;
export function spawnGroup(command: string, args: string[], options: SpawnOptions, onSpawnError: (error: Error) => void): ProcessGroup;
export function stopGroup(group: ProcessGroup, graceMs: number): Promise<void>;
export function procStat(pid: number): Promise<{ comm: string; ppid: number; cpuTicks: number } | null>;
export function workerdPids(isAncestor: (pid: number) => boolean | Promise<boolean>): Promise<number[]>;
export function isWranglerDev(pid: number): Promise<boolean>;
export function listeningPid(port: number): Promise<number | null>;
export function nearestAncestor(pid: number, test: (pid: number) => boolean | Promise<boolean>): Promise<number | null>;
export function wranglerDevServing(port: number): Promise<number | null>;
export function cpuMs(pids: number[]): Promise<number>;
export function rssKiB(pid: number): Promise<number | null>;
