import { spawn } from 'node:child_process';

/** What a watched process printed, and its exit code once it ended. */
export interface Run {
  code: number | null;
  out: string;
  err: string;
}

/**
 * Runs `command` in `cwd` as a newcomer's shell would (PATH and HOME only, no colours, no
 * DISPLAY: `feira login` prints its URL instead of opening a browser), keeping what it prints;
 * `waitFor` polls its output with a deadline. `detached` gives it a process group of its own,
 * for commands (npx) that run the real program under a shell.
 */
export function spawnWatched(
  cwd: string,
  command: string,
  args: string[],
  options: { env?: Record<string, string>; detached?: boolean } = {},
) {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const run: Run = { code: null, out: '', err: '' };
  child.stdout.on('data', (chunk) => {
    run.out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    run.err += chunk;
  });
  const exited = new Promise<Run>((resolve) =>
    child.on('close', (code) => {
      run.code = code;
      resolve(run);
    }),
  );
  const waitFor = async (pattern: RegExp, timeoutMs = 120_000): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = run.out.match(pattern);
      if (match) return match;
      if (run.code !== null || Date.now() > deadline) throw new Error(`no ${pattern}\nstdout:\n${run.out}\nstderr:\n${run.err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, run, exited, waitFor };
}
