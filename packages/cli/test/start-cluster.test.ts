import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../../platform/src/testing.js';
import { childPids, type FeiraProcess, runFeira, servingWorkerPids } from './feira-process.js';

const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/;

describe('feira start --workers: several API processes on one port', { timeout: 300_000 }, () => {
  let dir: string | undefined;
  const processes: FeiraProcess[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const p of processes.splice(0)) {
      for (const pid of childPids(p.child.pid as number)) process.kill(pid, 'SIGKILL');
      await p.stop('SIGKILL');
    }
    for (const c of cleanups.splice(0)) await c();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is refused on SQLite with exit code 2 and a message that says to use PostgreSQL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
    const p = runFeira(['start', '--workers', '2', '--port', '0', '--data-dir', join(dir, 'data')]);
    processes.push(p);
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toContain('--workers 2 needs PostgreSQL');
    expect(p.stderr()).not.toMatch(/\n\s+at /);
  });

  const pgUrl = process.env.FEIRA_TEST_DATABASE_URL;
  it.runIf(pgUrl)(
    'on PostgreSQL: two workers serve one port, one banner, a SIGKILLed worker is logged and replaced, SIGTERM stops all',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
      const name = `feira_cluster_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      cleanups.push(async () => {
        const c = new pg.Client({ connectionString: pgUrl });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      });
      const url = new URL(pgUrl as string);
      url.pathname = `/${name}`;
      const p = runFeira([
        'start',
        '--workers',
        '2',
        '--port',
        '0',
        '--data-dir',
        join(dir, 'data'),
        '--database',
        url.toString(),
        '--log-level',
        'silent',
      ]);
      processes.push(p);
      const base = `http://127.0.0.1:${(await p.waitFor(LISTENING, 180_000))[1]}`;
      const primary = p.child.pid as number;
      // Listening is said once both workers are ready, after the line that lists their pids.
      const listed = (p.stdout().match(/Cluster: 2 workers, pids (\d+), (\d+); one port; primary pid (\d+)/) ?? []).slice(1);
      expect(listed[2]).toBe(String(primary));
      expect(p.stdout().indexOf('Cluster: 2 workers')).toBeLessThan(p.stdout().search(LISTENING));
      expect(new Set(childPids(primary).map(String))).toEqual(new Set(listed.slice(0, 2)));
      expect(await servingWorkerPids(base, 2)).toEqual(new Set(listed.slice(0, 2)));
      await p.waitFor(/Worker pid \d+ serving/, 180_000);
      expect(p.stdout().match(/Feira is ready/g)).toHaveLength(1);
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(200);
      // Worker 1 runs the dispatcher, so its heartbeat is among the checks of whichever worker answers.
      for (let i = 0; i < 10; i++) expect((await fetch(`${base}/health/live`)).status).toBe(200);

      const [victim] = childPids(primary);
      process.kill(victim as number, 'SIGKILL');
      await p.waitFor(
        new RegExp(`worker \\d \\(pid ${victim}\\) exited unexpectedly \\(SIGKILL\\); restarting it`),
        30_000,
        'stderr',
      );
      await pollUntil(
        'a replacement worker',
        () => {
          const pids = childPids(primary);
          return pids.length === 2 && !pids.includes(victim as number) ? true : undefined;
        },
        { deadlineMs: 120_000 },
      );
      await pollUntil('the port answering again', async () => ((await fetch(`${base}/health/live`)).ok ? true : undefined), {
        deadlineMs: 60_000,
      });

      const workers = childPids(primary);
      expect(await p.stop('SIGTERM')).toBe(0);
      expect(p.stdout()).toContain('shutting down 2 workers');
      for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    },
  );
});
