import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';

const sqlite = testDatabaseTargets().find((t) => t.dialect === 'sqlite');

describe('GET / on the sandbox address', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(sqlite);
  });
  afterAll(async () => platform?.close());

  it('a browser opening the address is sent to the console', async () => {
    const page = await platform.app.inject({
      method: 'GET',
      url: '/',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(page.statusCode).toBe(302);
    expect(page.headers.location).toBe('/console');
  });

  it('a program gets where the console, the API docs, the OpenAPI document and health are, as JSON', async () => {
    const index = await platform.app.inject({ method: 'GET', url: '/', headers: { accept: 'application/json' } });
    expect(index.statusCode).toBe(200);
    expect(index.json()).toEqual({
      name: 'Feira',
      links: {
        console: '/console',
        operator_console: '/console/operator',
        docs: '/docs',
        openapi: '/openapi.json',
        health: '/health',
      },
    });
  });
});
