import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const helper = fileURLToPath(new URL('./stop-signals.ts', import.meta.url));

/**
 * A real Node process that calls `stopSignal()`, says `ready`, and reports what it got; the test
 * sends the signals as soon as it reads the lines, as a script driving `feira listen` would.
 * `waitAgain`: after the first signal it stays up (as a command finishing its work would) for a second.
 */
function child(waitAgain = false): {
  lines: (pattern: RegExp) => Promise<void>;
  kill: (signal: NodeJS.Signals) => void;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>;
} {
  const script = `
    import { stopSignal } from ${JSON.stringify(helper)};
    const first = stopSignal((again) => { console.log('again ' + again); process.exit(3); });
    console.log('ready');
    const keepAlive = setInterval(() => {}, 1000);
    console.log('first ' + (await first));
    if (!${waitAgain}) clearInterval(keepAlive);
  `;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: Array<() => void> = [];
  proc.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of waiters) w();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal, out })),
  );
  return {
    lines: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => pattern.test(out) && resolve();
        waiters.push(check);
        void exit.then(() => reject(new Error(`exited before ${pattern}: ${out}`)));
        check();
      }),
    kill: (signal) => proc.kill(signal),
    exit,
  };
}

describe('stop signals of the long-running commands (feira start, listen, dispatch)', () => {
  it('a SIGTERM sent as soon as the ready line is read reaches the handler: the command ends itself, exit code 0', async () => {
    const proc = child();
    await proc.lines(/^ready$/m);
    proc.kill('SIGTERM');
    const { code, signal, out } = await proc.exit;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(out).toContain('first SIGTERM');
  });

  it('a second signal while the command shuts down runs the "again" action (Ctrl-C twice: stop waiting)', async () => {
    const proc = child(true);
    await proc.lines(/^ready$/m);
    proc.kill('SIGINT');
    await proc.lines(/^first SIGINT$/m);
    proc.kill('SIGTERM');
    const { code, out } = await proc.exit;
    expect(code).toBe(3);
    expect(out).toContain('again SIGTERM');
  });
});
