import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWatched } from './support/spawn-watched.js';

// The sandbox as a newcomer starts it (`npx feira start` in a clone, the built CLI), and the OpenID
// libraries as an integrator calls them first: openid-client's `discovery()` and oauth4webapi's
// discovery with their defaults, which allow HTTPS only. The one thing the integrator's process is
// given is the CA the banner names, in NODE_EXTRA_CA_CERTS (docs/sandbox.md, docs/identity.md).
// Any other difference from a plain `node app.mjs` would hide the failure this test exists for.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

function spawnIn(cwd: string, command: string, args: string[], env: Record<string, string> = {}) {
  // Its own process group: npx runs feira under a shell, and stopping the sandbox means the whole group.
  return spawnWatched(cwd, command, args, { env, detached: true });
}

/** The integrator's app: both libraries with their defaults, no option about TLS, printing what they found. */
const APP = `
import * as openid from 'openid-client';
import * as oauth from 'oauth4webapi';
const [issuer, clientId, clientSecret] = process.argv.slice(2);
const config = await openid.discovery(new URL(issuer), clientId, clientSecret);
const server = config.serverMetadata();
let refresh;
try {
  await openid.refreshTokenGrant(config, 'not-a-refresh-token');
  refresh = 'accepted';
} catch (error) {
  refresh = error.error ?? error.code ?? error.message;
}
const url = new URL(issuer);
const as = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: 'oidc' }));
console.log(JSON.stringify({ issuer: server.issuer, scopes: server.scopes_supported, oauth4webapi: as.token_endpoint, refresh }));
`;

describe('the sandbox over HTTPS, as printed: OpenID libraries with their defaults (D106)', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-https-'));
  let sandbox: ReturnType<typeof spawnIn> | undefined;
  let base = '';
  let ca = '';

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'packages/cli/dist/bin.js'))) throw new Error('build first: npm run build');
    // `npx feira` in this folder finds the repository's packages, as in a clone.
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'app.mjs'), APP);
    // As printed, but on a free port: other sandboxes may hold 8080 on this machine.
    sandbox = spawnIn(dir, 'npx', ['feira', 'start', '--port', '0']);
    base = (await sandbox.waitFor(/^ {2}API {10}(\S+)$/m, 180_000))[1] as string;
    ca = (await sandbox.waitFor(/NODE_EXTRA_CA_CERTS=(\S+)/))[1] as string;
    await sandbox.waitFor(/Listening on /);
  }, 240_000);

  afterAll(async () => {
    if (sandbox?.child.pid && sandbox.run.code === null) process.kill(-sandbox.child.pid, 'SIGTERM');
    await sandbox?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints an https URL and the CA to trust, the data folder's own", () => {
    expect(base).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(ca).toBe(join(dir, '.feira/local-ca.pem'));
    expect(sandbox?.run.out).toContain('npx feira trust');
  });

  it('openid-client discovery() and oauth4webapi discover it with their defaults, given only NODE_EXTRA_CA_CERTS; the token endpoint answers a bad refresh token with invalid_grant', async () => {
    const demo = JSON.parse(readFileSync(join(dir, '.feira/demo-credentials.json'), 'utf8'));
    const app = spawnIn(dir, process.execPath, ['app.mjs', base, demo.clientId, demo.clientSecret], { NODE_EXTRA_CA_CERTS: ca });
    const result = await app.exited;
    expect(result.code, result.err).toBe(0);
    const found = JSON.parse(result.out);
    expect(found).toEqual({
      issuer: base,
      scopes: expect.arrayContaining(['openid']),
      oauth4webapi: `${base}/oauth/token`,
      refresh: 'invalid_grant',
    });
  });

  it('without the CA the same app is refused by TLS, not served over plain HTTP: the trust is what makes it work', async () => {
    const demo = JSON.parse(readFileSync(join(dir, '.feira/demo-credentials.json'), 'utf8'));
    const result = await spawnIn(dir, process.execPath, ['app.mjs', base, demo.clientId, demo.clientSecret]).exited;
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(/self-signed|unable to (get|verify)|UNABLE_TO|certificate/i);
  });
});
