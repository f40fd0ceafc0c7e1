// Installs the peers (peers/package.json, locked by peers/package-lock.json) on
// first use and links each into the repository's node_modules, so tests,
// benchmarks and `npx <tool>` find them as if the root had installed them, while
// the default `npm install` stays light (decision D72). Quick when nothing
// changed: it compares a stamp and the links, and installs only when needed.
//
//   node peers/install.mjs      (npm test, npm run bench and npm run typecheck run it first)
//
// Also vitest's globalSetup (vitest.config.ts): `npx vitest run <file>` works
// after a plain `npm install` too.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const rootModules = join(root, 'node_modules');
const peerModules = join(here, 'node_modules');
const stamp = join(peerModules, '.feira-peers-installed');

function peerNames() {
  return Object.keys(JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies ?? {});
}

function installed() {
  if (!existsSync(stamp)) return false;
  const lock = join(here, 'package-lock.json');
  const newest = Math.max(statSync(join(here, 'package.json')).mtimeMs, existsSync(lock) ? statSync(lock).mtimeMs : 0);
  return readFileSync(stamp, 'utf8').trim() === String(newest) && peerNames().every((n) => existsSync(join(peerModules, n)));
}

/** A symlink at `at` pointing at `target`, replaced when it points elsewhere; an installed package of the root is left alone. */
function link(target, at) {
  let existing;
  try {
    existing = lstatSync(at);
  } catch {
    existing = undefined;
  }
  const wanted = relative(dirname(at), target);
  if (existing) {
    if (!existing.isSymbolicLink()) return;
    if (readlinkSync(at) === wanted) return;
    rmSync(at, { force: true });
  }
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(wanted, at);
}

function linkAll() {
  for (const name of peerNames()) {
    const from = join(peerModules, name);
    link(from, join(rootModules, name));
    const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
    const bins = typeof manifest.bin === 'string' ? { [name.split('/').pop()]: manifest.bin } : (manifest.bin ?? {});
    for (const [bin, file] of Object.entries(bins)) link(join(from, file), join(rootModules, '.bin', bin));
  }
}

export function ensurePeers({ quiet = false } = {}) {
  if (!existsSync(rootModules)) throw new Error('run `npm install` first (no node_modules at the repository root)');
  if (!installed()) {
    if (!quiet) process.stderr.write('Installing the benchmark and interop peers (peers/package.json, once)…\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: here,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const lock = join(here, 'package-lock.json');
    const newest = Math.max(statSync(join(here, 'package.json')).mtimeMs, existsSync(lock) ? statSync(lock).mtimeMs : 0);
    writeFileSync(stamp, `${newest}\n`);
  }
  linkAll();
}

/** vitest globalSetup. */
export default function setup() {
  ensurePeers();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensurePeers();
