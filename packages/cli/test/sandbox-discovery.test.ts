import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type FeiraProcess, runFeira } from './feira-process.js';

const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/;

function occupiedPort(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

async function freePort(): Promise<number> {
  const server = await occupiedPort();
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function runToEnd(args: string[], env: Record<string, string> = {}) {
  const p = runFeira(args, env);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

describe('sandbox discovery and a clean failed start', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-discovery-'));
  const processes: FeiraProcess[] = [];
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.stop('SIGKILL');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('feira start records its URL and pid (0600); other commands find it without --url; once stopped they say no sandbox runs', async () => {
    const dataDir = join(dir, 'data');
    const quotePort = await freePort();
    const sandbox = runFeira([
      'start',
      '--port',
      '0',
      '--quote-port',
      String(quotePort),
      '--data-dir',
      dataDir,
      '--log-format',
      'pretty',
      '--log-level',
      'info',
    ]);
    processes.push(sandbox);
    const port = Number((await sandbox.waitFor(LISTENING))[1]);
    const recordPath = join(dataDir, 'sandbox.json');
    expect(statSync(recordPath).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(recordPath, 'utf8'));
    expect(record).toMatchObject({
      url: `http://127.0.0.1:${port}`,
      pid: sandbox.child.pid,
      admin_token_file: join(dataDir, 'admin-token'),
      demo_quote_url: `http://127.0.0.1:${quotePort}/quote`,
      local_ca_file: join(dataDir, 'local-ca.pem'),
    });
    expect(sandbox.stdout()).toContain(`Demo quotes  http://127.0.0.1:${quotePort}/quote`);
    // Readable log lines, without colour codes when stderr is not a terminal.
    await fetch(`http://127.0.0.1:${port}/health?secret=hidden`);
    const logLine = (await sandbox.waitFor(/^.*INFO.*request completed.*$/m, 30_000, 'stderr'))[0];
    expect(logLine).not.toContain('\u001b[');
    expect(logLine).not.toMatch(/^\{/);
    expect(sandbox.stderr()).not.toContain('secret=hidden');

    const found = await runToEnd(['trigger', 'order', '--data-dir', dataDir]);
    expect(found.stderr).toBe('');
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/CREATION of order .* no active subscription to order in this store, so nothing is delivered/);

    expect(await sandbox.stop('SIGTERM')).toBe(0);
    expect(existsSync(recordPath)).toBe(false);
    const gone = await runToEnd(['trigger', 'order', '--data-dir', dataDir]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no sandbox is running: .*sandbox\.json does not exist\. Start one with `npx feira start`/);

    // A record left by a sandbox that was killed: its pid is gone, so it is stale.
    writeFileSync(recordPath, JSON.stringify({ ...record, pid: 2 ** 22 + 12345 }), { mode: 0o600 });
    const stale = await runToEnd(['trigger', 'order', '--data-dir', dataDir]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(
      /no sandbox is running: the one recorded in .*\(pid \d+, http:\/\/127\.0\.0\.1:\d+\) has stopped/,
    );
  });

  it('a start that cannot bind its port (or the quote port) leaves the data folder as it was', async () => {
    const busy = await occupiedPort();
    try {
      const fresh = join(dir, 'fresh');
      const failed = await runToEnd(['start', '--port', String(portOf(busy)), '--data-dir', fresh]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`port ${portOf(busy)} on 127.0.0.1 is already in use`);
      expect(existsSync(fresh)).toBe(false);

      const kept = join(dir, 'kept');
      mkdirSync(kept);
      writeFileSync(join(kept, 'notes.txt'), 'mine');
      const quoteBusy = await runToEnd(['start', '--port', '0', '--quote-port', String(portOf(busy)), '--data-dir', kept]);
      expect(quoteBusy.code).toBe(1);
      expect(quoteBusy.stderr).toContain('already in use');
      expect(readdirSync(kept)).toEqual(['notes.txt']);
    } finally {
      busy.close();
    }
  });
});
