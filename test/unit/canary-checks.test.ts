import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseCanarySecret } from '../../core/canary';
import { generateApiKey } from '../../core/domain/api-key';
import { RATE_LIMIT, rateLimitHeaders } from '../../core/domain/rate-limit';
import { API_BASE_PATH } from '../../core/routes';
import type { CanaryStep } from '../../lambdas/canary/partner-api-checks';
import { checkPartnerApi, failureSummary, withoutKey } from '../../lambdas/canary/partner-api-checks';
import { SUCCESS_EXAMPLES } from '../../openapi/examples';

/**
 * The canary's checks against a tiny HTTP server that answers as told: they pass on answers the
 * contract allows, and fail, naming what is wrong, on a wrong body or a missing or wrong rate-limit
 * header; never with the key in what they say.
 */
const KEY = `svc_${'k'.repeat(46)}`;
const PROPERTY_ID = SUCCESS_EXAMPLES.PropertyList.wholeList?.value.properties[0]?.id ?? 0;
const BODIES: Record<string, unknown> = {
  '/usage': SUCCESS_EXAMPLES.UsageReport.usage?.value,
  '/properties': SUCCESS_EXAMPLES.PropertyList.wholeList?.value,
  [`/properties/${PROPERTY_ID}/pricing-signals`]: SUCCESS_EXAMPLES.PricingSignals.signals?.value,
};

/** What the server changes in an answer, by path: its body, headers dropped or replaced. */
interface Tampering {
  readonly body?: unknown;
  readonly headers?: Record<string, string | undefined>;
}
let tampering: Record<string, Tampering> = {};
let authorizations: (string | undefined)[] = [];
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    const path = (request.url ?? '').replace(API_BASE_PATH, '');
    const changed = tampering[path] ?? {};
    const body = changed.body ?? BODIES[path];
    const headers: Record<string, string | undefined> = {
      'Content-Type': 'application/json',
      ...rateLimitHeaders({
        admitted: true,
        atMs: Date.now(),
        limit: RATE_LIMIT.limit,
        remaining: 117,
        resetSeconds: 59,
      }),
      ...changed.headers,
    };
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) response.setHeader(name, value);
    response.statusCode = body === undefined ? 404 : 200;
    response.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_BASE_PATH}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  tampering = {};
  authorizations = [];
});

const failed = (steps: readonly CanaryStep[]) => steps.filter((step) => !step.ok);

describe('the canary’s checks', () => {
  it('pass when every route answers as the contract says, sending the key only as a bearer token', async () => {
    const steps = await checkPartnerApi({ baseUrl, key: KEY });

    expect(failed(steps)).toEqual([]);
    expect(steps.map((step) => step.name)).toEqual([
      'GET /usage',
      'GET /properties',
      'GET /properties/{propertyId}/pricing-signals',
    ]);
    expect(authorizations).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`, `Bearer ${KEY}`]);
    expect(failureSummary(steps)).toBe('');
  });

  it('fail the route whose body does not match its schema, naming the field', async () => {
    const { active_seats: _dropped, ...withoutSeats } = (BODIES['/usage'] ?? {}) as Record<string, unknown>;
    tampering = { '/usage': { body: withoutSeats } };

    const steps = await checkPartnerApi({ baseUrl, key: KEY });

    expect(failed(steps).map((step) => step.name)).toEqual(['GET /usage']);
    expect(steps[0]?.detail).toMatch(/^body does not match the schema: active_seats: /);
  });

  it.each([
    ['X-RateLimit-Remaining', undefined, /^no X-RateLimit-Remaining header$/],
    ['RateLimit', undefined, /^no RateLimit header$/],
    ['RateLimit-Policy', '"per-key";q=1000;w=60', /^RateLimit-Policy ""per-key";q=1000;w=60", not/],
    ['X-RateLimit-Limit', '1000', /^X-RateLimit-Limit "1000", not 120$/],
    ['X-RateLimit-Remaining', '116', /^RateLimit ""per-key";r=117;t=59" does not state r=116/],
    ['X-RateLimit-Reset', '17', /^X-RateLimit-Reset "17" is no Unix time within 120 s of now$/],
  ])('fail when %s is %s', async (header, value, reason) => {
    tampering = { '/properties': { headers: { [header]: value } } };

    const steps = await checkPartnerApi({ baseUrl, key: KEY });

    expect(failed(steps).map((step) => step.name)).toEqual(['GET /properties']);
    expect(steps[1]?.detail).toMatch(reason);
  });

  it('fail a 200 that is not JSON, and a status other than 200', async () => {
    tampering = {
      '/usage': { headers: { 'Content-Type': 'text/html' } },
      [`/properties/${PROPERTY_ID}/pricing-signals`]: { body: undefined },
    };

    const steps = await checkPartnerApi({ baseUrl, key: KEY, propertyId: 42 });

    expect(steps[0]?.detail).toBe('Content-Type "text/html", not application/json');
    expect(steps[2]?.detail).toMatch(/^status 404, not 200/);
  });

  it('never say the key, even when a server quotes it back', async () => {
    tampering = { '/usage': { headers: { 'X-RateLimit-Limit': KEY } } };

    const steps = await checkPartnerApi({ baseUrl, key: KEY });

    expect(steps[0]?.ok).toBe(false);
    expect(steps[0]?.detail).toContain('svc_kkkkkkkk…');
    expect(JSON.stringify(steps)).not.toContain(KEY);
    expect(withoutKey(`a ${KEY} b`, KEY)).toBe('a svc_kkkkkkkk… b');
  });

  it('hands the step runner failures with the key already replaced (Synthetics logs what a step throws)', async () => {
    // A key with a character no header may hold: fetch refuses it, quoting the header value.
    const badKey = `${KEY.slice(0, -1)}\u0000`;
    const seen: string[] = [];
    await checkPartnerApi(
      { baseUrl, key: badKey },
      {
        runStep: async (_name, check) => {
          try {
            return await check();
          } catch (error) {
            seen.push(`${(error as Error).name}: ${(error as Error).message}`);
            throw error;
          }
        },
      },
    );

    expect(seen.length).toBeGreaterThan(0);
    for (const failure of seen) expect(failure).not.toContain(badKey.slice(12, -1));
  });

  it('run each check through the step runner (Synthetics’ executeStep), and record what it throws', async () => {
    const names: string[] = [];
    const steps = await checkPartnerApi(
      { baseUrl, key: KEY },
      {
        runStep: async (name, check) => {
          names.push(name);
          if (name === 'GET /usage') throw new Error(`runner gave up on ${KEY}`);
          return check();
        },
      },
    );

    expect(names).toEqual(steps.map((step) => step.name));
    expect(steps[0]).toEqual({
      name: 'GET /usage',
      ok: false,
      detail: 'Error: runner gave up on svc_kkkkkkkk…',
    });
    expect(failureSummary(steps)).toBe('GET /usage: Error: runner gave up on svc_kkkkkkkk…');
  });
});

describe('the canary’s secret', () => {
  it('gives the key and the optional property, or why it cannot be used, never quoting it', () => {
    const { key: realKey } = generateApiKey();
    expect(parseCanarySecret(JSON.stringify({ key: realKey }))).toEqual({ key: realKey });
    expect(parseCanarySecret(JSON.stringify({ key: realKey, propertyId: 7 }))).toEqual({
      key: realKey,
      propertyId: 7,
    });
    // Not a key as minted (a checksum that fails; a stray control character): refused before any request.
    for (const key of [KEY, `${realKey.slice(0, -1)}\u0000`, `${realKey}\n`]) {
      const parsed = parseCanarySecret(JSON.stringify({ key }));
      expect(parsed, key).toHaveProperty('problem');
      expect(JSON.stringify(parsed)).not.toContain(realKey.slice(12));
    }
    for (const value of [
      '{"key":"","unused":"abcdefgh"}',
      '{}',
      KEY,
      JSON.stringify({ key: KEY, propertyId: -1 }),
    ]) {
      const parsed = parseCanarySecret(value);
      expect(parsed, value).toHaveProperty('problem');
      expect(JSON.stringify(parsed)).not.toContain(KEY);
    }
  });
});
