// The parent's handle on throughput-receiver.ts, for the dev probes beside it
// (throughput-probe.ts, drain-probe.ts): forks it, waits for its port, and asks
// it how many requests and TLS connections it has seen.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ForkedReceiver {
  url: string;
  stats(): Promise<{ count: number; connections: number }>;
  kill(): void;
}

export async function forkThroughputReceiver(): Promise<ForkedReceiver> {
  const child = fork(fileURLToPath(new URL('./throughput-receiver.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout?.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    }),
  );
  return {
    url: `https://127.0.0.1:${port}/hook`,
    stats: () =>
      new Promise((resolve) => {
        child.once('message', resolve as (v: unknown) => void);
        child.send('stats');
      }),
    kill: () => child.kill(),
  };
}
