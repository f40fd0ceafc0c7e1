// Token signing alone, in its own process: the ceiling under the token endpoint
// (every code exchange and refresh signs an access and a refresh token).
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { childOptions, serveChild } from '../lib/child-protocol.js';
import { asyncOpsPerSecond } from '../lib/micro-loop.js';

interface Options {
  subject: 'jose' | 'token-signer';
  warmupMs: number;
  durationMs: number;
}

const options = childOptions<Options>();
const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
const kid = 'bench-key';
const claims = () => ({
  iss: 'http://127.0.0.1',
  sub: randomUUID(),
  aud: 'http://127.0.0.1',
  client_id: 'client_bench',
  scope: 'open:order-order:read open:portfolio:read',
  tenants: [randomUUID()],
  fid: randomUUID(),
  iat: Math.floor(Date.now() / 1000),
  exp: Math.floor(Date.now() / 1000) + 7200,
  jti: randomUUID(),
});

async function signerFor(subject: Options['subject']): Promise<() => Promise<unknown>> {
  if (subject === 'jose') {
    return () => new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);
  }
  // The platform's own signer, on an in-memory key ring (no database: signing alone).
  const { cryptoRandom, systemClock, TokenSigner, refreshTokenKeys } = await import('@feira/platform');
  const signer = new TokenSigner({
    keyRing: {
      current: { kid, privateKey, publicJwk: await exportJWK(publicKey) },
      verificationKey: (asked: string) => (asked === kid ? publicKey : undefined),
    },
    refreshKeys: refreshTokenKeys(['bench-server-secret-not-for-production']),
    clock: systemClock,
    random: cryptoRandom,
    issuer: 'http://127.0.0.1',
    apiAudience: 'http://127.0.0.1',
  });
  return () =>
    signer.sign('at+jwt', {
      sellerId: randomUUID(),
      clientId: 'client_bench',
      scope: 'open:order-order:read open:portfolio:read',
      tenants: [randomUUID()],
      familyId: randomUUID(),
      ttlSeconds: 7200,
    });
}

const sign = await signerFor(options.subject);
await sign();
serveChild({}, { measure: () => asyncOpsPerSecond(sign, options.warmupMs, options.durationMs) });
