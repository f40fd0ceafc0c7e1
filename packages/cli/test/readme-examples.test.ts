import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@feira/platform/testing';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveInBrowser, PRINTED_LOGIN_URL } from './support/browser-login.js';
import { spawnWatched } from './support/spawn-watched.js';

// Every shell example of README.md and of the guides in docs/ runs, as written,
// against a fresh sandbox, so they cannot drift. Blocks whose info string says
// `no-run` (installs, other databases, templates needing a browser code) are
// skipped; the others run in order in one bash (README first: its variables
// block defines what the guides use), in a folder where `npm start` would have
// made `.feira`, after `npx feira login`. A `feira login` a block runs prints
// its URL; a seller approves it in Chromium, as a reader would. The commands
// are the built CLI (`npx feira` as a user runs it), so this test needs
// `npm run build` first, which `npm install` does.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const builtBin = join(repoRoot, 'packages/cli/bin/feira.js');

/** The README, then the guides its examples continue in (docs/*.md written for readers to run). */
export const RUNNABLE_DOCS = [
  'README.md',
  'docs/sandbox.md',
  'docs/webhooks.md',
  'docs/records.md',
  'docs/identity.md',
  'docs/shipping.md',
  'docs/openapi.md',
  'docs/cli.md',
];

/** The runnable blocks of every document, in order, each with where it comes from. */
function runnableBlocks(): Array<{ info: string; code: string; line: number; file: string }> {
  return RUNNABLE_DOCS.filter((file) => existsSync(join(repoRoot, file))).flatMap((file) =>
    shellBlocks(readFileSync(join(repoRoot, file), 'utf8'))
      .filter((b) => !b.info.includes('no-run'))
      .map((b) => ({ ...b, file })),
  );
}

/** The README's shell blocks in order, with their info string. */
export function shellBlocks(markdown: string): Array<{ info: string; code: string; line: number }> {
  const blocks: Array<{ info: string; code: string; line: number }> = [];
  const fence = /^```(sh|bash|shell)([^\n]*)\n([\s\S]*?)^```/gm;
  for (const match of markdown.matchAll(fence)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    blocks.push({ info: `${match[1]}${match[2]}`.trim(), code: match[3] as string, line });
  }
  return blocks;
}

const spawnIn = (cwd: string, command: string, args: string[]) => spawnWatched(cwd, command, args);

describe('README shell examples run verbatim against a fresh sandbox', { timeout: 400_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-readme-'));
  let sandbox: ReturnType<typeof spawnIn> | undefined;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'packages/cli/dist/bin.js'))) throw new Error('build first: npm run build');
    // `npx feira` in this folder finds the repository's packages, as in a clone.
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
    browser = await chromium.launch(chromiumLaunchOptions());
    sandbox = spawnIn(dir, process.execPath, [builtBin, 'start', '--port', '0']);
    await sandbox.waitFor(/Listening on https:\/\/127\.0\.0\.1:\d+/, 180_000);
    const login = spawnIn(dir, process.execPath, [builtBin, 'login']);
    const url = (await login.waitFor(PRINTED_LOGIN_URL))[1] as string;
    await approveInBrowser(browser, url, JSON.parse(readFileSync(join(dir, '.feira/demo-credentials.json'), 'utf8')));
    expect((await login.exited).code).toBe(0);
  }, 300_000);

  afterAll(async () => {
    sandbox?.child.kill('SIGKILL');
    await sandbox?.exited;
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the runnable blocks: the variables block first, the no-run ones left out, every guide with some; the README fits a first hour (at most 200 lines)', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const blocks = shellBlocks(readme);
    const runnable = runnableBlocks();
    // The variables block first: it trusts the sandbox's HTTPS for node and curl, then names what the guides use.
    expect(runnable[0]?.code).toMatch(/^export NODE_EXTRA_CA_CERTS=\S+ CURL_CA_BUNDLE=\S+ .*\nBASE=\$\(/);
    expect(blocks.find((b) => b.code.includes('npm install'))?.info).toContain('no-run');
    for (const file of RUNNABLE_DOCS.slice(1)) expect(runnable.filter((b) => b.file === file).length, file).toBeGreaterThan(0);
  });

  it('every runnable block exits 0, every curl gets a 2xx (curl --fail-with-body); files go to $OUT, none into the folder', async () => {
    const blocks = runnableBlocks();
    const script = [
      'set -euo pipefail',
      'shopt -s inherit_errexit',
      // A 4xx/5xx fails the block (inside $(…) too), body shown.
      'curl() { command curl --fail-with-body -sS "$@" && echo; }',
      ...blocks.map((b, i) => `${b.code}\necho "::readme-block ${i} ok"`),
    ].join('\n');
    const bash = spawnIn(dir, 'bash', ['-c', script]);
    // A block that connects an app runs `feira login`: the seller approves the URL it prints.
    const approved = new Set<string>();
    const demo = JSON.parse(readFileSync(join(dir, '.feira/demo-credentials.json'), 'utf8'));
    const problems: string[] = [];
    let finished = false;
    const approving = (async () => {
      while (!finished) {
        for (const match of bash.run.out.matchAll(new RegExp(PRINTED_LOGIN_URL.source, 'gm'))) {
          const url = match[1] as string;
          if (approved.has(url)) continue;
          approved.add(url);
          await approveInBrowser(browser, url, demo).catch((error: Error) => problems.push(`approving ${url}: ${error.message}`));
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    // A block that hangs fails the test with its output rather than at the test's timeout.
    const hung = setTimeout(() => {
      problems.push('the blocks did not finish within 300 s');
      bash.child.kill('SIGKILL');
    }, 300_000);
    const result = await bash.exited;
    clearTimeout(hung);
    finished = true;
    await approving;
    const passed = [...result.out.matchAll(/::readme-block (\d+) ok/g)].length;
    const failed = blocks[passed];
    expect(
      result.code,
      failed
        ? `${failed.file} block at line ${failed.line} failed:\n${failed.code}\n${problems.join('\n')}\nstdout:\n${result.out}\nstderr:\n${result.err}`
        : '',
    ).toBe(0);
    expect(passed).toBe(blocks.length);
    // The examples write into $OUT: the folder holds what npm start and npm install made, nothing else.
    expect(readdirSync(dir).sort()).toEqual(['.feira', 'node_modules']);
  });
});
