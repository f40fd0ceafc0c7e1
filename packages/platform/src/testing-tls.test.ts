import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, get } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTls, writeTestTlsFiles } from './testing-tls.js';

// @feira/platform/testing carries its TLS material in code (the package ships dist/ only).

describe('test TLS material', () => {
  it.each(['127.0.0.1', 'localhost'])(
    'a server with key + cert is trusted as %s by a client that trusts only ca',
    async (name) => {
      const server = createServer({ key: testTls.key, cert: testTls.cert }, (_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const body = await new Promise<string>((resolve, reject) => {
          // The name the client checks the certificate against: the IP itself, or localhost through SNI.
          get({ host: '127.0.0.1', port, path: '/', ca: testTls.ca, servername: name === 'localhost' ? name : '' }, (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve(text));
          }).on('error', reject);
        });
        expect(body).toBe('ok');
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  it('writeTestTlsFiles writes the same PEMs as files for processes that take paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-tls-'));
    try {
      const files = writeTestTlsFiles(dir);
      expect(readFileSync(files.ca, 'utf8')).toBe(testTls.ca);
      expect(readFileSync(files.cert, 'utf8')).toBe(testTls.cert);
      expect(readFileSync(files.key, 'utf8')).toBe(testTls.key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
