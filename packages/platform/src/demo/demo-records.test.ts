import { describe, expect, it } from 'vitest';
import { createTestPlatform, testDatabaseTargets } from '../testing.js';
import { DEMO_PRODUCTS, DEMO_RECORD_COUNTS, seedDemoRecords } from './demo-records.js';

describe('seedDemoRecords', () => {
  it('fills every demo store with the demo counts and the fixed-SKU products, readable through the API', async () => {
    const platform = await createTestPlatform(testDatabaseTargets()[0]);
    try {
      const { tenantIds } = await platform.createSeller({ tenants: 2 });
      await seedDemoRecords(
        platform.app.platform,
        tenantIds.map((id) => ({ id })),
      );
      for (const tenant of tenantIds) {
        const token = await platform.mintAccessToken({ tenants: [tenant], scopes: ['open:portfolio:read'] });
        const page = await platform.app.inject({
          url: '/seller/v1/products?_limit=1',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(page.json().meta.total).toBe(DEMO_RECORD_COUNTS.products + DEMO_PRODUCTS.length);
        const fixed = await platform.app.inject({
          url: '/seller/v1/products?sku=CAM-AZUL-M',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(fixed.json().results).toEqual([expect.objectContaining({ sku: 'CAM-AZUL-M', price: 19.99 })]);
      }
    } finally {
      await platform.close();
    }
  });
});
