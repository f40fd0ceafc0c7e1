import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningPlatform, listenPlatform, TEST_ADMIN_TOKEN, testConfig } from '../../platform/src/testing.js';
import { runFeira } from './feira-process.js';

// `feira clock` against a running platform (a real socket, the admin API), as an integrator runs it:
// the sandbox clock moves, and a platform in strict mode refuses with the reason on stderr.

describe('feira clock', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-clock-'));
  let sandbox: ListeningPlatform;
  let strict: ListeningPlatform;
  beforeAll(async () => {
    sandbox = await listenPlatform();
    strict = await listenPlatform(undefined, { config: testConfig({ mode: 'strict' }) });
  });
  afterAll(async () => {
    await sandbox?.close();
    await strict?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function feira(url: string, ...args: string[]) {
    const p = runFeira(['clock', ...args, '--url', url, '--data-dir', dir], { FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const code = await p.exited;
    return { code, stdout: p.stdout(), stderr: p.stderr() };
  }

  it('feira clock advance 2h moves the sandbox clock two hours, and feira clock shows it', async () => {
    const moved = await feira(sandbox.url, 'advance', '2h');
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/sandbox time \S+Z \(2h ahead of the host\)/);
    expect(sandbox.app.platform.clock.now().getTime() - sandbox.clock.now().getTime()).toBe(2 * 3_600_000);
    const shown = await feira(sandbox.url, '--json');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ offset_seconds: 7200, now: sandbox.app.platform.clock.now().toISOString() });
  });

  it('a duration that is not one is refused before anything is sent', async () => {
    const bad = await feira(sandbox.url, 'advance', 'two hours');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/must be like 2h, 90m, 1d12h or 30s/);
  });

  it('a platform in strict mode refuses, and the command says why (exit 1)', async () => {
    const refused = await feira(strict.url, 'advance', '2h');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/feira clock: POST \/admin\/v1\/clock\/advance answered 403: .*only in sandbox mode/);
    expect(strict.app.platform.clock.now().getTime()).toBe(strict.clock.now().getTime());
  });
});
