import type { PlatformContext } from './app.js';

export interface BackgroundWorkers {
  stop(): Promise<void>;
}

export interface BackgroundWorkerOptions {
  /** Run the webhook dispatcher in this process (default for `feira start`; `feira dispatch` runs only this). */
  dispatcher: boolean;
}

/**
 * Starts the long-running loops that live beside the HTTP server (the webhook
 * dispatcher). `feira start` and `feira dispatch` call this; tests drive the
 * loops directly instead.
 */
export async function startBackgroundWorkers(
  _platform: PlatformContext,
  _options: BackgroundWorkerOptions,
): Promise<BackgroundWorkers> {
  return { stop: async () => {} };
}
