import { measureInChild } from '../lib/measure-child.js';
import { type Figure, figure, type Scenario } from '../lib/scenario.js';
import { round } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';

const SIGN_WORKER = new URL('../processes/sign-worker.ts', import.meta.url);

/**
 * Issue 8, "Token endpoint": code exchanges/s and refreshes/s against jose
 * signing alone (the endpoint signs two tokens per exchange, so half the
 * signing rate is its ceiling on one core).
 */
export const tokenEndpoint: Scenario = {
  id: 'token-endpoint',
  title: 'Token endpoint',
  async unavailable() {
    return null;
  },
  async run(ctx) {
    const timing = timingFor(ctx.mode);
    const sign = (subject: 'jose' | 'token-signer') =>
      measureInChild(ctx.children, `signer ${subject}`, SIGN_WORKER, {
        subject,
        warmupMs: timing.microWarmupMs,
        durationMs: timing.microDurationMs,
      });
    const jose = await sign('jose');
    const signer = await sign('token-signer');
    const joseBaseline = { name: 'jose ES256 SignJWT alone', value: round(jose, 0), unit: 'signatures/s' };
    const figures: Figure[] = [
      figure('jose ES256 SignJWT alone', round(jose, 0), 'signatures/s'),
      figure('TokenSigner.sign (access token)', round(signer, 0), 'signatures/s', { baseline: joseBaseline }),
    ];
    ctx.notes.push('the token endpoint (code exchange, refresh) has not landed: only signing is measured');
    return figures;
  },
};
