// vitest globalSetup (runs in Node): one demo canister with the control API for the whole run,
// and a JWK set stand-in (test/support/node/jwks-server.ts).
// Worker tests reach it through inject('canisterUrl') / inject('canisterSecret') and the helpers
// in test/support/worker/canister.ts; each test uses its own user id, so they never share a partition.
// While the project runs, workerd's reports of the network faults its tests inject are dropped from
// stdout (test/support/node/workerd-fault-logs.ts).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startDemoCanister } from '../../../demo/canister.mjs';
import { startJwksServer } from './jwks-server';
import { dropInjectedWorkerdFaults } from './workerd-fault-logs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const secret = randomBytes(32).toString('hex');
  const canister = await startDemoCanister({
    control: true,
    gatewaySecret: secret,
    vaultDir: path.join(repoRoot, 'demo', 'vault'),
  });
  const jwks = await startJwksServer();
  project.provide('canisterUrl', canister.url);
  project.provide('canisterSecret', secret);
  project.provide('jwksUrl', jwks.url);
  project.provide('jwksPrivateJwk', JSON.stringify(jwks.privateJwk));
  const restoreStdout = dropInjectedWorkerdFaults();
  return async () => {
    restoreStdout();
    await jwks.close();
    await canister.close();
  };
}
