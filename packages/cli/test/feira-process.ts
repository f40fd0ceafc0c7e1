import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { pollUntil } from '../../platform/src/testing.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** A real `feira` process (or another script) run from the TypeScript sources (tsx, with the workspace's source paths). */
export interface FeiraProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout (or stderr); rejects at the deadline or if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  /** Sends a signal (if still running) and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** The signal that ended the process, when one did (its exit code is then null): for failure messages. */
  exitSignal(): NodeJS.Signals | null;
}

export function runFeira(args: string[], env: Record<string, string | undefined> = {}): FeiraProcess {
  return runTsNode(['packages/cli/src/bin.ts', ...args], env);
}

/**
 * A real Node process running TypeScript through tsx (`node --import tsx <nodeArgs>`) from the
 * repository's root: `feira` itself (runFeira), or a script of a test's own.
 */
export function runTsNode(nodeArgs: string[], env: Record<string, string | undefined> = {}): FeiraProcess {
  // Only the variables the test means: no FEIRA_* leaking in from the developer's shell. A sandbox serves
  // plain HTTP here unless the test asks for HTTPS (`FEIRA_HTTP: undefined`): the tests about TLS say so.
  const given: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TSX_TSCONFIG_PATH: 'tsconfig.typecheck.json',
    FEIRA_HTTP: '1',
    ...env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs], {
    cwd: repoRoot,
    env: Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const l of listeners) l();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    for (const l of listeners) l();
  });
  let endedBy: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      endedBy = signal;
      resolve(code);
    }),
  );
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    for (const l of listeners) l();
  });

  const waitFor = (pattern: RegExp, timeoutMs = 60_000, stream: 'stdout' | 'stderr' = 'stdout') =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = (stream === 'stdout' ? out : err).match(pattern);
        if (match) {
          done();
          resolve(match);
        } else if (hasExited) {
          done();
          reject(new Error(`the process exited before printing ${pattern}\nstdout:\n${out}\nstderr:\n${err}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${pattern} within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (!hasExited) child.kill(signal);
      return exited;
    },
    exitSignal: () => endedBy,
  };
}

/** The pids of a process's children (the cluster's workers). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The pids of the `count` API workers answering on `base`, once each has
 * answered a scrape of /metrics (`feira_process_info{pid}`) on a connection
 * of its own: the proof that the cluster hands connections to all of them.
 * (Counting the primary's child processes is no proof: a child can be alive
 * and not serving.)
 */
export async function servingWorkerPids(base: string, count: number, deadlineMs = 120_000): Promise<Set<string>> {
  return pollUntil(
    `${count} API workers answering on ${base}`,
    async () => {
      const seen = new Set<string>();
      await Promise.all(
        Array.from({ length: 4 * count }, async () => {
          const res = await request(`${base}/metrics`, { reset: true });
          const pid = /feira_process_info\{pid="(\d+)"\} 1/.exec(await res.body.text())?.[1];
          if (pid) seen.add(pid);
        }),
      );
      return seen.size >= count ? seen : undefined;
    },
    { deadlineMs, intervalMs: 250 },
  );
}
