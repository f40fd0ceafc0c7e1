import { performance } from 'node:perf_hooks';
import { formatSignatureHeader, signWebhook } from '@feira/contract';
import { type Dispatcher, request } from 'undici';
import { parseRetryAfter } from './retry-schedule.js';

/** The delivery log keeps the first 1 KiB of the receiver's answer. */
export const RESPONSE_EXCERPT_BYTES = 1024;
/** Past this much answer the connection is dropped rather than drained. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

export interface DeliveryRequest {
  url: string;
  /** The message exactly as serialized into the outbox; sent byte for byte. */
  body: string;
  webhookId: string;
  /** v1: newest first; empty for v0 (no signature headers). */
  secrets: readonly string[];
  /** Unix seconds of this send: every attempt is signed afresh (SPEC-DECISIONS W3). */
  timestamp: number;
  timeoutMs: number;
  dispatcher: Dispatcher;
  now: () => Date;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  retryAfterMs: number | null;
}

/** Error text for the delivery log: the cause's code, never request headers (they carry signatures). */
function describe(error: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout: no complete answer in time';
  const err = error as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  const code = err.cause?.code ?? err.code;
  if (code === 'ERR_SSRF_REFUSED') return `refused by the outbound address policy: ${err.cause?.message ?? err.message}`;
  return [code, err.cause?.message ?? err.message].filter(Boolean).join(': ').slice(0, 500) || 'request failed';
}

/**
 * One delivery attempt (SPEC-DECISIONS W3/W4): POST the message with
 * `X-Webhook-Id`, and on v1 `X-Timestamp` and `X-Signature-256` over
 * `<timestamp>.<body>`. Success is a 2xx within `timeoutMs` (whole exchange).
 */
export async function sendDelivery(req: DeliveryRequest): Promise<AttemptResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'feira-webhooks/1',
    'x-webhook-id': req.webhookId,
  };
  if (req.secrets.length > 0) {
    headers['x-timestamp'] = String(req.timestamp);
    headers['x-signature-256'] = formatSignatureHeader(req.secrets.map((s) => signWebhook(s, req.timestamp, req.body)));
  }
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  const started = performance.now();
  try {
    const response = await request(req.url, {
      method: 'POST',
      headers,
      body: req.body,
      dispatcher: req.dispatcher,
      signal: controller.signal,
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let total = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (kept < RESPONSE_EXCERPT_BYTES) {
        const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (total > DRAIN_LIMIT_BYTES) {
        response.body.destroy();
        break;
      }
    }
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return {
      ok,
      statusCode: response.statusCode,
      error: ok ? null : `HTTP ${response.statusCode}`,
      responseBody: chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : null,
      durationMs: Math.round(performance.now() - started),
      retryAfterMs: ok ? null : parseRetryAfter(response.headers['retry-after'], req.now()),
    };
  } catch (error) {
    return {
      ok: false,
      statusCode: null,
      error: describe(error, timedOut),
      responseBody: null,
      durationMs: Math.round(performance.now() - started),
      retryAfterMs: null,
    };
  } finally {
    clearTimeout(timer);
  }
}
