import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runTsNode } from './feira-process.js';

// What a command loads before it does its work, counted rather than timed: the server (its entry, its
// database drivers, Fastify, its pages) is loaded by the commands that run one, and by no other.

const recorder = fileURLToPath(new URL('./support/record-loads.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'feira-loads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The modules `feira <args>` loaded (the command may fail for want of a sandbox: only what it loaded counts). */
async function loadsOf(args: string[]): Promise<string[]> {
  const file = join(dir, `${args.join('-').replace(/[^a-z-]/g, '')}.txt`);
  const child = runTsNode(['--import', recorder, 'packages/cli/src/bin.ts', ...args], {
    FEIRA_RECORD_LOADS: file,
    FEIRA_DATA_DIR: join(dir, 'no-sandbox'),
  });
  await child.exited;
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

const SERVER = [/packages\/platform\/src\/index\.ts$/, /node_modules\/(fastify|pg|better-sqlite3|exceljs)\//];
const serverModules = (loads: string[]) => loads.filter((url) => SERVER.some((pattern) => pattern.test(url)));

describe('what a feira command loads', () => {
  it.each([
    { args: '--version' },
    { args: '--help' },
    { args: 'trigger --help' },
    { args: 'events list' },
    { args: 'quote-check --help' },
  ])('feira $args loads none of the server', async ({ args }) => {
    const loads = await loadsOf(args.split(' '));
    expect(loads.some((url) => url.endsWith('packages/cli/src/bin.ts'))).toBe(true);
    expect(serverModules(loads)).toEqual([]);
  });

  it('feira start --help describes every setting without loading the server; feira seed --help too', async () => {
    for (const args of [
      ['start', '--help'],
      ['seed', '--help'],
    ])
      expect(serverModules(await loadsOf(args))).toEqual([]);
  });
});
