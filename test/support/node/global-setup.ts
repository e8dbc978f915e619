// vitest globalSetup (runs in Node): one demo canister with the control API for the whole run,
// a JWK set stand-in (test/support/node/jwks-server.ts), and the Hub's hosted-context endpoint
// stand-in (demo/hub-context.mjs) verifying the harness's session secret.
// Worker tests reach it through inject('canisterUrl') / inject('canisterSecret') and the helpers
// in test/support/worker/canister.ts; each test uses its own user id, so they never share a partition.
// While the project runs, workerd's reports of the network faults its tests inject are dropped from
// stdout (test/support/node/workerd-fault-logs.ts).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startDemoCanister } from '../../../demo/canister.mjs';
import { startHubContext } from '../../../demo/hub-context.mjs';
import { TEST_SESSION_SECRET } from '../test-secrets';
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
  const hubControlSecret = randomBytes(16).toString('hex');
  const hub = await startHubContext({ secret: TEST_SESSION_SECRET, control: true, controlSecret: hubControlSecret });
  project.provide('canisterUrl', canister.url);
  project.provide('canisterSecret', secret);
  project.provide('jwksUrl', jwks.url);
  project.provide('jwksPrivateJwk', JSON.stringify(jwks.privateJwk));
  project.provide('hubUrl', hub.url);
  project.provide('hubControlSecret', hubControlSecret);
  const restoreStdout = dropInjectedWorkerdFaults();
  return async () => {
    restoreStdout();
    await hub.close();
    await jwks.close();
    await canister.close();
  };
}
