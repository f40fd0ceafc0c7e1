// The previous release, built from the repository's own history, so a test can
// run it on some hosts and this build on others (the rolling upgrade). Its
// commit is written in `hosts/previous-release`; `FEIRA_PREVIOUS_RELEASE`
// (a commit or any git revision) overrides it. The build is kept in the
// system's temporary folder under the commit's name and reused by later runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface Release {
  commit: string;
  /** The folder holding the release's tree, installed and built (`packages/cli/bin/feira.js` runs it). */
  root: string;
}

/** The commit `hosts/previous-release` names (its one line that is not a comment). */
export function previousReleaseCommit(): string {
  const wanted =
    process.env.FEIRA_PREVIOUS_RELEASE ??
    readFileSync(join(ROOT, 'hosts/previous-release'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '' && !line.startsWith('#'));
  if (!wanted) throw new Error('hosts/previous-release names no commit');
  try {
    return execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${wanted}^{commit}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      `the previous release ${wanted} is not in this clone's history (a shallow clone? fetch it, or set FEIRA_PREVIOUS_RELEASE)`,
    );
  }
}

/**
 * The previous release, installed and built: its tree exported with `git archive` (no work tree of this
 * clone is touched), its exact dependencies installed from its own lockfile (`npm ci`; or, when its lockfile
 * is this clone's to the byte, this clone's installed modules copied), then built. Takes minutes the first
 * time; a finished build is marked and reused.
 */
export function previousRelease(): Release {
  const commit = previousReleaseCommit();
  const root = join(tmpdir(), `feira-release-${commit.slice(0, 12)}`);
  const marker = join(root, '.feira-release-built');
  if (existsSync(marker)) return { commit, root };
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const archive = execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', root], { input: archive, maxBuffer: 1 << 30 });
  const sameLockfile =
    readFileSync(join(root, 'package-lock.json'), 'utf8') === readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
  if (sameLockfile) {
    // The same dependencies to the byte: this clone's installed modules serve (their workspace links are
    // relative, so they point into the release's own packages), which spares minutes of native builds.
    for (const folder of ['node_modules', ...['contract', 'platform', 'sdk', 'cli'].map((p) => `packages/${p}/node_modules`)]) {
      if (existsSync(join(ROOT, folder))) execFileSync('cp', ['-a', join(ROOT, folder), join(root, folder)]);
    }
  } else {
    execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
      timeout: 3_600_000,
      env: { ...process.env, CI: 'true' },
    });
  }
  execFileSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
    timeout: 3_600_000,
  });
  writeFileSync(marker, `${commit}\n`);
  return { commit, root };
}
