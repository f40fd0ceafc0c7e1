import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { issueLeafCertificate, loadOrCreateLocalCa } from './local-ca.js';

describe('the sandbox local CA', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-ca-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is created once in the data folder (key 0600) and read back unchanged', () => {
    const first = loadOrCreateLocalCa(dir);
    expect(statSync(join(dir, 'local-ca-key.pem')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateLocalCa(dir)).toEqual(first);
  });

  it('signs a loopback server certificate that a client trusting only the CA accepts over TLS, for 127.0.0.1 and localhost', async () => {
    const ca = loadOrCreateLocalCa(dir);
    const leaf = issueLeafCertificate(ca);
    const server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const trusting = new Agent({ connect: { ca: ca.certPem } });
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const answer = await request(`https://${host}:${port}/`, { dispatcher: trusting });
        expect(await answer.body.text()).toBe('ok');
      }
      // And a client that does not trust the CA refuses it: the trust comes from the CA, nothing else.
      await expect(request(`https://127.0.0.1:${port}/`, { dispatcher: new Agent() })).rejects.toThrow();
    } finally {
      await trusting.close();
      server.close();
    }
  });
});
