import { createServer } from 'node:http';
import type { TestProject } from 'vitest/node';
export default async function setup(project: TestProject) {
  const server = createServer((req, res) => { res.setHeader('content-type','application/json'); res.end(JSON.stringify({url:req.url})); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address() as any;
  project.provide('canisterUrl', `http://127.0.0.1:${addr.port}`);
  return () => new Promise<void>((r) => server.close(() => r()));
}
