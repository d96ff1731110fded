import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';

let partner: TestPartner;
let propertyId: number;

beforeAll(async () => {
  partner = await approvedPartner();
  ({ propertyId } = await sponsoredProperty(partner.id, { name: 'Revalidated Loft' }));
});

const call = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${inject('apiBaseUrl')}${path}`, {
    method,
    headers: { Accept: 'application/json', Authorization: `Bearer ${partner.key}`, ...headers },
  });

describe('conditional requests (ETag, If-None-Match)', () => {
  const paths = () => ['/usage', '/properties', `/properties/${propertyId}/pricing-signals?lookback_days=30`];

  it('a GET’s 200 carries a weak ETag and private, no-cache; its HEAD carries the same tag', async () => {
    for (const path of paths()) {
      const get = await call(path);
      const head = await call(path, {}, 'HEAD');

      expect(get.status, path).toBe(200);
      expect(get.headers.get('etag'), path).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
      expect(get.headers.get('cache-control'), path).toBe('private, no-cache');
      expect(head.status, path).toBe(200);
      expect(head.headers.get('etag'), path).toBe(get.headers.get('etag'));
    }
  });

  it('answers 304 with no body and the rate-limit headers when the tag matches; the 304 counts', async () => {
    for (const path of paths()) {
      const first = await call(path);
      const tag = first.headers.get('etag') ?? '';
      const remainingBefore = Number(first.headers.get('x-ratelimit-remaining'));

      const revalidated = await call(path, { 'If-None-Match': tag });

      expect(revalidated.status, path).toBe(304);
      expect(await revalidated.text(), path).toBe('');
      expect(revalidated.headers.get('etag'), path).toBe(tag);
      expect(revalidated.headers.get('cache-control'), path).toBe('private, no-cache');
      expect(revalidated.headers.get('ratelimit'), path).toMatch(/^"per-key";r=\d+;t=\d+$/);
      expect(Number(revalidated.headers.get('x-ratelimit-remaining')), path).toBe(remainingBefore - 1);
      expect((await call(path, { 'If-None-Match': tag }, 'HEAD')).status, path).toBe(304);
    }
  });

  it('answers 200 with a new tag once the data changed, and 200 to a tag that never matched', async () => {
    const before = await call('/properties');
    const tag = before.headers.get('etag') ?? '';
    await sponsoredProperty(partner.id, { name: 'Second Loft' });

    const after = await call('/properties', { 'If-None-Match': tag });
    const stranger = await call('/usage', { 'If-None-Match': 'W/"not-a-tag-of-ours"' });

    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect(((await after.json()) as { properties: unknown[] }).properties).toHaveLength(2);
    expect(stranger.status).toBe(200);
  });

  it('keeps problems out of caches (no-store) and never answers 304 to a refused request', async () => {
    const tag = (await call('/usage')).headers.get('etag') ?? '';

    const refused = await call('/usage?partner_id=1', { 'If-None-Match': tag });

    expect(refused.status).toBe(400);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.headers.get('etag')).toBeNull();
  });
});
