import { readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { API_BASE_PATH, partnerApiRoutes } from '../../core/routes';
import { senderAddress } from '../../lib/stage-config';
import { partnerApiDocument } from '../../openapi/document';
import { FROM_LOCAL } from '../../operations/mailer';

describe('GET /openapi.json', () => {
  it('serves the committed OpenAPI 3.1 document without a key, naming the stage’s support address', async () => {
    const response = await fetch(`${inject('apiBaseUrl')}/openapi.json`);
    const served = (await response.json()) as {
      openapi: string;
      info: { contact: { email: string } };
      paths: Record<string, unknown>;
    };
    const committed = JSON.parse(await readFile('openapi/partner-api.json', 'utf8'));

    expect(response.status).toBe(200);
    // How partners reach us is the stage's one address (the mail sender), as the reveal page says.
    expect(served.info.contact.email).toBe(senderAddress(FROM_LOCAL));
    expect({ ...served, info: { ...served.info, contact: committed.info.contact } }).toEqual(committed);
    expect(served.openapi).toBe('3.1.0');
    for (const route of partnerApiRoutes) expect(served.paths[route.path]).toHaveProperty('get');
    expect(Object.keys(served.paths).some((path) => /webhook|operational-state|token/i.test(path))).toBe(
      false,
    );
  });
});

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly example?: unknown;
}

/**
 * The request a contract tool (Dredd, Prism's validation proxy, Portman with optional parameters on)
 * makes of an operation from the document alone: every parameter that has an example, with it.
 */
function exampleRequest(path: string, parameters: readonly Parameter[]): { url: string; headers: Headers } {
  const query = new URLSearchParams();
  const headers = new Headers();
  let filled = path;
  for (const parameter of parameters) {
    if (parameter.example === undefined) continue;
    const value = String(parameter.example);
    if (parameter.in === 'path') filled = filled.replace(`{${parameter.name}}`, encodeURIComponent(value));
    if (parameter.in === 'query') query.set(parameter.name, value);
    if (parameter.in === 'header') headers.set(parameter.name, value);
  }
  return { url: `${inject('apiBaseUrl')}${filled}${query.size > 0 ? `?${query}` : ''}`, headers };
}

describe('the parameter examples of the document, sent as requests (docs/design/openapi.md)', () => {
  const paths = partnerApiDocument().paths as Record<string, { get: { parameters?: Parameter[] } }>;

  it.each(partnerApiRoutes.map((route) => route.path))(
    'GET %s with every example gets the documented 200 for the partner the examples describe',
    async (path) => {
      // Prepare: the demo partner of `npm start`, whose data the examples show.
      const { url, headers } = exampleRequest(path, paths[path]?.get.parameters ?? []);
      headers.set('Authorization', `Bearer ${inject('demoKey')}`);

      // Act
      const response = await fetch(url, { headers });

      // Assess
      expect(url).toContain(API_BASE_PATH);
      expect(response.status, `${url}: ${await response.text()}`).toBe(200);
    },
  );
});
