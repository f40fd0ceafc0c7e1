import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningPlatform, listenPlatform, TEST_ADMIN_TOKEN } from '../../platform/src/testing.js';
import { runFeira } from './feira-process.js';

// `feira keys` against a running platform (a real socket, the admin API), as docs/deploy.md
// "Rotating keys" runs it: rotate, see the new key waiting, move the sandbox clock past the
// publish delay, see it signing and the old one kept until its tokens expire.

describe('feira keys', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-keys-'));
  let sandbox: ListeningPlatform;
  beforeAll(async () => {
    sandbox = await listenPlatform();
  });
  afterAll(async () => {
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function feira(...args: string[]) {
    const p = runFeira([...args, '--url', sandbox.url, '--data-dir', dir], { FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const code = await p.exited;
    return { code, stdout: p.stdout(), stderr: p.stderr() };
  }

  it('D110: feira keys rotate publishes a key that signs after the delay; feira keys status shows next, current, previous', async () => {
    const rotated = await feira('keys', 'rotate');
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    const kid = /published (\S+): in the JWKS now, signs from \S+Z/.exec(rotated.stdout)?.[1] as string;
    expect(kid).toBeDefined();
    const jwks = (await (await fetch(`${sandbox.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(kid);

    const waiting = await feira('keys', 'status');
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toMatch(new RegExp(`${kid}  next`));
    expect(waiting.stdout).toMatch(/every sealed value is under the current secret/);

    expect((await feira('clock', 'advance', '10m')).code).toBe(0);
    const signing = await feira('keys', 'status', '--json');
    expect(signing.code).toBe(0);
    const states = JSON.parse(signing.stdout).signing_keys.data.map((k: { kid: string; state: string }) => k.state);
    expect(states).toEqual(['current', 'previous']);
    expect(JSON.parse(signing.stdout).signing_keys.data[0].kid).toBe(kid);
  });
});
