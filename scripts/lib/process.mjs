// @ts-check
/**
 * Process helpers shared by the scripts: a child in its own process group (started, signalled and
 * stopped as a unit, so no workerd is left behind), and the workerd processes of a local Worker read
 * from /proc (which ones, their CPU time, their resident memory). Where /proc is absent the
 * workerd helpers find nothing.
 */
import { spawn } from 'node:child_process';
import { readFile, readdir, readlink } from 'node:fs/promises';

/** Linux /proc counts CPU time in clock ticks of 10 ms. */
const MS_PER_TICK = 10;
/** How far up the parent chain a workerd process is traced. */
const MAX_ANCESTRY = 16;

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- process groups

/**
 * True while any process of the group led by pid exists.
 * @param {number} pid
 */
export function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {number} pid
 * @param {NodeJS.Signals} signal
 */
export function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * @typedef {object} ProcessGroup
 * @property {number | undefined} pid the leader, undefined when it could not be spawned
 * @property {Promise<number | null>} exited the leader's exit code, null when a signal ended it
 * @property {boolean} done true once the leader has exited
 */

/**
 * Spawns a command as the leader of its own process group (detached), so that it and its children
 * can be signalled as a unit; a terminal Ctrl-C then reaches only this process.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions} options
 * @param {(error: Error) => void} onSpawnError called when the command cannot run (exited then resolves 1)
 * @returns {ProcessGroup}
 */
export function spawnGroup(command, args, options, onSpawnError) {
  const child = spawn(command, args, { ...options, detached: true });
  /** @type {ProcessGroup} */
  const group = {
    pid: child.pid,
    exited: new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve(signal ? null : code));
      child.once('error', (error) => {
        onSpawnError(error);
        resolve(1);
      });
    }),
    done: false,
  };
  void group.exited.then(() => {
    group.done = true;
  });
  return group;
}

/**
 * Stops a process group: SIGINT to the leader and up to graceMs for it to exit, then SIGTERM to
 * whatever is left of the group, up to 3 s more, then SIGKILL.
 * @param {ProcessGroup} group
 * @param {number} graceMs
 */
export async function stopGroup(group, graceMs) {
  const { pid } = group;
  if (pid === undefined) return;
  if (!group.done) {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // Already exited.
    }
    await Promise.race([group.exited, sleep(graceMs)]);
  }
  if (!groupAlive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  for (let waited = 0; waited < 3000 && groupAlive(pid); waited += 100) await sleep(100);
  signalGroup(pid, 'SIGKILL');
}

// ---------------------------------------------------------------- workerd processes in /proc

/**
 * Name, parent and CPU ticks (user + system) of a process, or null when it is gone.
 * @param {number} pid
 * @returns {Promise<{ comm: string, ppid: number, cpuTicks: number } | null>}
 */
export async function procStat(pid) {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return { comm: text.slice(text.indexOf('(') + 1, close), ppid: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** Every process id in /proc, ascending; empty where /proc is absent. */
async function allPids() {
  try {
    return (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number).sort((a, b) => a - b);
  } catch {
    return [];
  }
}

/**
 * True when a process up the parent chain of pid (not pid itself) satisfies isAncestor.
 * @param {number} pid
 * @param {(pid: number) => boolean | Promise<boolean>} isAncestor
 */
async function descendsFrom(pid, isAncestor) {
  let current = (await procStat(pid))?.ppid;
  for (let depth = 0; current !== undefined && current > 0 && depth < MAX_ANCESTRY; depth += 1) {
    if (await isAncestor(current)) return true;
    current = (await procStat(current))?.ppid;
  }
  return false;
}

/**
 * The workerd processes that descend from a process satisfying isAncestor, ascending.
 * @param {(pid: number) => boolean | Promise<boolean>} isAncestor
 * @returns {Promise<number[]>}
 */
export async function workerdPids(isAncestor) {
  const pids = (await allPids()).filter((pid) => pid !== process.pid);
  const stats = await Promise.all(pids.map(procStat));
  const workerd = pids.filter((_pid, index) => stats[index]?.comm.includes('workerd'));
  const keep = await Promise.all(workerd.map((pid) => descendsFrom(pid, isAncestor)));
  return workerd.filter((_pid, index) => keep[index]);
}

/**
 * The process listening on a local TCP port (IPv4 or IPv6), found as the owner of the listening
 * socket of /proc/net/tcp{,6} among the socket links of /proc/<pid>/fd; null when none is visible
 * (no /proc, nothing listening, or a process of another user).
 * @param {number} port
 * @returns {Promise<number | null>}
 */
export async function listeningPid(port) {
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT, state 0A is LISTEN, field 9 is the socket's inode.
      if (fields.length > 9 && fields[3] === '0A' && parseInt(fields[1].split(':')[1] ?? '', 16) === port) inodes.add(`socket:[${fields[9]}]`);
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of await allPids()) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      if (inodes.has(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''))) return pid;
    }
  }
  return null;
}

/**
 * The nearest process up the parent chain from pid, pid itself first, that satisfies test; null
 * when none does.
 * @param {number} pid
 * @param {(pid: number) => boolean | Promise<boolean>} test
 * @returns {Promise<number | null>}
 */
export async function nearestAncestor(pid, test) {
  let current = pid;
  for (let depth = 0; current > 0 && depth <= MAX_ANCESTRY; depth += 1) {
    if (await test(current)) return current;
    const parent = (await procStat(current))?.ppid;
    if (parent === undefined) return null;
    current = parent;
  }
  return null;
}

/**
 * The `wrangler dev` serving a local port: the one above the workerd that listens on it. Its
 * workerd descendants are that Worker's, and no other stack's (another npm start, a test run).
 * @param {number} port
 * @returns {Promise<number | null>}
 */
export async function wranglerDevServing(port) {
  const listener = await listeningPid(port);
  return listener === null ? null : nearestAncestor(listener, isWranglerDev);
}

/**
 * True when pid runs `wrangler dev` (the workerd of `npm start` descends from it, not one of a
 * concurrent vitest run).
 * @param {number} pid
 */
export async function isWranglerDev(pid) {
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return cmdline.some((arg) => /wrangler/.test(arg)) && cmdline.includes('dev');
  } catch {
    return false;
  }
}

/**
 * CPU ms (user + system) used so far by the given processes.
 * @param {number[]} pids
 */
export async function cpuMs(pids) {
  const stats = await Promise.all(pids.map(procStat));
  return stats.reduce((ticks, stat) => ticks + (stat?.cpuTicks ?? 0), 0) * MS_PER_TICK;
}

/**
 * VmRSS of a process in KiB, or null when it is gone or has no status (e.g. a zombie).
 * @param {number} pid
 * @returns {Promise<number | null>}
 */
export async function rssKiB(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
