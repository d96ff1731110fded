import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PROBLEM_TYPE_BASE, problemCatalog } from '../../core/contract/problems';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The rows of the error table of docs/partners.md: a status and the problem names it lists. */
async function errorTable(): Promise<{ status: number; names: string[] }[]> {
  const page = await read('docs/partners.md');
  return [...page.matchAll(/^\| (\d{3}) \| ([^|]+) \|/gm)].map((row) => ({
    status: Number(row[1]),
    names: [...(row[2] ?? '').matchAll(/`([a-z-]+)`/g)].map((name) => name[1] ?? ''),
  }));
}

describe('the error table of docs/partners.md follows the problem catalogue', () => {
  it('lists every problem type the API can answer, under its status, and none the catalogue lacks', async () => {
    // Prepare
    const catalogue = Object.entries(problemCatalog)
      .map(([name, { status }]) => `${status} ${name}`)
      .sort();

    // Act
    const rows = await errorTable();

    // Assess
    expect(rows.flatMap(({ status, names }) => names.map((name) => `${status} ${name}`)).sort()).toEqual(
      catalogue,
    );
  });

  it('names the base every problem type starts with', async () => {
    const page = await read('docs/partners.md');

    expect(page).toContain(`\`${PROBLEM_TYPE_BASE}…\``);
  });
});
