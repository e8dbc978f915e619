// The version the Worker reports is package.json's: src/version.ts is generated from it
// (scripts/write-version.mjs, run by `npm version`), since nothing in src imports outside src.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION_MODULE, packageVersion, versionModule } from '../../scripts/write-version.mjs';
import { SERVER_VERSION } from '../../src/http/server-identity';
import packageJson from '../../package.json';

describe('the reported version', () => {
  it('src/version.ts is exactly what the generator writes for package.json', () => {
    expect(packageVersion()).toBe(packageJson.version);
    expect(readFileSync(VERSION_MODULE, 'utf8')).toBe(versionModule(packageJson.version));
  });

  it('serverInfo, the cards and server.json report it', () => {
    expect(SERVER_VERSION).toBe(packageJson.version);
  });

  it('the generator writes the version it is given, so a bump changes the module', () => {
    expect(versionModule('1.2.3-rc.1')).toContain(`PACKAGE_VERSION = "1.2.3-rc.1";`);
    expect(versionModule('1.2.3')).not.toBe(versionModule(packageJson.version));
  });
});
