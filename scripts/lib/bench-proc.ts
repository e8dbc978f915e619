/**
 * Fine-grained CPU time of processes for the bench (scripts/bench.ts only): the scheduler's own
 * accounting, /proc/<pid>/task/<tid>/schedstat (nanoseconds on the CPU, nanoseconds waiting on a
 * run queue), summed over every thread. /proc/<pid>/stat counts 10 ms ticks, too coarse for one
 * request; this resolves one. Where /proc or schedstat is absent it reads null.
 */
import { readdir, readFile } from 'node:fs/promises';

export interface SchedTime {
  /** ms on a CPU, all threads. */
  runMs: number;
  /** ms runnable but waiting for a CPU (other work on the machine), all threads. */
  waitMs: number;
}

/** The summed schedstat of every thread of `pids`, or null when none could be read. */
export async function schedTime(pids: number[]): Promise<SchedTime | null> {
  let runNs = 0;
  let waitNs = 0;
  let read = 0;
  for (const pid of pids) {
    let tasks: string[];
    try {
      tasks = await readdir(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const [run, wait] = (await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8')).trim().split(/\s+/).map(Number);
        if (!Number.isFinite(run) || !Number.isFinite(wait)) continue;
        runNs += run as number;
        waitNs += wait as number;
        read += 1;
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return read === 0 ? null : { runMs: runNs / 1e6, waitMs: waitNs / 1e6 };
}
