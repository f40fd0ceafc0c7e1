// `feira freight import` against the real platform on a loopback socket
// (spec-notes Q8): the spreadsheet is streamed to the table, and a refused
// one is reported cell by cell with exit code 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ListeningPlatform, listenPlatform, TEST_ADMIN_TOKEN } from '@feira/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const HEADER =
  'ZipCodeStart;ZipCodeEnd;PolygonName;WeightStart;WeightEnd;AbsoluteMoneyCost;PricePercent;PriceByExtraWeight;MaxVolume;TimeCost;Country;MinimumValueInsurance';

describe('feira freight import', () => {
  let platform: ListeningPlatform;
  let tenantId: string;
  let dir: string;
  beforeAll(async () => {
    platform = await listenPlatform();
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
    dir = mkdtempSync(join(tmpdir(), 'feira-freight-'));
  });
  afterAll(async () => {
    await platform.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (file: string) =>
    runCli(
      [
        'freight',
        'import',
        file,
        '--tenant',
        tenantId,
        '--table',
        'normal',
        '--name',
        'Normal',
        '--url',
        platform.url,
        '--no-progress',
      ],
      {
        env: { FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      },
    );

  it('spec-notes Q8: streams a spreadsheet into a table; a bad one is listed cell by cell with exit code 1 and changes nothing', {
    timeout: 180_000,
  }, async () => {
    const good = join(dir, 'good.csv');
    const rows = Array.from({ length: 5000 }, (_, i) => {
      const start = String(i * 10_000).padStart(8, '0');
      const end = String(i * 10_000 + 9999).padStart(8, '0');
      return `${start};${end};;0;30000;12,90;0;0;;3;BRA;0`;
    });
    writeFileSync(good, `${HEADER}\n${rows.join('\n')}\n`);
    const imported = await run(good);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('table normal: 5000 rows created');

    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, `${HEADER}\n01000000;0199999;;0;1000;x;0;0;;3;BRA;0\n`);
    const refused = await run(bad);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('422');
    expect(refused.stderr).toContain('line 2, ZipCodeEnd: must be a zipcode of exactly 8 digits');
    expect(refused.stderr).toContain('line 2, AbsoluteMoneyCost');

    const table = await platform.app.inject({
      method: 'GET',
      url: `/admin/v1/tenants/${tenantId}/shipping/freight-tables/normal`,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(table.json().row_count).toBe(5000);
  });

  it("a new table without --name: the API's refusal keeps its field, with the flag that sets it", {
    timeout: 120_000,
  }, async () => {
    const file = join(dir, 'unnamed.csv');
    writeFileSync(file, `${HEADER}\n01000000;01999999;;0;1000;12,90;0;0;;3;BRA;0\n`);
    const refused = await runCli(
      ['freight', 'import', file, '--tenant', tenantId, '--table', 'unnamed', '--url', platform.url, '--no-progress'],
      { env: { FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN } },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^ {2}name: .*\(--name\)$/m);
  });
});
