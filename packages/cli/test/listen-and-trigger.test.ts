import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackgroundWorkers, startBackgroundWorkers } from '@feira/platform';
import {
  type ListeningPlatform,
  listenPlatform,
  pollUntil,
  TEST_ADMIN_TOKEN,
  testDatabaseTargets,
  testTls,
  writeTestTlsFiles,
} from '@feira/platform/testing';
import { createWebhookHandler, FeiraClient, type WebhookMessage } from '@feira/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from './support/run-cli.js';

describe.each(testDatabaseTargets())(
  'feira listen + feira trigger as processes against the real platform ($dialect)',
  (target) => {
    let platform: ListeningPlatform;
    let workers: BackgroundWorkers;
    let tenantId: string;
    let accessToken: string;
    let app: Server;
    let appUrl: string;
    let secrets: string[] = [];
    const received: Array<{ message: WebhookMessage; record: unknown }> = [];
    let listen: ReturnType<typeof startCli>;
    const lines: Array<Record<string, unknown>> = [];

    const tlsDir = mkdtempSync(join(tmpdir(), 'feira-listen-tls-'));
    const tlsFiles = writeTestTlsFiles(tlsDir);

    beforeAll(async () => {
      platform = await listenPlatform(target, { outboundCa: testTls.ca });
      workers = await startBackgroundWorkers(platform.app.platform, { dispatcher: true });
      ({
        tenantIds: [tenantId = ''],
      } = await platform.createSeller({ tenants: 1 }));
      accessToken = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:ticket:read', 'open:webhook:write'] });
      // The developer's app: verifies with the secrets `feira listen` printed and reads the record through the API.
      const api = new FeiraClient({ baseUrl: platform.url, accessToken });
      app = createServer(
        createWebhookHandler({
          get secrets() {
            return secrets;
          },
          now: () => platform.clock.now(),
          onMessage: async (message) => {
            const record = message.data.status === 'DELETION' ? null : await api.get(message.data.resource);
            received.push({ message, record });
          },
        }),
      );
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;

      listen = startCli(
        [
          'listen',
          '--forward-to',
          appUrl,
          '--url',
          platform.url,
          '--tls-cert',
          tlsFiles.cert,
          '--tls-key',
          tlsFiles.key,
          '--json',
        ],
        { FEIRA_ACCESS_TOKEN: accessToken },
      );
      let buffer = '';
      listen.stdout.on('data', (chunk) => {
        buffer += chunk;
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Record<string, unknown>);
      });
      let stderr = '';
      listen.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const ready = await pollUntil(
        'the ready line of feira listen',
        () =>
          lines.find((l) => l.type === 'ready') ?? (stderr.includes('feira listen:') ? { type: 'failed', stderr } : undefined),
        { deadlineMs: 60_000 },
      );
      expect(ready.type, String(ready.stderr ?? '')).toBe('ready');
      secrets = (ready.subscriptions as Array<{ secret: string }>).map((s) => s.secret);
    });

    afterAll(async () => {
      if (listen && listen.exitCode === null) {
        listen.kill('SIGTERM');
        await new Promise((resolve) => listen.once('exit', resolve));
      }
      await workers?.stop();
      app?.closeAllConnections();
      await new Promise((resolve) => app?.close(resolve));
      await platform?.close();
      rmSync(tlsDir, { recursive: true, force: true });
    });

    it('spec "Webhook subscription" v1 / spec-notes W1-W2: listen signs up its HTTPS receiver and prints a whsec_ secret per topic', () => {
      const ready = lines.find((l) => l.type === 'ready')!;
      expect(String(ready.receiver_url)).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      const subscriptions = ready.subscriptions as Array<{ topic: string; secret: string }>;
      expect(subscriptions.map((s) => s.topic)).toEqual(['sac_ticket']);
      expect(subscriptions[0]?.secret).toMatch(/^whsec_/);
    });

    it('spec Service 2 / Events rule 1: trigger creates a ticket; the signed delivery reaches the app byte for byte, verifies, and the record is read; listen prints the 200', async () => {
      const run = await runCli(['trigger', 'sac_ticket', '--url', platform.url, '--tenant', tenantId, '--json'], {
        env: { FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      });
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { record_id: string; events: string[] };
      expect(result.events).toEqual(['CREATION']);
      const delivered = await pollUntil('the app to receive the ticket', () =>
        received.find((r) => r.message.data.params.id === result.record_id),
      );
      expect(delivered.message.topic).toBe('sac_ticket');
      expect(delivered.message.data.status).toBe('CREATION');
      expect(delivered.record).toMatchObject({ id: result.record_id });
      const line = await pollUntil('the delivery line', () =>
        lines.find((l) => l.type === 'delivery' && String(l.resource).endsWith(result.record_id)),
      );
      expect(line).toMatchObject({ topic: 'sac_ticket', status: 'CREATION', signed: true, receiver_status: 200 });
    }, 120_000);

    it('spec Events statuses / Events rule 2: trigger --action delete flows a CREATION then a DELETION; the admin token never appears in output', async () => {
      const run = await runCli(['trigger', 'sac_ticket', '--url', platform.url, '--tenant', tenantId, '--action', 'delete'], {
        env: { FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^CREATION \+ DELETION of sac_ticket [0-9a-f-]{36} in tenant /);
      const id = /sac_ticket ([0-9a-f-]{36})/.exec(run.stdout)?.[1];
      await pollUntil('the DELETION delivery', () =>
        received.find((r) => r.message.data.params.id === id && r.message.data.status === 'DELETION'),
      );
      const bad = await runCli([
        'trigger',
        'order',
        '--url',
        platform.url,
        '--tenant',
        tenantId,
        '--admin-token',
        'wrong-token-abcdef',
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('401');
      expect(bad.stderr + bad.stdout).not.toContain('wrong-token-abcdef');
    }, 120_000);
  },
);
