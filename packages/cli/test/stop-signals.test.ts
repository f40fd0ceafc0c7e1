import { describe, expect, it } from 'vitest';
import { runTsNode } from './feira-process.js';

/**
 * A real Node process that calls `stopSignal()`, says `ready`, then `first <signal>` when one comes,
 * and ends (or, with `shutdownTakes`, stays up as a command finishing its work would). The test sends
 * signals as soon as it reads a line, as a script driving `feira listen` would.
 */
function probe(shutdownTakes: 'no time' | 'until killed') {
  const script = `
    import { stopSignal } from './packages/cli/src/stop-signals.ts';
    const first = stopSignal('probe', 'its work stays undone');
    console.log('ready');
    const keepAlive = setInterval(() => {}, 1000);
    console.log('first ' + (await first));
    if (${shutdownTakes === 'no time'}) clearInterval(keepAlive);
  `;
  return runTsNode(['--input-type=module', '-e', script]);
}

describe('stop signals of the long-running commands: feira start, listen, dispatch', () => {
  it('a SIGTERM sent as soon as the ready line is read reaches the handler: the command ends itself, exit code 0', async () => {
    const proc = probe('no time');
    await proc.waitFor(/^ready$/m);
    expect(await proc.stop('SIGTERM'), `ended by ${proc.exitSignal()}`).toBe(0);
    expect(proc.stdout()).toContain('first SIGTERM');
  });

  it('a second signal while the command shuts down exits at once with code 1, saying what it leaves undone (Ctrl-C twice)', async () => {
    const proc = probe('until killed');
    await proc.waitFor(/^ready$/m);
    proc.child.kill('SIGINT');
    await proc.waitFor(/^first SIGINT$/m);
    expect(await proc.stop('SIGTERM')).toBe(1);
    expect(proc.stderr()).toContain('probe: SIGTERM again, exiting without waiting (its work stays undone)\n');
  });
});
