import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `feira <args>` as a real process (node --import tsx), with @feira/* mapped
 * to the TypeScript sources so the test needs no build. A sandbox it starts serves
 * plain HTTP unless the test gives `FEIRA_HTTP: '0'`.
 */
export function runCli(args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', bin, ...args], {
      cwd: root,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: `${root}tsconfig.typecheck.json`,
        NO_COLOR: '1',
        FEIRA_HTTP: '1',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts `feira <args>` and returns the live child, for long-running commands (listen). */
export function startCli(args: string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, ['--import', 'tsx', bin, ...args], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: `${root}tsconfig.typecheck.json`, NO_COLOR: '1', FEIRA_HTTP: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
