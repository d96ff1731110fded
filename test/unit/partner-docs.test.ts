import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_BASE_PATH, publicApiRoutes } from '../../core/routes';
import { partnerApiDocument } from '../../openapi/document';

/**
 * What docs/partners.md (and the other documents) show of the API's answers, held to the route
 * table and the generated document, so the samples cannot drift from what the API sends.
 */
type Json = Record<string, unknown>;
const document = partnerApiDocument();
const partners = readFileSync('docs/partners.md', 'utf8');
const DOCUMENTS = [
  'README.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

/** The production server's URL with its default host, as the document gives it. */
function productionServerUrl(): string {
  const servers = document.servers as {
    url: string;
    description: string;
    variables: { host: { default: string } };
  }[];
  const production = servers.find((server) => server.description.startsWith('Production'));
  return production?.url.replace('{host}', production.variables.host.default) ?? '';
}

describe('docs/partners.md follows the API', () => {
  it('shows a base URL of the shape the document gives, and Link targets under it', () => {
    // Prepare
    const base = /^export PARTNER_API=(\S+)/m.exec(partners)?.[1] ?? '';
    const links = [...partners.matchAll(/Link: <([^>]+)>/g)].map((match) => match[1] ?? '');
    const headers = (document.components as { headers: Record<string, { schema: { examples: string[] } }> })
      .headers;
    const documented = (headers.Link?.schema.examples ?? []).map(
      (value) => /^<([^>]+)>/.exec(value)?.[1] ?? '',
    );

    // Act
    const resolved = [
      ...links.map((target) => new URL(target, `${base}/properties`)),
      ...documented.map((target) => new URL(target, `${productionServerUrl()}/properties`)),
    ];

    // Assess
    expect(new URL(base).pathname).toBe(new URL(productionServerUrl()).pathname);
    expect(links.length).toBeGreaterThan(0);
    expect(documented.length).toBeGreaterThan(0);
    for (const url of resolved) expect(url.pathname).toBe(`${new URL(base).pathname}/properties`);
  });

  it.each(DOCUMENTS)('%s: every sample of the rate-limit headers shows each header the API sends', (file) => {
    // Prepare
    const paths = document.paths as Record<string, { get: { responses: Record<string, Json> } }>;
    const sent = Object.keys((paths['/usage']?.get.responses['200']?.headers ?? {}) as Json).filter((name) =>
      /^(X-)?RateLimit/i.test(name),
    );

    // Act
    const samples = [...readFileSync(file, 'utf8').matchAll(/^```\w*\n([\s\S]*?)^```$/gm)]
      .map((block) => block[1] ?? '')
      .filter((block) => /^RateLimit-Policy:/m.test(block));

    // Assess
    expect(sent.length).toBe(5);
    if (file === 'docs/partners.md') expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples)
      expect(
        sample
          .match(/^[\w-]+(?=:)/gm)
          ?.filter((name) => /RateLimit/i.test(name))
          .sort(),
      ).toEqual([...sent].sort());
  });

  it('says, in the 404 row, that the 404 detail lists the routes of the table, and where /docs is', () => {
    // Prepare
    const row = /^\| 404 \|.*$/m.exec(partners)?.[0] ?? '';

    // Act
    const listed = [...row.matchAll(/`GET ([^`]+)`/g)]
      .map((match) => match[1] ?? '')
      .filter((path) => path.startsWith(API_BASE_PATH));

    // Assess: the partner routes are the generated table's, which the row points to (a list of
    // them here would be one more for each new route to keep by hand).
    expect(listed).toEqual(publicApiRoutes.map((route) => `${API_BASE_PATH}${route.path}`));
    expect(row).toContain('](#2-call-each-endpoint-curl)');
    expect(row).toContain(`${API_BASE_PATH}/docs`);
  });
});
