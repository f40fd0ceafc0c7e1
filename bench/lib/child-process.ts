import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { peakRssBytes } from './peak-rss.js';

type Message =
  | { type: 'ready'; info: unknown }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: string };

export interface ChildHandle<Info = unknown> {
  role: string;
  pid: number;
  /** What the child announced when ready (e.g. `{ port }`). */
  info: Info;
  /** Asks the child to run one of its operations and waits for the answer. */
  call<T = unknown>(op: string, args?: unknown, timeoutMs?: number): Promise<T>;
  /** VmHWM of the child right now. */
  peakRss(): number | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Passed to the child as JSON (`childOptions()` reads it). */
  options?: unknown;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Extra Node flags, e.g. `--cpu-prof`. */
  execArgv?: string[];
}

/**
 * Starts and always stops the processes of a run: every child is tracked, and
 * `stopAll()` (called after each scenario, and on exit or Ctrl-C) ends them,
 * SIGKILL after a short grace period.
 */
export class ChildRegistry {
  private readonly live = new Set<ChildProcess>();

  async start<Info = unknown>(role: string, scriptUrl: URL, start: StartOptions = {}): Promise<ChildHandle<Info>> {
    const child = fork(fileURLToPath(scriptUrl), [], {
      execArgv: ['--import', 'tsx', ...(start.execArgv ?? [])],
      env: {
        ...process.env,
        FEIRA_BENCH_CHILD_OPTIONS: JSON.stringify(start.options ?? {}),
        ...start.env,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.live.add(child);
    const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
    let nextId = 1;
    let exitError: Error | null = null;
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.live.delete(child);
        exitError = new Error(`${role} exited (code ${code}, signal ${signal})`);
        for (const p of pending.values()) p.reject(exitError);
        pending.clear();
        resolve();
      });
    });
    child.on('message', (raw) => {
      const message = raw as Message;
      if (message.type !== 'result') return;
      const p = pending.get(message.id);
      if (!p) return;
      pending.delete(message.id);
      if (message.ok) p.resolve(message.value);
      else p.reject(new Error(`${role}: ${message.error}`));
    });

    // Two minutes: on a host shared with other work (load averages of 15-20 seen) a child loading tsx took over 30 s.
    const readyTimeoutMs = start.readyTimeoutMs ?? 120_000;
    const info = await new Promise<Info>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${role} not ready after ${readyTimeoutMs} ms`)), readyTimeoutMs);
      child.on('message', (raw) => {
        const message = raw as Message;
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(message.info as Info);
        }
      });
      exited.then(() => {
        clearTimeout(timer);
        reject(exitError ?? new Error(`${role} exited before ready`));
      });
    }).catch(async (error) => {
      await stopChild(child, exited);
      throw error;
    });

    const pid = child.pid as number;
    return {
      role,
      pid,
      info,
      call: <T>(op: string, args?: unknown, timeoutMs = 600_000) =>
        new Promise<T>((resolve, reject) => {
          if (exitError) return reject(exitError);
          const id = nextId++;
          const timer = setTimeout(() => {
            pending.delete(id);
            reject(new Error(`${role}: ${op} took more than ${timeoutMs} ms`));
          }, timeoutMs);
          pending.set(id, {
            resolve: (v) => {
              clearTimeout(timer);
              resolve(v as T);
            },
            reject: (e) => {
              clearTimeout(timer);
              reject(e);
            },
          });
          child.send({ type: 'call', id, op, args });
        }),
      peakRss: () => peakRssBytes(pid),
      stop: () => stopChild(child, exited),
    };
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.live].map((child) => stopChild(child, new Promise((r) => child.once('exit', r)))));
  }

  /** Synchronous last resort for process exit handlers. */
  killAllNow(): void {
    for (const child of this.live) child.kill('SIGKILL');
  }
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
