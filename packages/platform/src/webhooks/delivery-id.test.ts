import { describe, expect, it } from 'vitest';
import { deliveryId } from './delivery-id.js';

// The webhook-delivery tests check the same ids against SQLite's and PostgreSQL's fan-outs.

describe('delivery ids', () => {
  const event = '0192f0a4-5c2e-7a10-8000-000000000001';
  const createdAt = '2026-11-25T21:30:00.123Z';

  it('spec-notes W5: one event and subscription give one id, every time; another subscription or event another id', () => {
    const id = deliveryId(event, 'sub-a', createdAt);
    expect(deliveryId(event, 'sub-a', createdAt)).toBe(id);
    expect(deliveryId(event, 'sub-b', createdAt)).not.toBe(id);
    expect(deliveryId('0192f0a4-5c2e-7a10-8000-000000000002', 'sub-a', createdAt)).not.toBe(id);
  });

  it('is a UUID v7 carrying the event’s creation time, so deliveries of later events sort after earlier ones', () => {
    const id = deliveryId(event, 'sub-a', createdAt);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.parse(createdAt));
    expect(deliveryId(event, 'sub-z', '2026-11-25T21:30:00.124Z') > deliveryId(event, 'sub-a', createdAt)).toBe(true);
  });
});
