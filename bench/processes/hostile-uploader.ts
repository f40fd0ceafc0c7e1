// The tenant-isolation scenario's hostile store: uploads the three hostile
// freight files (a shared-strings bomb, a huge inline cell, a CSV with a 30 MB
// cell) to its own store, two at a time, without pause, until told to stop.
// A process of its own so the scenario can set its priority apart from the
// victims' load generators (bench/scenarios/tenant-isolation.ts).
import { request } from 'undici';
import { VTEX_HEADER } from '../../packages/platform/test/shipping/freight-kit.js';
import { hugeInlineCell, sharedStringsBomb } from '../../packages/platform/test/shipping/xlsx-bombs.js';
import { serveChild } from '../lib/child-protocol.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Uploads two at a time, as a seller's two browser tabs or a script would. */
const LANES = 2;
/** A bound on the loop whatever happens to `stop`. */
const MAX_UPLOADS = 100_000;

export interface HostileUploads {
  origin: string;
  tenantId: string;
  /** The admin token: the admin API's freight-table PUT runs the same reader and bounds as the seller's. */
  adminToken: string;
}

export interface UploadTally {
  sent: number;
  elapsedMs: number;
  /** Answers by status, or the socket error where the platform closed the connection on a refused body. */
  statuses: Record<string, number>;
}

function hostileFiles(): Array<{ contentType: string; body: Buffer }> {
  const cell = 'x'.repeat(30 * 1024 * 1024);
  return [
    { contentType: XLSX, body: sharedStringsBomb().zip },
    { contentType: XLSX, body: hugeInlineCell().zip },
    { contentType: 'text/csv', body: Buffer.from(`${VTEX_HEADER}\n01000000;01999999;${cell};0;30000;12,90;0;0;;3;BRA;0\n`) },
  ];
}

const files = hostileFiles();
let running: { stop: () => Promise<UploadTally> } | null = null;

function start({ origin, tenantId, adminToken }: HostileUploads): void {
  if (running) throw new Error('already uploading');
  const tally: UploadTally = { sent: 0, elapsedMs: 0, statuses: {} };
  const started = performance.now();
  let stopped = false;
  const lane = async (lane: number) => {
    for (let n = lane; !stopped && n < MAX_UPLOADS; n += LANES) {
      const file = files[n % files.length] as (typeof files)[number];
      let status: string;
      try {
        const response = await request(`${origin}/admin/v1/tenants/${tenantId}/shipping/freight-tables/hostile-${lane}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': file.contentType },
          body: file.body,
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        await response.body.dump();
        status = String(response.statusCode);
      } catch (error) {
        // A refused upload's connection may be closed before its body is sent whole.
        status = (error as { code?: string }).code ?? 'error';
      }
      tally.sent += 1;
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
    }
  };
  const lanes = Promise.all(Array.from({ length: LANES }, (_, n) => lane(n)));
  running = {
    stop: async () => {
      stopped = true;
      await lanes;
      tally.elapsedMs = performance.now() - started;
      running = null;
      return tally;
    },
  };
}

serveChild(
  { lanes: LANES },
  {
    start: (args) => start(args as HostileUploads),
    stop: () => running?.stop() ?? null,
  },
  async () => {
    await running?.stop();
  },
);
