import { type Figure, figure, type Scenario } from '../lib/scenario.js';
import { round } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';
import type { VerifierName } from '../processes/verify-worker.js';

const WORKER = new URL('../processes/verify-worker.ts', import.meta.url);
const PEERS: VerifierName[] = ['svix', 'standardwebhooks', 'stripe'];
const SIZES = [
  { label: '1 KiB', bytes: 1024 },
  { label: '64 KiB', bytes: 64 * 1024 },
];

/**
 * Issue 8, "Webhook verify (SDK)": verifications/s of the SDK's `verifyWebhook`
 * against svix, standardwebhooks and stripe on equally sized valid messages.
 * Each verifier runs alone in its own process, one after another, so none of
 * them shares a core or a JIT with another.
 */
export const webhookVerify: Scenario = {
  id: 'webhook-verify',
  title: 'Webhook verify (SDK)',
  async unavailable() {
    return null;
  },
  async run(ctx) {
    const timing = timingFor(ctx.mode);
    const measure = async (verifier: VerifierName, bytes: number) => {
      const worker = await ctx.children.start(`verifier ${verifier}`, WORKER, {
        options: { verifier, bodyBytes: bytes, warmupMs: timing.microWarmupMs, durationMs: timing.microDurationMs },
      });
      try {
        return await worker.call<number>('measure');
      } finally {
        await worker.stop();
      }
    };
    let sdkAvailable = true;
    try {
      await import('@feira/sdk').then((m) => {
        if (typeof (m as Record<string, unknown>).verifyWebhook !== 'function') throw new Error('no verifyWebhook export');
      });
    } catch {
      sdkAvailable = false;
    }
    const subject: VerifierName = sdkAvailable ? 'feira-sdk' : 'hmac-reference';
    if (!sdkAvailable)
      ctx.notes.push('the SDK has no verifyWebhook yet: a plain createHmac + timingSafeEqual reference stands in');
    ctx.notes.push('every verifier checks the signature and the timestamp and parses the JSON body, as each does by default');

    const figures: Figure[] = [];
    for (const size of SIZES) {
      const own = await measure(subject, size.bytes);
      const peers: Array<{ name: VerifierName; ops: number }> = [];
      for (const peer of PEERS) peers.push({ name: peer, ops: await measure(peer, size.bytes) });
      const fastest = peers.reduce((a, b) => (b.ops > a.ops ? b : a));
      const ratio = own / fastest.ops;
      figures.push(
        figure(`${subject} ${size.label}`, round(own, 0), 'verifications/s', {
          baseline: { name: `fastest peer (${fastest.name})`, value: round(fastest.ops, 0), unit: 'verifications/s' },
          target: { text: '≥ 1.0× the fastest peer', met: ratio >= 1.0 },
        }),
      );
      for (const peer of peers) figures.push(figure(`${peer.name} ${size.label}`, round(peer.ops, 0), 'verifications/s'));
      ctx.log(`${size.label}: ${subject} ${round(own, 0)}/s, ${peers.map((p) => `${p.name} ${round(p.ops, 0)}/s`).join(', ')}`);
    }
    return figures;
  },
};
