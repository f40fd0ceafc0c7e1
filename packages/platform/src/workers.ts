import type { PlatformContext } from './core/platform-context.js';
import type { Readiness } from './http/health-routes.js';
import { WebhookDispatcher, type WebhookDispatcherOptions } from './webhooks/webhook-dispatcher.js';

export interface BackgroundWorkers {
  /** The webhook dispatcher running in this process, if any. */
  dispatcher: WebhookDispatcher | null;
  stop(): Promise<void>;
}

export interface BackgroundWorkerOptions {
  /** Run the webhook dispatcher in this process (default for `feira start`; `feira dispatch` runs only this). */
  dispatcher: boolean;
  /** Tuning of the dispatcher (concurrency, lease, timeouts); defaults follow spec-notes W4. */
  dispatcherOptions?: WebhookDispatcherOptions;
  log?: { error(obj: object, message: string): void };
  /** Where the loops report their heartbeat for `/health/ready` (the app's `readiness`). */
  readiness?: Readiness;
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
  if (dispatcher) options.readiness?.add('dispatcher', () => dispatcher.readiness());
  return {
    dispatcher,
    stop: async () => {
      await dispatcher?.stop();
    },
  };
}
