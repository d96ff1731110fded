import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { problemCatalog, problemTypeUri } from '../../core/contract/problems';
import { API_BASE_PATH } from '../../core/routes';
import { entityTag } from '../../lambdas/api/response-encoding';
import { contractChecker } from '../../openapi/contract';
import { partnerApiDocument } from '../../openapi/document';

const document = partnerApiDocument();
const schemas = (document.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
const REQUEST_ID = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';
const rateLimit = {
  'RateLimit-Policy': '"per-key";q=120;w=60',
  RateLimit: '"per-key";r=119;t=0',
  'X-RateLimit-Limit': '120',
  'X-RateLimit-Remaining': '119',
  'X-RateLimit-Reset': '1795313232',
};
const usage = { partner_id: 1, generated_at: '2026-11-22T10:00:00.000Z', active_seats: 0, hosts: [] };

/** The object a local `$ref` of the document names. */
function resolve<T>(reference: string | undefined): T | undefined {
  return (reference ?? '')
    .replace(/^#\//, '')
    .split('/')
    .reduce<Record<string, unknown> | undefined>(
      (node, key) => node?.[key] as Record<string, unknown> | undefined,
      document,
    ) as T | undefined;
}

function exchange(body: unknown, headers: Record<string, string> = rateLimit) {
  return {
    method: 'GET',
    path: `${API_BASE_PATH}/usage`,
    status: 200,
    headers: {
      'content-type': 'application/json',
      'x-amzn-requestid': REQUEST_ID,
      'x-request-id': REQUEST_ID,
      'cache-control': 'private, no-cache',
      vary: 'Accept, Accept-Encoding',
      etag: entityTag(body),
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

describe('the published document and our own contract check', () => {
  it('leaves response objects open for partners: v1 may add fields', () => {
    for (const name of [
      'UsageReport',
      'HostSeats',
      'PropertyList',
      'PropertySummary',
      'PricingSignals',
      'Problem',
    ])
      expect(schemas[name]?.additionalProperties, name).toBeUndefined();
  });

  it('still holds our own server to exactly the documented fields', () => {
    const check = contractChecker(document);

    expect(check(exchange(usage))).toEqual([]);
    expect(check(exchange({ ...usage, undocumented: true })).join('\n')).toMatch(/additional properties/);
  });

  it('requires what the API always sends: rate-limit headers on a 200, request_id in its problems', () => {
    const check = contractChecker(document);
    const { 'X-RateLimit-Reset': _reset, ...withoutReset } = rateLimit;

    expect(check(exchange(usage, withoutReset)).join('\n')).toMatch(
      /required header x-ratelimit-reset is missing/,
    );
    expect(schemas.Problem?.required).toContain('request_id');
    expect(schemas.FirewallProblem?.required).not.toContain('request_id');
  });

  it('documents a 403 on /usage only from the firewall: every key has metrics:read', () => {
    type Response = { content?: Record<string, { examples?: Record<string, unknown> }> };
    const paths = document.paths as Record<string, { get: { responses: Record<string, { $ref: string }> } }>;
    const forbidden = resolve<Response>(paths['/usage']?.get.responses['403']?.$ref);
    const examples = Object.keys(forbidden?.content?.['application/problem+json']?.examples ?? {});

    expect(examples).toEqual(['request-blocked']);
  });

  it('writes each response but a 200 once, in components/responses, and names it from every operation', () => {
    // Prepare
    type Operation = { responses: Record<string, { $ref?: string }> };
    const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap(
      (item) => Object.values(item),
    );
    const components = (document.components as { responses: Record<string, unknown> }).responses;

    // Act: the partner API's operations (the public document's own has no 401).
    const responses = operations
      .filter((operation) => operation.responses['401'] !== undefined)
      .flatMap((operation) => Object.entries(operation.responses).filter(([status]) => status !== '200'));
    const named = responses.map(([, response]) => response.$ref?.replace('#/components/responses/', ''));
    // HEAD twins are left out: two 400s differ only in their examples, which HEAD has none of.
    const bodies = Object.values(components)
      .filter((response) => (response as { content?: unknown }).content !== undefined)
      .map((response) => JSON.stringify(response));

    // Assess: every operation names its responses; no component repeats another.
    expect(responses.length).toBeGreaterThan(50);
    expect(named.filter((name) => name === undefined || components[name] === undefined)).toEqual([]);
    expect(bodies.length).toBeGreaterThan(8);
    expect(new Set(bodies).size).toBe(bodies.length);
  });

  it('follows a shared response to its component: its headers and body are checked', () => {
    const check = contractChecker(document);
    const refused = {
      method: 'GET',
      path: `${API_BASE_PATH}/usage`,
      status: 401,
      headers: {
        'content-type': 'application/problem+json',
        'x-amzn-requestid': REQUEST_ID,
        'www-authenticate': 'Bearer realm="partner-api"',
      },
      body: JSON.stringify({
        type: problemTypeUri('missing-api-key'),
        title: problemCatalog['missing-api-key'].title,
        status: 401,
        detail: 'No key.',
        request_id: REQUEST_ID,
      }),
    };

    expect(check(refused)).toEqual([]);
    expect(check({ ...refused, method: 'HEAD', body: '' })).toEqual([]);
    expect(check({ ...refused, headers: { ...refused.headers, 'x-undocumented': '1' } }).join('\n')).toMatch(
      /header x-undocumented is not documented/,
    );
    expect(check({ ...refused, body: JSON.stringify({ detail: 'No key.' }) }).join('\n')).toMatch(
      /body breaks the schema/,
    );
  });

  it('holds a 304 to its documented headers and no body', () => {
    const check = contractChecker(document);
    const notModified = { ...exchange(usage), status: 304, body: '' };
    const { 'content-type': _type, ...headers } = notModified.headers;

    expect(check({ ...notModified, headers })).toEqual([]);
    expect(check({ ...notModified, headers, body: '{}' }).join('\n')).toMatch(
      /a body where the document has none/,
    );
    const { etag: _etag, ...withoutTag } = headers;
    expect(check({ ...notModified, headers: withoutTag }).join('\n')).toMatch(
      /required header etag is missing/,
    );
  });

  it('enumerates the problem types of the catalogue, so generated clients get a union type', async () => {
    // Prepare
    const uris = (Object.keys(problemCatalog) as (keyof typeof problemCatalog)[]).map(problemTypeUri);
    const typeOf = (schema: string) =>
      (schemas[schema]?.properties as Record<string, { enum?: unknown }> | undefined)?.type;

    // Act
    const generated = await readFile('clients/typescript/src/generated/schema.ts', 'utf8');

    // Assess
    expect(typeOf('Problem')?.enum).toEqual(uris);
    expect(typeOf('FirewallProblem')?.enum).toEqual(uris);
    expect(generated).toContain(`type: ${uris.map((uri) => JSON.stringify(uri)).join(' | ')};`);
  });

  it('gives parameter examples a contract tool can send and get a 200 with', () => {
    // Prepare
    const paths = document.paths as Record<
      string,
      { get: { parameters: { name: string; example?: unknown }[] } }
    >;
    const header = (document.components as { headers: Record<string, { schema: { pattern: string } }> })
      .headers.ETag;
    const parameters = Object.values(paths).flatMap(({ get }) => get.parameters ?? []);

    // Act
    const ifNoneMatch = parameters
      .filter(({ name }) => name === 'If-None-Match')
      .map(({ example }) => example);
    const cursor = parameters.filter(({ name }) => name === 'cursor');

    // Assess: no tag the API sends can match it, and no cursor example (none is valid everywhere).
    expect(ifNoneMatch.length).toBeGreaterThan(0);
    for (const example of ifNoneMatch)
      expect(String(example)).not.toMatch(new RegExp(header?.schema.pattern ?? '^$'));
    expect(cursor.length).toBeGreaterThan(0);
    expect(cursor.map(({ example }) => example)).toEqual(cursor.map(() => undefined));
  });
});
