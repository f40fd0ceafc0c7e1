import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from './verify-webhook.js';
import { WebhookVerificationError } from './webhook-verification-error.js';

// Vectors are produced here with node:crypto directly, independent of the SDK's code.
const SECRET = 'whsec_6fJxW2u3cQm1nq0kq9Y3hH0l7c3yqS2r7Zb0m8zT2Aw';
const OLD_SECRET = 'whsec_old_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const NOW = new Date('2026-01-15T12:00:00.000Z');
const TS = String(NOW.getTime() / 1000);
const BODY =
  '{"data":{"status":"CREATION","params":{"id":"7d1c"},"resource":"/seller/v0/tickets/7d1c"},"tenant_id":"0f8fad5b-d9cb-469f-a165-70867728950e","topic":"sac_ticket"}';

const sign = (secret: string, timestamp: string, body: string | Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(body)]))
    .digest('hex');

const headersFor = (signature: string, timestamp = TS) => ({ 'x-signature-256': signature, 'x-timestamp': timestamp });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
  return undefined;
}

describe('verifyWebhook', () => {
  it('spec Events/Signature rules 1-2: accepts HMAC-SHA256 hex of "<timestamp>.<raw body>" keyed by the whsec_ secret (spec-notes W2)', () => {
    const message = verifyWebhook({
      rawBody: BODY,
      headers: headersFor(`sha256=${sign(SECRET, TS, BODY)}`),
      secrets: SECRET,
      now: NOW,
    });
    expect(message.topic).toBe('sac_ticket');
    expect(message.data).toEqual({ status: 'CREATION', params: { id: '7d1c' }, resource: '/seller/v0/tickets/7d1c' });
    expect(message.tenant_id).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it('accepts the raw body as a Buffer and headers as a Fetch Headers object with any casing', () => {
    const headers = new Headers({ 'X-Signature-256': `sha256=${sign(SECRET, TS, BODY)}`, 'X-Timestamp': TS });
    expect(verifyWebhook({ rawBody: Buffer.from(BODY), headers, secrets: [SECRET], now: NOW }).topic).toBe('sac_ticket');
    const mixedCase = { 'X-Signature-256': `sha256=${sign(SECRET, TS, BODY)}`, 'X-TIMESTAMP': TS };
    expect(verifyWebhook({ rawBody: BODY, headers: mixedCase, secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
  });

  it('spec Events/Signature rule 3: during the platform rotation either comma-separated entry verifies (new first, old second)', () => {
    const both = `sha256=${sign(SECRET, TS, BODY)}, sha256=${sign(OLD_SECRET, TS, BODY)}`;
    expect(verifyWebhook({ rawBody: BODY, headers: headersFor(both), secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
    // A receiver that still only knows the old secret also accepts the message.
    expect(verifyWebhook({ rawBody: BODY, headers: headersFor(both), secrets: OLD_SECRET, now: NOW }).topic).toBe('sac_ticket');
  });

  it('accepts several receiver secrets (the receiver rotating its own configuration)', () => {
    const headers = headersFor(`sha256=${sign(OLD_SECRET, TS, BODY)}`);
    expect(verifyWebhook({ rawBody: BODY, headers, secrets: [SECRET, OLD_SECRET], now: NOW }).topic).toBe('sac_ticket');
  });

  it('ERR_SIGNATURE_MISMATCH: a body changed by one byte, a wrong secret, or a tampered timestamp is refused', () => {
    const signature = `sha256=${sign(SECRET, TS, BODY)}`;
    const tampered = BODY.replace('CREATION', 'DELETION');
    expect(codeOf(() => verifyWebhook({ rawBody: tampered, headers: headersFor(signature), secrets: SECRET, now: NOW }))).toBe(
      'ERR_SIGNATURE_MISMATCH',
    );
    expect(codeOf(() => verifyWebhook({ rawBody: BODY, headers: headersFor(signature), secrets: OLD_SECRET, now: NOW }))).toBe(
      'ERR_SIGNATURE_MISMATCH',
    );
    expect(
      codeOf(() =>
        verifyWebhook({ rawBody: BODY, headers: headersFor(signature, String(Number(TS) + 1)), secrets: SECRET, now: NOW }),
      ),
    ).toBe('ERR_SIGNATURE_MISMATCH');
  });

  it('a re-serialized body (whitespace changed) does not verify: the signature covers the raw bytes', () => {
    const signature = `sha256=${sign(SECRET, TS, BODY)}`;
    const reserialized = JSON.stringify(JSON.parse(BODY), null, 1);
    expect(
      codeOf(() => verifyWebhook({ rawBody: reserialized, headers: headersFor(signature), secrets: SECRET, now: NOW })),
    ).toBe('ERR_SIGNATURE_MISMATCH');
  });

  it('ERR_SIGNATURE_MISSING: no signature header, no timestamp header, or no sha256= entry', () => {
    expect(codeOf(() => verifyWebhook({ rawBody: BODY, headers: { 'x-timestamp': TS }, secrets: SECRET, now: NOW }))).toBe(
      'ERR_SIGNATURE_MISSING',
    );
    expect(
      codeOf(() =>
        verifyWebhook({
          rawBody: BODY,
          headers: { 'x-signature-256': `sha256=${sign(SECRET, TS, BODY)}` },
          secrets: SECRET,
          now: NOW,
        }),
      ),
    ).toBe('ERR_SIGNATURE_MISSING');
    expect(
      codeOf(() => verifyWebhook({ rawBody: BODY, headers: headersFor('sha1=abc, v1=zz'), secrets: SECRET, now: NOW })),
    ).toBe('ERR_SIGNATURE_MISSING');
  });

  it('a malformed entry next to a valid one is ignored, not fatal', () => {
    const header = `sha256=not-hex, sha256=${sign(SECRET, TS, BODY)}`;
    expect(verifyWebhook({ rawBody: BODY, headers: headersFor(header), secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
  });

  it('spec Events/Signature rule 2: a non-ASCII body verifies over its UTF-8 bytes, given as a string, a Buffer or a view into a larger buffer', () => {
    const body = BODY.replace('"7d1c"}', '"7d1c","note":"ação – 東京 🚚"}');
    const headers = headersFor(`sha256=${sign(SECRET, TS, body)}`);
    expect(verifyWebhook({ rawBody: body, headers, secrets: SECRET, now: NOW }).data.params).toEqual({
      id: '7d1c',
      note: 'ação – 東京 🚚',
    });
    expect(verifyWebhook({ rawBody: Buffer.from(body), headers, secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
    const bytes = Buffer.from(body);
    const inside = new Uint8Array(bytes.length + 8);
    inside.set(bytes, 4);
    const view = inside.subarray(4, 4 + bytes.length);
    expect(verifyWebhook({ rawBody: view, headers, secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
    // The same characters hashed as Latin-1 instead of UTF-8 would be another signature.
    const latin1Signature = createHmac('sha256', SECRET).update(`${TS}.`).update(body, 'latin1').digest('hex');
    expect(
      codeOf(() => verifyWebhook({ rawBody: body, headers: headersFor(`sha256=${latin1Signature}`), secrets: SECRET, now: NOW })),
    ).toBe('ERR_SIGNATURE_MISMATCH');
  });

  it('spec Events/Signature rule 3: an entry in upper-case hex verifies; a truncated or padded entry does not', () => {
    const signature = sign(SECRET, TS, BODY);
    const upper = headersFor(`sha256=${signature.toUpperCase()}`);
    expect(verifyWebhook({ rawBody: BODY, headers: upper, secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
    for (const entry of [signature.slice(0, 62), `${signature}00`, `${signature.slice(0, 63)}g`]) {
      expect(
        codeOf(() => verifyWebhook({ rawBody: BODY, headers: headersFor(`sha256=${entry}`), secrets: SECRET, now: NOW })),
      ).toBe('ERR_SIGNATURE_MISMATCH');
    }
  });

  it('a refused entry stays refused right after a valid delivery of the same message (nothing carries over between calls)', () => {
    const valid = headersFor(`sha256=${sign(SECRET, TS, BODY)}`);
    for (const entry of ['not-hex', sign(OLD_SECRET, TS, BODY), '']) {
      expect(verifyWebhook({ rawBody: BODY, headers: valid, secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
      expect(
        codeOf(() => verifyWebhook({ rawBody: BODY, headers: headersFor(`sha256=${entry}`), secrets: SECRET, now: NOW })),
      ).toBe('ERR_SIGNATURE_MISMATCH');
    }
  });

  it('spec-notes W8: timestamps within 300 s either way pass, 301 s is ERR_TIMESTAMP_OUT_OF_RANGE', () => {
    for (const offset of [-300, 300]) {
      const ts = String(Number(TS) + offset);
      const headers = headersFor(`sha256=${sign(SECRET, ts, BODY)}`, ts);
      expect(verifyWebhook({ rawBody: BODY, headers, secrets: SECRET, now: NOW }).topic).toBe('sac_ticket');
    }
    for (const offset of [-301, 301]) {
      const ts = String(Number(TS) + offset);
      const headers = headersFor(`sha256=${sign(SECRET, ts, BODY)}`, ts);
      expect(codeOf(() => verifyWebhook({ rawBody: BODY, headers, secrets: SECRET, now: NOW }))).toBe(
        'ERR_TIMESTAMP_OUT_OF_RANGE',
      );
    }
  });

  it('the tolerance is configurable, and a non-numeric timestamp is out of range', () => {
    const ts = String(Number(TS) - 60);
    const headers = headersFor(`sha256=${sign(SECRET, ts, BODY)}`, ts);
    expect(codeOf(() => verifyWebhook({ rawBody: BODY, headers, secrets: SECRET, now: NOW, toleranceSec: 30 }))).toBe(
      'ERR_TIMESTAMP_OUT_OF_RANGE',
    );
    const bad = '2026-01-15T12:00:00Z';
    expect(
      codeOf(() =>
        verifyWebhook({
          rawBody: BODY,
          headers: headersFor(`sha256=${sign(SECRET, bad, BODY)}`, bad),
          secrets: SECRET,
          now: NOW,
        }),
      ),
    ).toBe('ERR_TIMESTAMP_OUT_OF_RANGE');
  });

  it('ERR_PAYLOAD_INVALID: an authentic body that is not JSON or not a message', () => {
    for (const body of ['not json', '[]', '{"topic":"sac_ticket"}', BODY.replace('sac_ticket', 'no_such_topic')]) {
      const headers = headersFor(`sha256=${sign(SECRET, TS, body)}`);
      expect(codeOf(() => verifyWebhook({ rawBody: body, headers, secrets: SECRET, now: NOW }))).toBe('ERR_PAYLOAD_INVALID');
    }
  });

  it('spec Versioning rule 1: v0 messages carry no signature and are only parsed', () => {
    expect(verifyWebhook({ rawBody: BODY, headers: {}, version: 'v0' }).data.params.id).toBe('7d1c');
    expect(codeOf(() => verifyWebhook({ rawBody: '{', headers: {}, version: 'v0' }))).toBe('ERR_PAYLOAD_INVALID');
  });

  it('error messages never contain the secret or the signature', () => {
    const signature = sign(SECRET, TS, BODY);
    try {
      verifyWebhook({ rawBody: `${BODY} `, headers: headersFor(`sha256=${signature}`), secrets: SECRET, now: NOW });
      expect.unreachable();
    } catch (error) {
      const text = `${(error as Error).message} ${String(error)}`;
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(signature);
    }
  });

  it('a v1 verification without any secret is a programming error (TypeError), not a silent accept', () => {
    expect(() => verifyWebhook({ rawBody: BODY, headers: headersFor(`sha256=${sign(SECRET, TS, BODY)}`), secrets: [] })).toThrow(
      TypeError,
    );
  });
});

describe('verifyWebhook against the platform signer (@feira/contract signWebhook)', () => {
  it('spec Events/Signature: accepts what the platform signs, including a rotation header with two entries', async () => {
    const { signWebhook, formatSignatureHeader } = await import('@feira/contract');
    const header = formatSignatureHeader([signWebhook(SECRET, TS, BODY), signWebhook(OLD_SECRET, TS, BODY)]);
    // The two implementations agree byte for byte.
    expect(header.split(',')[0]).toBe(`sha256=${sign(SECRET, TS, BODY)}`);
    expect(verifyWebhook({ rawBody: Buffer.from(BODY), headers: headersFor(header), secrets: OLD_SECRET, now: NOW }).topic).toBe(
      'sac_ticket',
    );
    const forged = formatSignatureHeader([signWebhook('whsec_attacker', TS, BODY)]);
    expect(codeOf(() => verifyWebhook({ rawBody: BODY, headers: headersFor(forged), secrets: SECRET, now: NOW }))).toBe(
      'ERR_SIGNATURE_MISMATCH',
    );
  });
});
