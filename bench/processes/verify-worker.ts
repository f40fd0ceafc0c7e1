// One webhook verifier in its own process, measured in slices on request:
// verifications and the CPU time they took on a valid message (signature
// checked, timestamp checked, JSON parsed, as each library does by default).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { childOptions, serveChild } from '../lib/child-protocol.js';
import { sliceOf } from '../lib/micro-loop.js';
import { paddedWebhookBody } from './webhook-message.js';

export type VerifierName = 'feira-sdk' | 'hmac-reference' | 'svix' | 'standardwebhooks' | 'stripe';

interface Options {
  verifier: VerifierName;
  bodyBytes: number;
}

const options = childOptions<Options>();
const body = paddedWebhookBody(options.bodyBytes);
const keyBytes = randomBytes(32);
const nowSeconds = Math.floor(Date.now() / 1000);

async function verifierFor(name: VerifierName): Promise<() => unknown> {
  switch (name) {
    case 'feira-sdk': {
      const { verifyWebhook } = await import('@feira/sdk');
      // spec-notes W2: the key is the whole `whsec_` string as UTF-8.
      const secret = `whsec_${keyBytes.toString('base64url')}`;
      const timestamp = String(nowSeconds);
      const headers = {
        'x-signature-256': `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
        'x-timestamp': timestamp,
      };
      return () => verifyWebhook({ rawBody: body, headers, secrets: secret });
    }
    case 'hmac-reference': {
      // The least a correct verifier does: one HMAC, a constant-time compare, a timestamp check, JSON.parse.
      const secret = `whsec_${keyBytes.toString('base64url')}`;
      const timestamp = String(nowSeconds);
      const header = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
      return () => {
        const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
        const received = Buffer.from(header.slice(7), 'hex');
        if (received.length !== expected.length || !timingSafeEqual(expected, received)) throw new Error('mismatch');
        if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > 300) throw new Error('too old');
        return JSON.parse(body);
      };
    }
    case 'svix': {
      const { Webhook } = await import('svix');
      const secret = `whsec_${keyBytes.toString('base64')}`;
      const wh = new Webhook(secret);
      const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
      const headers = {
        'svix-id': id,
        'svix-timestamp': String(nowSeconds),
        'svix-signature': wh.sign(id, new Date(nowSeconds * 1000), body),
      };
      return () => wh.verify(body, headers);
    }
    case 'standardwebhooks': {
      const { Webhook } = await import('standardwebhooks');
      const wh = new Webhook(keyBytes.toString('base64'));
      const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(nowSeconds),
        'webhook-signature': wh.sign(id, new Date(nowSeconds * 1000), body),
      };
      return () => wh.verify(body, headers);
    }
    case 'stripe': {
      const { default: Stripe } = await import('stripe');
      const stripe = new Stripe('sk_test_bench_not_a_real_key');
      const secret = `whsec_${keyBytes.toString('base64url')}`;
      const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds });
      return () => stripe.webhooks.constructEvent(body, header, secret);
    }
  }
}

const verify = await verifierFor(options.verifier);
verify(); // a verifier that rejects the message would be measuring its error path: fail loudly instead
serveChild(
  {},
  {
    /** A slice of `durationMs`: `{ops, cpuMicros}` (a warm-up is a slice whose answer is thrown away). */
    slice: (args) => sliceOf(verify, (args as { durationMs: number }).durationMs),
  },
);
