import { readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { partnerApiRoutes } from '../../core/routes';

describe('GET /openapi.json', () => {
  it('serves the committed OpenAPI 3.1 document without a key', async () => {
    const response = await fetch(`${inject('apiBaseUrl')}/openapi.json`);
    const served = (await response.json()) as { openapi: string; paths: Record<string, unknown> };

    expect(response.status).toBe(200);
    expect(served).toEqual(JSON.parse(await readFile('openapi/partner-api.json', 'utf8')));
    expect(served.openapi).toBe('3.1.0');
    for (const route of partnerApiRoutes) expect(served.paths[route.path]).toHaveProperty('get');
    expect(Object.keys(served.paths).some((path) => /webhook|operational-state|token/i.test(path))).toBe(
      false,
    );
  });
});
