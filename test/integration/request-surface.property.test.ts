import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { BASE_SCOPES, SCOPES } from '../../core/domain/scopes';
import { extraKeysFor } from '../support/keys';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';

interface World {
  partners: {
    partner: TestPartner;
    keys: string[];
    propertyIds: number[];
    names: string[];
    revenue: boolean;
  }[];
}
const world: World = { partners: [] };

beforeAll(async () => {
  const shared = `shared-${Date.now()}@example.com`;
  for (const revenue of [true, true, false]) {
    const partner = await approvedPartner({ revenue });
    const propertyIds: number[] = [];
    const names: string[] = [];
    for (const index of [0, 1]) {
      const name = `Fuzz ${partner.slug} ${index}`;
      // Overlap on purpose: one host sponsored by every partner, and the same pms_hotel_id strings.
      const { propertyId } = await sponsoredProperty(partner.id, {
        email: index === 0 ? shared : undefined,
        name,
      });
      propertyIds.push(propertyId);
      names.push(name);
    }
    const scopes = revenue ? SCOPES : BASE_SCOPES;
    world.partners.push({
      partner,
      keys: [partner.key, ...(await extraKeysFor(partner.id, 8, [...scopes]))],
      propertyIds,
      names,
      revenue,
    });
  }
}, 120_000);

/** A raw HTTP request (paths are sent exactly as generated, unlike fetch, which normalises them). */
function send(
  path: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const base = new URL(inject('apiBaseUrl'));
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: base.hostname, port: base.port, path, method, headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const segment = fc.oneof(
  fc.constantFrom(
    'usage',
    'properties',
    'pricing-signals',
    'operational-state',
    'webhooks',
    '..',
    '.',
    '',
    '%2e%2e',
    '%00',
    'partner-api',
    'v1',
  ),
  fc.integer({ min: -5, max: 200_000 }).map(String),
  fc.stringMatching(/^[A-Za-z0-9_~%.-]{1,40}$/),
);
const path = fc.oneof(
  { arbitrary: fc.constantFrom('/usage', '/properties', '/properties/1/pricing-signals'), weight: 3 },
  {
    arbitrary: fc.array(segment, { minLength: 0, maxLength: 5 }).map((parts) => `/${parts.join('/')}`),
    weight: 1,
  },
);
const queryValue = fc.oneof(
  fc.integer({ min: -10, max: 1_000 }).map(String),
  fc.stringMatching(/^[A-Za-z0-9%+.-]{0,12}$/),
);
const query = fc.oneof(
  { arbitrary: fc.constant(''), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 365 }).map((days) => `?lookback_days=${days}`), weight: 1 },
  {
    arbitrary: fc
      .array(
        fc.tuple(fc.constantFrom('lookback_days', 'partner_id', 'limit', 'x', 'lookback_day'), queryValue),
        {
          minLength: 1,
          maxLength: 3,
        },
      )
      .map((pairs) => `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`),
    weight: 1,
  },
);
const credential = fc.oneof(
  {
    arbitrary: fc.record({
      partner: fc.nat({ max: 2 }),
      key: fc.nat({ max: 8 }),
      header: fc.constantFrom('authorization', 'x-enterprise-key'),
    }),
    weight: 6,
  },
  { arbitrary: fc.stringMatching(/^[ -~]{0,80}$/).map((junk) => ({ junk })), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
);
const accept = fc.oneof(
  { arbitrary: fc.constantFrom(undefined, 'application/json', '*/*'), weight: 6 },
  {
    arbitrary: fc.constantFrom('text/html', 'application/problem+json, */*;q=0.1', 'image/png;q=0'),
    weight: 1,
  },
);

describe('the whole request surface (property-based, over HTTP)', () => {
  it('never answers 5xx, and never shows a partner anything of another partner', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: fc.constant('GET'), weight: 6 },
          { arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'), weight: 1 },
        ),
        path,
        query,
        credential,
        accept,
        fc.boolean(),
        async (method, routePath, queryString, who, acceptHeader, ownProperty) => {
          const headers: Record<string, string> = {};
          let caller: World['partners'][number] | undefined;
          if (who && 'partner' in who) {
            caller = world.partners[who.partner];
            const key = caller?.keys[who.key] ?? '';
            headers[who.header] = who.header === 'authorization' ? `Bearer ${key}` : key;
          } else if (who && 'junk' in who) {
            headers.authorization = who.junk;
          }
          if (acceptHeader) headers.accept = acceptHeader;
          // Half the pricing-signal calls target a real property id: the caller's own or another partner's.
          const everyProperty = world.partners.flatMap((entry) => entry.propertyIds);
          const target =
            ownProperty && caller
              ? caller.propertyIds[0]
              : everyProperty[routePath.length % everyProperty.length];
          const finalPath = routePath.replace('/properties/1/', `/properties/${target}/`);

          const response = await send(`/partner-api/v1${finalPath}${queryString}`, method, headers);

          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          expect(response.status, `${method} ${finalPath}${queryString}`).toBeLessThan(500);
          if (method !== 'HEAD' && response.status !== 200) {
            expect(String(response.headers['content-type'])).toBe('application/problem+json');
          }
          if (response.status === 200 && method === 'GET') {
            expect(caller).toBeDefined();
            const others = world.partners.filter((entry) => entry !== caller);
            for (const other of others)
              for (const name of other.names) expect(response.body).not.toContain(name);
            const body = JSON.parse(response.body) as {
              partner_id?: number;
              property_id?: number;
              properties?: { id: number }[];
            };
            if (body.partner_id !== undefined) expect(body.partner_id).toBe(caller?.partner.id);
            if (body.property_id !== undefined) expect(caller?.propertyIds).toContain(body.property_id);
            for (const property of body.properties ?? []) expect(caller?.propertyIds).toContain(property.id);
          }
        },
      ),
      { numRuns: 400 },
    );
    // The generators must reach the data, not only the refusals: enough 200s and many kinds of 4xx.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(25);
    expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThanOrEqual(5);
  });

  it('never answers 5xx to random activation and reveal links, and always with an HTML page', async () => {
    const base = inject('activationBaseUrl');
    const slug = world.partners[0]?.partner.slug ?? 'x';
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          `/partner/${slug}/activate`,
          '/partner/no-such-pms/activate',
          `/partner/${slug}/marketplace`,
          `/partner/${slug}/onboarding`,
          '/reveal/AAAAAAAAAAAAAAAAAAAAAA',
        ),
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.stringMatching(/^[A-Za-z0-9_-]{10,200}\.[A-Za-z0-9_-]{43}$/),
          fc.constant(''),
        ),
        fc.constantFrom('GET', 'POST'),
        async (pagePath, token, method) => {
          const response = await fetch(`${base}${pagePath}?token=${encodeURIComponent(token)}`, {
            method,
            redirect: 'manual',
            headers: { cookie: `activation_session_${slug}=${token}` },
            body: method === 'POST' ? `csrf=${encodeURIComponent(token)}&product=assistant` : undefined,
          });

          expect(response.status).toBeLessThan(500);
          expect(response.headers.get('content-type') ?? '').toMatch(
            /text\/html|application\/json|application\/problem\+json/,
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
