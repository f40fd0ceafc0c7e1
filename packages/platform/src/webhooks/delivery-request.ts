import { performance } from 'node:perf_hooks';
import { formatSignatureHeader, signStandardWebhook, signWebhook } from '@feira/contract';
import type { Dispatcher } from 'undici';
import { storableText } from '../core/storable-text.js';
import { keptResponseHeaders } from './response-headers.js';
import { parseRetryAfter } from './retry-schedule.js';

/** The delivery log keeps the first 1 KiB of the receiver's answer. */
const RESPONSE_EXCERPT_BYTES = 1024;
/** Past this much answer the connection is dropped rather than drained. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** Where a subscription's deliveries go, parsed once per claim batch rather than per delivery. */
export interface DeliveryTarget {
  origin: string;
  /** Path and query, sent as the request target. */
  path: string;
}

export function deliveryTarget(url: string): DeliveryTarget {
  try {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
  } catch {
    // Not a URL (signup checks it, so only an old row could be): the request fails and is recorded as such.
    return { origin: url, path: '/' };
  }
}

export interface DeliveryRequest {
  target: DeliveryTarget;
  /** The message exactly as serialized into the outbox; sent byte for byte. */
  body: string;
  webhookId: string;
  /** v1: newest first; empty for v0 (no signature headers). */
  secrets: readonly string[];
  /** v1: also the Standard Webhooks headers (spec-notes W10). */
  standardWebhooks?: boolean;
  /** Unix seconds of this send: every attempt is signed afresh (spec-notes W3). */
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
  /** The headers this attempt was sent with (the delivery log shows them to the subscription's seller). */
  requestHeaders: Readonly<Record<string, string>>;
  /** A safe, bounded subset of the receiver's answer headers (webhooks/response-headers.ts); null or absent without an answer. */
  responseHeaders?: Readonly<Record<string, string>> | null;
  durationMs: number;
  retryAfterMs: number | null;
}

/** Error text for the delivery log: the cause's code, never request headers (they carry signatures). */
function describe(error: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout: no complete answer in time';
  const err = error as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  const code = err.cause?.code ?? err.code;
  const text =
    code === 'ERR_SSRF_REFUSED'
      ? `refused by the outbound address policy: ${err.cause?.message ?? err.message}`
      : [code, err.cause?.message ?? err.message].filter(Boolean).join(': ').slice(0, 500);
  return storableText(text) || 'request failed';
}

/** `Retry-After` from undici's raw header list (name, value, name, value…). */
function retryAfterHeader(rawHeaders: readonly Buffer[] | null): string | undefined {
  if (!rawHeaders) return undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (String(rawHeaders[i]).toLowerCase() === 'retry-after') return String(rawHeaders[i + 1]);
  }
  return undefined;
}

/**
 * One delivery attempt (spec-notes W3/W4): POST the message with
 * `X-Webhook-Id`, and on v1 `X-Timestamp` and `X-Signature-256` over
 * `<timestamp>.<body>`; a subscription that asked for them also gets
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` (W10). Success is a 2xx within `timeoutMs` (whole exchange).
 *
 * Sent through undici's handler API rather than `request()`: a profile of a
 * backlog drain showed the per-request AbortController, the response stream
 * and its async iterator among the dispatcher's top costs, and none of them
 * is needed to keep the first 1 KiB of a short answer (docs/decisions.md D14).
 */
export function sendDelivery(req: DeliveryRequest): Promise<AttemptResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'feira-webhooks/1',
    'x-webhook-id': req.webhookId,
  };
  if (req.secrets.length > 0) {
    headers['x-timestamp'] = String(req.timestamp);
    headers['x-signature-256'] = formatSignatureHeader(req.secrets.map((s) => signWebhook(s, req.timestamp, req.body)));
    if (req.standardWebhooks) {
      headers['webhook-id'] = req.webhookId;
      headers['webhook-timestamp'] = String(req.timestamp);
      headers['webhook-signature'] = req.secrets
        .map((s) => `v1,${signStandardWebhook(s, req.webhookId, req.timestamp, req.body)}`)
        .join(' ');
    }
  }
  const started = performance.now();
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    let abort: ((reason?: Error) => void) | null = null;
    let statusCode = 0;
    let rawHeaders: Buffer[] | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    let total = 0;

    const answered = () => {
      const ok = statusCode >= 200 && statusCode < 300;
      finish({
        ok,
        statusCode,
        error: ok ? null : `HTTP ${statusCode}`,
        responseBody: chunks.length > 0 ? storableText(Buffer.concat(chunks).toString('utf8')) : null,
        requestHeaders: headers,
        responseHeaders: keptResponseHeaders(rawHeaders),
        durationMs: Math.round(performance.now() - started),
        retryAfterMs: ok ? null : parseRetryAfter(retryAfterHeader(rawHeaders), req.now()),
      });
    };
    const failed = (error: unknown) =>
      finish({
        ok: false,
        statusCode: null,
        error: describe(error, timedOut),
        responseBody: null,
        requestHeaders: headers,
        durationMs: Math.round(performance.now() - started),
        retryAfterMs: null,
      });
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      // Still waiting for a connection (no abort handle yet): fail now; onConnect aborts it later.
      if (abort) abort(new Error('webhook delivery timed out'));
      else failed(null);
    }, req.timeoutMs);

    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (settled) abortRequest(new Error('webhook delivery timed out'));
      },
      onHeaders(code, headerList) {
        if (code < 200) return true; // 1xx: the final answer follows
        statusCode = code;
        rawHeaders = headerList as Buffer[];
        return true;
      },
      onData(chunk) {
        total += chunk.length;
        if (kept < RESPONSE_EXCERPT_BYTES) {
          const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (total > DRAIN_LIMIT_BYTES) {
          // Past the drain limit the connection is dropped; the status is the answer.
          answered();
          abort?.(new Error('webhook answer too long'));
        }
        return true;
      },
      onComplete() {
        answered();
      },
      onError(error) {
        failed(error);
      },
    };
    req.dispatcher.dispatch(
      { origin: req.target.origin, path: req.target.path, method: 'POST', headers, body: req.body },
      handler,
    );
  });
}
