import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import {
  PartnerApiError,
  partnerApiGet,
  pricingSignals,
  properties,
  usage,
} from '../../docs/examples/partner-client';

describe('the quickstart client (docs/examples/partner-client.ts)', () => {
  it('reads all three endpoints with the demo key', async () => {
    const options = { baseUrl: inject('apiBaseUrl'), apiKey: inject('demoKey') };

    const seats = await usage(options);
    const list = await properties(options);
    const signals = await pricingSignals(options, list.properties[0]?.id ?? 0, 30);

    expect(seats.active_seats).toBeGreaterThan(0);
    expect(list.properties.length).toBeGreaterThan(0);
    expect(signals.signals.total_reservations).toBeGreaterThanOrEqual(0);
  });

  it('turns 401, 403 and 404 into errors that say which problem it was', async () => {
    const base = inject('apiBaseUrl');
    const attempt = (apiKey: string, path: string) =>
      partnerApiGet({ baseUrl: base, apiKey }, path).catch((error: unknown) => error);

    const unauthorized = await attempt('svc_wrong', '/usage');
    const forbidden = await attempt(inject('metricsOnlyKey'), '/properties');
    const missing = await attempt(inject('demoKey'), '/properties/999999/pricing-signals');

    expect(unauthorized).toMatchObject({ status: 401, type: expect.stringContaining('malformed-api-key') });
    expect(forbidden).toMatchObject({ status: 403, type: expect.stringContaining('insufficient-scope') });
    expect(missing).toBeInstanceOf(PartnerApiError);
    expect(missing).toMatchObject({ status: 404, requestId: expect.any(String) });
  });

  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    let calls = 0;
    const server = createServer((_, response) => {
      calls += 1;
      if (calls === 1) {
        response.writeHead(429, { 'Content-Type': 'application/problem+json', 'Retry-After': '1' });
        response.end(JSON.stringify({ type: 'rate-limited', status: 429, detail: 'slow down' }));
      } else {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ active_seats: 3, hosts: [], a_field_added_later: { nested: true } }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    try {
      const result = await usage({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: 'svc_x',
      });

      expect(result.active_seats).toBe(3);
      expect(calls).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    } finally {
      server.close();
    }
  });
});
