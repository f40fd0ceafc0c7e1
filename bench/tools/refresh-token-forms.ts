// The two forms of refresh token spec-notes I4a allows, as the token endpoint would run them per refresh
// (one token read, the next one issued), in one process, alternated five times so a busy neighbour moves
// both alike:
//   HS256:       signHs256 of the next token + verifyHs256 of the presented one (identity/refresh-token-jwt.ts);
//   stored hash: the next token written as the same JWT with no signature, hashed for its row, and the
//                presented one hashed to look its row up (the grant's claims read from that row, no signature check).
// ES256 (jose sign + verify, the form before I4a) is timed beside them for scale. Both allowed forms take the
// same statements (the refresh row is read and written once either way), so this is their whole difference.
// Reports CPU time per refresh (process.cpuUsage, which a neighbour moves less than wall time) and the median
// ratio stored hash ÷ HS256.
// Run: node --import tsx bench/tools/refresh-token-forms.ts
import { loadavg } from 'node:os';
import { generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { sha256Hex } from '../../packages/platform/src/core/hashing.js';
import { signHs256, verifyHs256 } from '../../packages/platform/src/identity/refresh-token-jwt.js';
import { refreshTokenKeys } from '../../packages/platform/src/identity/refresh-token-key.js';

const TYP = 'rt+jwt';
const keys = refreshTokenKeys(['a-server-secret-of-the-usual-length-0123']);
const claims = {
  iss: 'https://auth.feira.example',
  sub: '0b7c2f4e-5a61-4d8e-9f3a-2c1d0e9b8a76',
  aud: 'https://auth.feira.example/oauth/token',
  client_id: 'app_3kX9pQ2mZ7vL1nR8',
  scope: 'open:portfolio:read open:order-order:read',
  tenants: ['5f0e8d7c-6b5a-4938-8271-6a5b4c3d2e1f', '9e8d7c6b-5a49-4837-9261-5a4b3c2d1e0f'],
  fid: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
  iat: 1_764_000_000,
  exp: 1_766_592_000,
  jti: 'Qm9vb0Jvb0Jvb0Jvb0Jvbw',
};
const presented = signHs256(keys, TYP, claims);
const unsignedHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: TYP })).toString('base64url');

function hs256Refresh(): void {
  if (verifyHs256(keys, TYP, presented) === 'invalid') throw new Error('unreadable');
  signHs256(keys, TYP, claims);
}

function storedHashRefresh(): void {
  sha256Hex(presented);
  const next = `${unsignedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
  sha256Hex(next);
}

/** CPU microseconds per call of `fn`, over `ms` of wall time after a warm-up. */
function cpuMicrosPer(fn: () => void, ms: number): number {
  const warm = performance.now() + 200;
  while (performance.now() < warm) fn();
  const start = process.cpuUsage();
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 64; i++) fn();
    n += 64;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

async function es256CpuMicrosPer(ms: number): Promise<number> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const once = async () => {
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: TYP, kid: 'k' }).sign(privateKey);
    await jwtVerify(token, publicKey, { algorithms: ['ES256'], typ: TYP, currentDate: new Date(claims.iat * 1000) });
  };
  for (let i = 0; i < 50; i++) await once();
  const start = process.cpuUsage();
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    await once();
    n += 1;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

console.log(`load average at start: ${loadavg()[0]?.toFixed(2)}`);
const rounds: Array<{ hs256: number; hash: number; es256: number }> = [];
for (let round = 0; round < 5; round++) {
  const hs256 = cpuMicrosPer(hs256Refresh, 1000);
  const hash = cpuMicrosPer(storedHashRefresh, 1000);
  const es256 = await es256CpuMicrosPer(1000);
  rounds.push({ hs256, hash, es256 });
  console.log(
    `round ${round + 1}: HS256 ${hs256.toFixed(2)} µs, stored hash ${hash.toFixed(2)} µs, ES256 ${es256.toFixed(1)} µs of CPU per refresh`,
  );
}
console.log(
  `median: HS256 ${median(rounds.map((r) => r.hs256)).toFixed(2)} µs, stored hash ${median(rounds.map((r) => r.hash)).toFixed(2)} µs, ` +
    `ES256 ${median(rounds.map((r) => r.es256)).toFixed(1)} µs; stored hash ÷ HS256 ${median(rounds.map((r) => r.hash / r.hs256)).toFixed(2)}×, ` +
    `saved per refresh ${median(rounds.map((r) => r.hs256 - r.hash)).toFixed(2)} µs`,
);
console.log(`load average at end: ${loadavg()[0]?.toFixed(2)}`);
