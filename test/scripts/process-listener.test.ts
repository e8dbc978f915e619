/**
 * How `npm run load` finds the workerd it measures (scripts/lib/process.mjs): the process that
 * listens on the target port, and the `wrangler dev` above it, whose workerd descendants are that
 * Worker's. Two stand-in stacks run side by side, each a process whose command line reads as
 * `wrangler ... dev` with a child named `workerd` listening on a port of its own: only the one
 * serving the asked port is counted, as with two `npm start` on one machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningPid, nearestAncestor, workerdPids, wranglerDevServing } from '../../scripts/lib/process.mjs';
import { freePort } from '../support/node/local-worker';

const onLinux = process.platform === 'linux';
const dir = mkdtempSync(path.join(tmpdir(), 'kt-process-'));
/** `workerd`: the Node binary under that name, so its process name (comm) is workerd. */
const workerdBin = path.join(dir, 'workerd');
/** A stand-in `wrangler dev`: starts a workerd that listens on the port it is given, and prints the workerd's pid. */
const fakeWrangler = path.join(dir, 'fake-wrangler.mjs');

interface Stack {
  wrangler: ChildProcess;
  workerd: number;
  port: number;
}

async function startStack(): Promise<Stack> {
  const port = await freePort();
  const wrangler = spawn(process.execPath, [fakeWrangler, 'dev', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const workerd = await new Promise<number>((resolve, reject) => {
    let output = '';
    wrangler.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /^listening (\d+)$/m.exec(output);
      if (match) resolve(Number(match[1]));
    });
    wrangler.once('exit', () => reject(new Error(`stand-in wrangler exited: ${output}`)));
  });
  return { wrangler, workerd, port };
}

describe.skipIf(!onLinux)('the workerd of the wrangler dev serving a port', () => {
  const stacks: Stack[] = [];

  beforeAll(async () => {
    symlinkSync(process.execPath, workerdBin);
    writeFileSync(
      fakeWrangler,
      [
        "import { spawn } from 'node:child_process';",
        `const child = spawn(${JSON.stringify(workerdBin)}, ['-e', "require('node:http').createServer((q, s) => s.end()).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('listening ' + process.pid))", process.argv[3]], { stdio: ['ignore', 'inherit', 'inherit'] });`,
        "process.on('SIGTERM', () => { child.kill(); process.exit(0); });",
      ].join('\n'),
    );
    stacks.push(await startStack(), await startStack());
  });

  afterAll(() => {
    for (const stack of stacks) stack.wrangler.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the process listening on each port', async () => {
    for (const stack of stacks) expect(await listeningPid(stack.port)).toBe(stack.workerd);
    expect(await listeningPid(await freePort())).toBeNull();
  });

  it('finds the stand-in wrangler dev above each listener, and only its workerd below it', async () => {
    for (const stack of stacks) {
      const wrangler = await wranglerDevServing(stack.port);
      expect(wrangler).toBe(stack.wrangler.pid);
      expect(await workerdPids((pid) => pid === wrangler)).toEqual([stack.workerd]);
    }
    // What counting every wrangler dev's workerd (the old rule) would have summed: both stacks.
    const bothStacks = await workerdPids((pid) => stacks.some((stack) => stack.wrangler.pid === pid));
    expect(bothStacks.sort()).toEqual(stacks.map((stack) => stack.workerd).sort());
  });

  it('nearestAncestor starts at the process itself and gives null when no ancestor matches', async () => {
    const [stack] = stacks;
    expect(await nearestAncestor(stack!.workerd, (pid) => pid === stack!.workerd)).toBe(stack!.workerd);
    expect(await nearestAncestor(stack!.workerd, (pid) => pid === process.pid)).toBe(process.pid);
    expect(await nearestAncestor(stack!.workerd, () => false)).toBeNull();
  });
});
