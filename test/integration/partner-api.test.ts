import { beforeAll, describe, expect, inject, it } from 'vitest';
import { BASE_SCOPES, GRANTABLE_SCOPES, missingScopeDetail } from '../../core/domain/scopes';
import { API_BASE_PATH, partnerApiRoutes, publicApiRoutes } from '../../core/routes';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, sponsoredProperty } from '../support/partners';
import { NO_RESERVATION_SIGNALS } from '../support/pricing-fixtures';

const PROBLEM = 'application/problem+json';

let revenuePartner: TestPartner;
let metricsPartner: TestPartner;
let otherPartner: TestPartner;
let ownPropertyId: number;
let foreignPropertyId: number;

beforeAll(async () => {
  [revenuePartner, metricsPartner, otherPartner] = await Promise.all([
    approvedPartner({ revenue: true }),
    approvedPartner({ revenue: false, products: ['assistant'] }),
    approvedPartner({ revenue: true }),
  ]);
  const own = await sponsoredProperty(revenuePartner.id, {
    email: 'Owner@Example.com',
    name: 'Dune House',
    products: ['assistant', 'upsells'],
  });
  await sponsoredProperty(revenuePartner.id, {
    email: 'owner@example.COM',
    name: 'Dune House Annex',
    products: ['guidebook'],
  });
  const foreign = await sponsoredProperty(otherPartner.id, { name: 'Somebody Else’s Villa' });
  ownPropertyId = own.propertyId;
  foreignPropertyId = foreign.propertyId;
});

describe('200 with a valid key', () => {
  it('GET /usage reports seats per host with exactly the documented fields and no e-mail', async () => {
    const { status, json, text, headers } = await apiGet('/usage', revenuePartner.key);

    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(Object.keys(json).sort()).toEqual(['active_seats', 'generated_at', 'hosts', 'partner_id']);
    expect(json).toMatchObject({ partner_id: revenuePartner.id, active_seats: 3 });
    expect(json.hosts).toEqual([{ host_user_id: expect.any(Number), active_seats: 3 }]);
    expect(new Date(String(json.generated_at)).toISOString()).toBe(json.generated_at);
    expect(text).not.toMatch(/@|owner/i);
  });

  it('GET /properties lists id and name of the partner’s own properties only', async () => {
    const { status, json } = await apiGet('/properties', revenuePartner.key);

    expect(status).toBe(200);
    expect(Object.keys(json).sort()).toEqual(['generated_at', 'partner_id', 'properties']);
    expect(json.properties).toEqual([
      { id: ownPropertyId, name: 'Dune House' },
      { id: expect.any(Number), name: 'Dune House Annex' },
    ]);
  });

  it('GET pricing-signals answers zeros for a property without reservations', async () => {
    const { status, json } = await apiGet(`/properties/${ownPropertyId}/pricing-signals`, revenuePartner.key);

    expect(status).toBe(200);
    expect(Object.keys(json).sort()).toEqual(['occupancy_30d', 'property_id', 'signals']);
    expect(json.signals).toEqual(NO_RESERVATION_SIGNALS);
    expect(Object.keys(json.occupancy_30d as object)).toHaveLength(30);
  });

  it('accepts the key in X-Enterprise-Key as well', async () => {
    const { status } = await apiGet('/usage', undefined, { 'X-Enterprise-Key': metricsPartner.key });

    expect(status).toBe(200);
  });

  it('works with the demo key that npm start prints', async () => {
    const { status, json } = await apiGet('/properties', inject('demoKey'));

    expect(status).toBe(200);
    expect((json.properties as unknown[]).length).toBeGreaterThan(0);
  });
});

describe('401: missing or bad keys, each with its own problem type', () => {
  it.each([
    ['missing', {}, 'missing-api-key'],
    ['empty Bearer (an unset variable)', { Authorization: 'Bearer ' }, 'missing-api-key'],
    ['malformed', { Authorization: 'Bearer not-a-key' }, 'malformed-api-key'],
    ['non-Bearer', { Authorization: 'Basic dXNlcjpwYXNz' }, 'malformed-api-key'],
    [
      // Right length and alphabet, so only the checksum refuses it (a never-issued key that
      // passes it is the unknown-key case below).
      'bad-checksum',
      { Authorization: 'Bearer svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      'malformed-api-key',
    ],
  ])('%s key', async (_, headers, problem) => {
    const { status, json, headers: responseHeaders } = await apiGet('/usage', undefined, headers);

    expect(status).toBe(401);
    expect(responseHeaders.get('content-type')).toBe(PROBLEM);
    expect(json).toMatchObject({
      type: `https://developers.example.com/partner-api/problems/${problem}`,
      status: 401,
    });
    expect(json.request_id).toBe(responseHeaders.get('x-amzn-requestid'));
  });

  it('a well-formed key that was never issued is unknown', async () => {
    const { generateApiKey } = await import('../../core/domain/api-key');

    const { status, json, headers } = await apiGet('/usage', generateApiKey().key);

    expect(status).toBe(401);
    expect(headers.get('content-type')).toBe(PROBLEM);
    expect(json).toMatchObject({
      type: 'https://developers.example.com/partner-api/problems/unknown-api-key',
      status: 401,
    });
  });
});

describe('403: a valid key without the scope', () => {
  it.each(['/properties', '/properties/1/pricing-signals'])(
    'GET %s with a metrics-only key',
    async (path) => {
      const { status, json, headers } = await apiGet(path, metricsPartner.key);

      expect(status).toBe(403);
      expect(headers.get('content-type')).toBe(PROBLEM);
      expect(json.type).toContain('insufficient-scope');
      expect(headers.get('ratelimit')).toMatch(/^"per-key";r=\d+;t=\d+$/);
    },
  );

  // Each route whose scope is not a base scope, to a key with every scope but that one: the route
  // table's scope gates it, and the 403 names the scope and the agreement it comes with.
  it.each(
    partnerApiRoutes
      .filter((route) => !BASE_SCOPES.includes(route.scope))
      .map((route) => [`${route.method} ${route.path}`, route] as const),
  )('%s with a key holding every scope but its own', async (_, route) => {
    const partner = await approvedPartner({
      scopes: GRANTABLE_SCOPES.filter((scope) => scope !== route.scope),
    });

    const { status, json } = await apiGet(route.path.replaceAll(/\{\w+\}/g, '1'), partner.key);

    expect(status).toBe(403);
    expect(json).toMatchObject({ status: 403, detail: missingScopeDetail(route.scope) });
    expect(json.type).toContain('insufficient-scope');
  });
});

describe('404: missing and foreign properties look the same', () => {
  it('another partner’s property and a missing one give identical answers', async () => {
    const foreign = await apiGet(`/properties/${foreignPropertyId}/pricing-signals`, revenuePartner.key);
    const missing = await apiGet('/properties/987654321/pricing-signals', revenuePartner.key);

    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const strip = (body: Record<string, unknown>) => ({
      ...body,
      request_id: undefined,
      detail: String(body.detail).replace(/\d+/, 'N'),
    });
    expect(strip(foreign.json)).toEqual(strip(missing.json));
    expect(foreign.text).not.toContain('Villa');
  });

  it.each([
    ['GET', '/nothing-here'],
    ['GET', '/properties/1/operational-state'],
    ['GET', '/webhooks'],
    ['GET', '/partner'],
    ['GET', '/tokens'],
    ['GET', ''],
  ])('%s %s is a 404 problem, not a gateway default', async (method, path) => {
    const response = await fetch(`${inject('apiBaseUrl')}${path}`, {
      method,
      headers: { Authorization: `Bearer ${revenuePartner.key}` },
    });

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe(PROBLEM);
    expect(await response.json()).toMatchObject({ type: expect.stringContaining('not-found'), status: 404 });
  });

  it('lists the live routes with their full paths, each of which answers', async () => {
    const response = await fetch(`${inject('apiBaseUrl')}/nothing-here`);
    const { detail } = (await response.json()) as { detail: string };
    const listed = [...detail.matchAll(/GET (\/partner-api\/v1\/[^\s,.]*(?:\.json)?)/g)].map(
      (match) => match[1],
    );

    expect(listed).toEqual(
      [...partnerApiRoutes, ...publicApiRoutes].map((route) => `${API_BASE_PATH}${route.path}`),
    );
    expect(listed).toContain('/partner-api/v1/properties/{propertyId}/pricing-signals');
    const origin = new URL(inject('apiBaseUrl')).origin;
    const usage = await fetch(`${origin}${listed[0]}`, {
      headers: { Authorization: `Bearer ${revenuePartner.key}` },
    });
    expect(usage.status).toBe(200);
  });
});

describe('405: write methods are not live', () => {
  it.each([
    ['POST', '/properties'],
    ['PUT', '/properties/1/pricing-signals'],
    ['DELETE', '/usage'],
    ['PATCH', '/properties'],
  ])('%s %s', async (method, path) => {
    const response = await fetch(`${inject('apiBaseUrl')}${path}`, {
      method,
      headers: { Authorization: `Bearer ${revenuePartner.key}` },
      body: method === 'DELETE' ? undefined : '{}',
    });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(response.headers.get('content-type')).toBe(PROBLEM);
  });
});

describe('HEAD: wherever GET works, the same answer without a body', () => {
  const head = (path: string, key?: string) =>
    fetch(`${inject('apiBaseUrl')}${path}`, {
      method: 'HEAD',
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
  // Headers that may differ between two answers (per-request ids, counters, time, transport).
  const varying = [
    'date',
    'x-amzn-requestid',
    'x-request-id',
    'ratelimit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'content-length',
    'connection',
    'keep-alive',
  ];
  const comparable = (headers: Headers) => {
    const kept: Record<string, string> = {};
    headers.forEach((value, name) => {
      if (!varying.includes(name)) kept[name] = value;
    });
    return kept;
  };

  it.each([
    ['/usage', 'revenue'],
    ['/properties', 'revenue'],
    ['/properties/{own}/pricing-signals?lookback_days=30', 'revenue'],
    ['/properties', 'metrics'],
    ['/properties/999999/pricing-signals', 'revenue'],
    ['/usage', 'none'],
    ['/openapi.json', 'none'],
  ])('HEAD %s (%s key)', async (template, who) => {
    const path = template.replace('{own}', String(ownPropertyId));
    const key = who === 'revenue' ? revenuePartner.key : who === 'metrics' ? metricsPartner.key : undefined;
    const get = await fetch(`${inject('apiBaseUrl')}${path}`, {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
    });
    await get.arrayBuffer();
    const answer = await head(path, key);

    expect(answer.status).toBe(get.status);
    expect(comparable(answer.headers)).toEqual(comparable(get.headers));
    expect((await answer.arrayBuffer()).byteLength).toBe(0);
  });

  it('counts against the rate limit like a GET', async () => {
    const first = await head('/usage', metricsPartner.key);
    const second = await head('/usage', metricsPartner.key);

    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });
});

describe('400: bad parameters', () => {
  it.each(['0', '366', 'ninety', '7.5', ''])('lookback_days=%j', async (value) => {
    const { status, json } = await apiGet(
      `/properties/${ownPropertyId}/pricing-signals?lookback_days=${value}`,
      revenuePartner.key,
    );

    expect(status).toBe(400);
    expect(json.detail).toContain('lookback_days must be an integer from 1 to 365');
  });

  it('accepts the bounds 1 and 365', async () => {
    for (const days of [1, 365]) {
      expect(
        (
          await apiGet(
            `/properties/${ownPropertyId}/pricing-signals?lookback_days=${days}`,
            revenuePartner.key,
          )
        ).status,
      ).toBe(200);
    }
  });

  it('refuses a partner_id query parameter: identity comes from the key alone', async () => {
    const { status, json } = await apiGet(`/usage?partner_id=${otherPartner.id}`, revenuePartner.key);

    expect(status).toBe(400);
    expect(json.detail).toContain('identified by your API key');
  });
});

describe('isolation', () => {
  it('two partners never see each other’s hosts or properties', async () => {
    const mine = await apiGet('/properties', revenuePartner.key);
    const theirs = await apiGet('/properties', otherPartner.key);
    const myIds = (mine.json.properties as { id: number }[]).map((p) => p.id);
    const theirIds = (theirs.json.properties as { id: number }[]).map((p) => p.id);

    expect(myIds.filter((id) => theirIds.includes(id))).toEqual([]);
    expect(theirIds).toEqual([foreignPropertyId]);
  });
});
