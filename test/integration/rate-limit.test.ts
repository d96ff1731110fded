import { describe, expect, it } from 'vitest';
import { apiGet, approvedPartner } from '../support/partners';

describe('rate limit: exactly 120 requests per rolling 60 s per key', () => {
  it('answers 120 requests, refuses the 121st with 429 and Retry-After, and leaves other keys alone', async () => {
    const [busy, quiet] = await Promise.all([approvedPartner(), approvedPartner()]);

    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let batch = 0; batch < 12; batch++) {
      const responses = await Promise.all(Array.from({ length: 10 }, () => apiGet('/usage', busy.key)));
      for (const response of responses) {
        statuses.push(response.status);
        remaining.push(response.headers.get('x-ratelimit-remaining') ?? '');
      }
    }
    const refused = await apiGet('/usage', busy.key);
    const other = await apiGet('/usage', quiet.key);

    expect(statuses.filter((status) => status === 200)).toHaveLength(120);
    expect(remaining.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-policy')).toBe('"per-key";q=120;w=60');
    expect(refused.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('120');
    expect(refused.json.type).toContain('rate-limited');
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('119');
  });

  it('counts every authenticated request, whichever endpoint, and sends the headers on each', async () => {
    const partner = await approvedPartner();

    const first = await apiGet('/usage', partner.key);
    const second = await apiGet('/properties', partner.key);
    const third = await apiGet('/properties/1/pricing-signals?lookback_days=0', partner.key);

    expect([first.status, second.status, third.status]).toEqual([200, 200, 400]);
    expect([first, second, third].map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual([
      '119',
      '118',
      '117',
    ]);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });
});
