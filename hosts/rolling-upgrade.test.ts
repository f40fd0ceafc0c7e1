// A rolling upgrade across hosts (docs/deploy.md, "Upgrading host by host"):
// every host starts on the previous release (hosts/previous-release, built from
// this repository's history by hosts/release.ts), then each is replaced by this
// build one at a time under write load, as an operator would roll a fleet.
// The first host of this build migrates the schema while the previous release
// still serves and delivers on the other three. Run with `npm run test:hosts`.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../packages/platform/src/storage/migrations/index.js';
import type { TestPlatform } from '../packages/platform/src/testing.js';
import { allDelivered, operatorTool, releaseOperatorTool, type Store, subscribedStore, writeOrders } from './clients.js';
import { API_HOSTS, DISPATCHER_HOSTS, type FeiraHost, Hosts, RECEIVER_URL, THIS_BUILD, waitUntil } from './harness.js';
import { previousRelease, type Release } from './release.js';

let release: Release;
let hosts: Hosts;

async function appliedMigrations(tool: TestPlatform): Promise<string[]> {
  const rows = await tool.database.db
    .selectFrom('kysely_migration' as never)
    .select('name' as never)
    .execute();
  return (rows as { name: string }[]).map((r) => r.name).sort();
}

/** A seller API read with the store's token, on one host. */
async function readOrders(origin: string, store: Store): Promise<number> {
  const res = await request(`${origin}/v1/orders?_limit=5`, {
    headers: { authorization: `Bearer ${store.token}`, 'x-tenant-id': store.tenantId },
  });
  await res.body.dump();
  return res.statusCode;
}

describe('a rolling upgrade from the previous release', () => {
  beforeAll(async () => {
    // Builds the previous release once per machine (minutes), then reuses it.
    release = previousRelease();
    // Fails (does not skip) where namespaces cannot be made: the harness never falls back to loopback.
    hosts = await Hosts.start({ build: release.root });
  }, 1_200_000);

  afterAll(async () => {
    await hosts?.stop();
  }, 120_000);

  it('hosts replaced one at a time from the previous release to this build under write load: no write refused, every order delivered, tokens of the old release still accepted, the schema at this build', async () => {
    // The store is made as the previous release makes it, with its own tool: nothing newer touches the schema yet.
    const oldTool = await releaseOperatorTool(hosts, release.root);
    let store: Store;
    let before: string[];
    try {
      store = await subscribedStore(hosts, oldTool, RECEIVER_URL);
      before = await appliedMigrations(oldTool);
    } finally {
      await oldTool.close();
    }
    const current = Object.keys(migrations).sort();
    expect(before.length).toBeGreaterThan(0);
    // What the upgrade adds (none when this build has no migration newer than the release: then the test
    // still proves the procedure, and says so).
    const added = current.filter((name) => !before.includes(name));
    console.info(
      `rolling upgrade from ${release.commit.slice(0, 12)}: migrations added by this build: ${added.join(', ') || 'none'}`,
    );

    const inRotation = new Set<string>(API_HOSTS.map((h) => hosts.apiOrigin(h)));
    const inFlight = new Map<string, number>();
    const done = { value: false };
    const written: string[] = [];
    const failures = new Map<string, number>();
    const writer = (async () => {
      while (!done.value) {
        const batch = await writeOrders(() => [...inRotation], store.tenantId, 40, 4, inFlight);
        written.push(...batch.ids);
        for (const [k, v] of batch.failures) failures.set(k, (failures.get(k) ?? 0) + v);
      }
    })();
    const order: FeiraHost[] = [...API_HOSTS, ...DISPATCHER_HOSTS];
    const writtenAt = new Map<FeiraHost, number>();
    try {
      // Let the previous release take writes and deliver for a moment first.
      await waitUntil('writes on the previous release', 60_000, async () => written.length >= 40);
      for (const host of order) {
        if (host === 'api1' || host === 'api2') {
          // Out of the load balancer's rotation, drained, stopped, started on this build, ready, back in.
          const origin = hosts.apiOrigin(host);
          inRotation.delete(origin);
          await waitUntil(`${host} drained`, 30_000, async () => (inFlight.get(origin) ?? 0) === 0);
          await hosts.stopFeira(host);
          await hosts.startFeira(host, THIS_BUILD);
          inRotation.add(origin);
        } else {
          await hosts.stopFeira(host);
          await hosts.startFeira(host, THIS_BUILD);
        }
        writtenAt.set(host, written.length);
      }
      // Some writes after the last host, so the fleet of this build alone also takes writes.
      const last = written.length;
      await waitUntil('writes on this build', 60_000, async () => written.length >= last + 40);
    } finally {
      done.value = true;
      await writer;
    }
    expect(Object.fromEntries(failures)).toEqual({});
    for (const host of order) expect(hosts.buildOf(host)).toBe(THIS_BUILD);

    const tool = await operatorTool(hosts);
    try {
      expect(await appliedMigrations(tool)).toEqual(current);
      await allDelivered(hosts, tool, written, 180_000);
      // A token the previous release issued is still accepted by every host of this build.
      for (const host of API_HOSTS) expect(await readOrders(hosts.apiOrigin(host), store)).toBe(200);
    } finally {
      await tool.close();
    }
    console.info(
      `rolling upgrade: ${written.length} orders written during it (after each host: ${JSON.stringify(Object.fromEntries(writtenAt))}), all delivered`,
    );
  });
});
