import { beforeAll, describe, expect, inject, it } from 'vitest';
import { API_BASE_PATH } from '../../core/routes';
import { bulkProperties } from '../support/bulk-properties';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner } from '../support/partners';

const COUNT = 10_000;

interface Page {
  readonly status: number;
  readonly properties: { id: number; name: string }[];
  readonly next: string | undefined;
  readonly link: string | null;
  readonly json: Record<string, unknown>;
}

/** One page, and the next page's URL from its Link header, resolved against the request URL. */
async function page(url: string, key: string): Promise<Page> {
  const response = await fetch(url, {
    headers: { Accept: 'application/json', Authorization: `Bearer ${key}` },
  });
  const json = (await response.json()) as Record<string, unknown>;
  const link = response.headers.get('link');
  const target = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
  return {
    status: response.status,
    properties: (json.properties ?? []) as { id: number; name: string }[],
    next: target === undefined ? undefined : new URL(target, url).toString(),
    link,
    json,
  };
}

async function walk(key: string, limit: number, between?: (pageNumber: number) => Promise<void>) {
  const seen: { id: number; name: string }[] = [];
  let url: string | undefined = `${inject('apiBaseUrl')}/properties?limit=${limit}`;
  let pages = 0;
  while (url) {
    const current = await page(url, key);
    expect(current.status, url).toBe(200);
    expect(current.properties.length).toBeLessThanOrEqual(limit);
    seen.push(...current.properties);
    pages += 1;
    url = current.next;
    if (url) await between?.(pages);
  }
  return { seen, pages };
}

let partner: TestPartner;
let other: TestPartner;
let ids: number[];

beforeAll(async () => {
  [partner, other] = await Promise.all([approvedPartner(), approvedPartner()]);
  ids = await bulkProperties(partner.id, 30_000_000 + partner.id * 100_000, COUNT);
  await bulkProperties(other.id, 30_000_000 + other.id * 100_000, 5);
}, 180_000);

describe('GET /properties in pages (limit and cursor)', () => {
  it('walking the pages of 10,000 properties returns exactly the whole list, in id order', async () => {
    const whole = await apiGet('/properties', partner.key);
    const { seen, pages } = await walk(partner.key, 1_000);

    expect(whole.status).toBe(200);
    expect(pages).toBe(10);
    expect(seen).toEqual(whole.json.properties);
    expect(seen.map((property) => property.id)).toEqual(ids);
  });

  it('gives the same fields as the whole list, and a Link to the next page until the last', async () => {
    const first = await page(`${inject('apiBaseUrl')}/properties?limit=3`, partner.key);
    const last = await page(`${inject('apiBaseUrl')}/properties?limit=1000`, other.key);

    expect(Object.keys(first.json).sort()).toEqual(['generated_at', 'partner_id', 'properties']);
    expect(first.properties.map((property) => property.id)).toEqual(ids.slice(0, 3));
    expect(first.link).toMatch(
      new RegExp(`^<${API_BASE_PATH}/properties\\?limit=3&cursor=[A-Za-z0-9_-]{34}>; rel="next"$`),
    );
    expect(last.properties).toHaveLength(5);
    expect(last.link).toBeNull();
  });

  it('a property added between pages whose id sorts after the cursor is neither lost nor duplicated', async () => {
    const added: number[] = [];
    const { seen } = await walk(partner.key, 1_000, async (pageNumber) => {
      if (pageNumber !== 3) return;
      // Ids come from a counter, so a new property's id is above every earlier one.
      const next = 30_000_000 + partner.id * 100_000 + COUNT + added.length;
      added.push(...(await bulkProperties(partner.id, next, 1)));
    });
    const seenIds = seen.map((property) => property.id);

    expect(added).toHaveLength(1);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    expect(seenIds).toEqual([...ids, ...added]);
  });

  it('refuses an altered cursor and another partner’s cursor with a 400, never with data', async () => {
    const foreign = await page(`${inject('apiBaseUrl')}/properties?limit=2`, other.key);
    const own = await page(`${inject('apiBaseUrl')}/properties?limit=2`, partner.key);
    const foreignCursor = new URL(foreign.next ?? '').searchParams.get('cursor') ?? '';
    const ownCursor = new URL(own.next ?? '').searchParams.get('cursor') ?? '';
    const altered = `${ownCursor.slice(0, 5)}${ownCursor[5] === 'A' ? 'B' : 'A'}${ownCursor.slice(6)}`;

    for (const cursor of [foreignCursor, altered, 'not-a-cursor']) {
      const refused = await apiGet(`/properties?limit=2&cursor=${encodeURIComponent(cursor)}`, partner.key);

      expect(refused.status, cursor).toBe(400);
      expect(refused.json).toMatchObject({
        type: 'https://developers.example.com/partner-api/problems/invalid-request',
        detail: expect.stringContaining('cursor is not one this API gave your account'),
      });
      expect(refused.text).not.toContain('Holiday apartment');
    }
  });

  it('refuses a limit out of range and a cursor without limit, naming the parameter', async () => {
    const zero = await apiGet('/properties?limit=0', partner.key);
    const tooMany = await apiGet('/properties?limit=1001', partner.key);
    const cursorAlone = await apiGet('/properties?cursor=abc', partner.key);

    expect([zero.status, tooMany.status, cursorAlone.status]).toEqual([400, 400, 400]);
    expect(zero.json.detail).toBe('limit must be an integer from 1 to 1000; got "0".');
    expect(cursorAlone.json.detail).toMatch(/^cursor goes with limit/);
  });
});
