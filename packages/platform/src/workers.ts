import type { PlatformContext } from './app.js';
import { WebhookDispatcher, type WebhookDispatcherOptions } from './webhooks/webhook-dispatcher.js';

export interface BackgroundWorkers {
  stop(): Promise<void>;
}

export interface BackgroundWorkerOptions {
  /** Run the webhook dispatcher in this process (default for `feira start`; `feira dispatch` runs only this). */
  dispatcher: boolean;
  /** Tuning of the dispatcher (concurrency, lease, timeouts); defaults follow SPEC-DECISIONS W4. */
  dispatcherOptions?: WebhookDispatcherOptions;
  log?: { error(obj: object, message: string): void };
}

/**
 * Starts the long-running loops that live beside the HTTP server (the webhook
 * dispatcher). `feira start` and `feira dispatch` call this; tests drive the
 * loops directly instead.
 */
export async function startBackgroundWorkers(
  platform: PlatformContext,
  options: BackgroundWorkerOptions,
): Promise<BackgroundWorkers> {
  const dispatcher = options.dispatcher
    ? new WebhookDispatcher({ ...platform, ...(options.log ? { log: options.log } : {}) }, options.dispatcherOptions)
    : null;
  dispatcher?.start();
  return {
    stop: async () => {
      await dispatcher?.stop();
    },
  };
}
