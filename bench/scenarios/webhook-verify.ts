import type { Slice } from '../lib/micro-loop.js';
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

/** Rounds of slices per size: every verifier process gets one slice per round, in a rotated order. */
const ROUNDS = { quick: 5, full: 15 };
/**
 * Processes per verifier. One process's JIT and placement can be a few per cent
 * luckier or unluckier than another's for the whole run, so full mode spreads
 * each verifier over three (docs/decisions.md D29).
 */
const REPLICAS = { quick: 1, full: 3 };

/**
 * BENCHMARKS.md, "Webhook verify": verifications per CPU-second of the SDK's
 * `verifyWebhook` against svix, standardwebhooks and stripe on equally sized
 * valid messages. Each verifier lives in its own process (no shared JIT), and
 * they take turns: the measured time is cut into rounds, each giving every
 * verifier one slice, in an order rotated per round, and each slice counts the
 * CPU time it used. Measuring one library after another by wall clock let a
 * neighbour's burst on a 2-core machine decide the ratio, which swung widely
 * between runs; interleaved CPU-time slices see the same machine for all
 * (docs/decisions.md D29).
 */
export const webhookVerify: Scenario = {
  id: 'webhook-verify',
  title: 'Webhook verify (SDK)',
  async unavailable() {
    return null;
  },
  async run(ctx) {
    const timing = timingFor(ctx.mode);
    const rounds = ROUNDS[ctx.mode];
    const replicas = REPLICAS[ctx.mode];
    const sliceMs = timing.microDurationMs / rounds / replicas;
    /** Verifications per CPU-second of each verifier, interleaved (see above). */
    const measureAll = async (verifiers: VerifierName[], bytes: number) => {
      const workers = [];
      for (let copy = 0; copy < replicas; copy++) {
        for (const verifier of verifiers) {
          const role = replicas > 1 ? `verifier ${verifier} #${copy + 1}` : `verifier ${verifier}`;
          workers.push(await ctx.children.start(role, WORKER, { options: { verifier, bodyBytes: bytes } }));
        }
      }
      try {
        for (const worker of workers) await worker.call<Slice>('slice', { durationMs: timing.microWarmupMs });
        const totals = verifiers.map(() => ({ ops: 0, cpuMicros: 0 }));
        for (let r = 0; r < rounds; r++) {
          for (let k = 0; k < workers.length; k++) {
            const i = (r + k) % workers.length;
            const slice = await (workers[i] as (typeof workers)[number]).call<Slice>('slice', { durationMs: sliceMs });
            const total = totals[i % verifiers.length] as Slice;
            total.ops += slice.ops;
            total.cpuMicros += slice.cpuMicros;
          }
        }
        return totals.map((t) => (t.ops * 1e6) / Math.max(t.cpuMicros, 1));
      } finally {
        for (const worker of workers) await worker.stop();
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
    ctx.notes.push(
      `each verifier in ${replicas === 1 ? 'its own process' : `${replicas} processes of its own`}; ${rounds} interleaved rounds of ${round(sliceMs, 0)} ms slices per process and size; figures are verifications per CPU-second`,
    );

    const figures: Figure[] = [];
    for (const size of SIZES) {
      const [own = 0, ...peerOps] = await measureAll([subject, ...PEERS], size.bytes);
      const peers = PEERS.map((name, i) => ({ name, ops: peerOps[i] ?? 0 }));
      const fastest = peers.reduce((a, b) => (b.ops > a.ops ? b : a));
      const ratio = own / fastest.ops;
      figures.push(
        figure(`${subject} ${size.label}`, round(own, 0), 'verifications/CPU-s', {
          baseline: { name: `fastest peer (${fastest.name})`, value: round(fastest.ops, 0), unit: 'verifications/CPU-s' },
          target: { text: '≥ 1.0× the fastest peer', met: ratio >= 1.0 },
        }),
      );
      for (const peer of peers) figures.push(figure(`${peer.name} ${size.label}`, round(peer.ops, 0), 'verifications/CPU-s'));
      ctx.log(
        `${size.label}: ${subject} ${round(own, 0)}/CPU-s, ${peers.map((p) => `${p.name} ${round(p.ops, 0)}/CPU-s`).join(', ')}`,
      );
    }
    return figures;
  },
};
