import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { partnerApiRoutes } from '../../core/routes';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the partner routes in the docs follow the route table', () => {
  it('lists every route in the quickstart with its scope and summary, and no route the table lacks', async () => {
    const page = await read('docs/partners.md');
    const rows = [...page.matchAll(/^\| `(GET [^`]+)` \| `([a-z]+:[a-z]+)` \| ([^|]+) \|$/gm)].map((row) => ({
      route: row[1],
      scope: row[2],
      summary: row[3]?.trim(),
    }));

    expect(rows).toEqual(
      partnerApiRoutes.map((route) => ({
        route: `${route.method} ${route.path}`,
        scope: route.scope,
        summary: route.summary,
      })),
    );
  });

  it('names every route in the README', async () => {
    const readme = await read('README.md');

    for (const route of partnerApiRoutes) expect(readme).toContain(`\`${route.method} ${route.path}\``);
  });
});
