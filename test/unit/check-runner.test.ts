import { describe, expect, it } from 'vitest';
import type { CheckResult, CheckRow } from '../../verify/checks';
import { fail, pass, reportLine, runChecks, skip, tally } from '../../verify/checks';

/** What a table's checks find, for the rows after them. */
interface Found {
  ids: number[];
  ran: string[];
}

async function run(table: readonly CheckRow<Found>[]) {
  const logged: CheckResult[] = [];
  const found: Found = { ids: [], ran: [] };
  const results = await runChecks(table, found, (result) => logged.push(result), 'the network');
  expect(logged).toEqual(results);
  return { results, found };
}

describe('the check runner of npm run verify and npm run smoke (verify/checks.ts)', () => {
  it('runs every row in order, one result each, rows made from what earlier checks found', async () => {
    const { results } = await run([
      {
        name: 'list',
        run: async (found) => {
          found.ids.push(7, 9);
          return pass('2 ids');
        },
      },
      (found) =>
        found.ids.map((id) => ({ name: `item ${id}`, needs: 'list', run: async () => pass(`${id}`) })),
      { name: 'firewall', run: async () => skip('no WAF here') },
    ]);

    expect(results).toEqual([
      { name: 'list', outcome: 'PASS', detail: '2 ids' },
      { name: 'item 7', outcome: 'PASS', detail: '7' },
      { name: 'item 9', outcome: 'PASS', detail: '9' },
      { name: 'firewall', outcome: 'SKIP', detail: 'no WAF here' },
    ]);
  });

  it('skips what needs a check that did not pass, names it, and goes on to the rest and the clean-up', async () => {
    /** A check that notes it ran and passes. */
    const noted = (name: string, needs?: string) => ({
      name,
      ...(needs ? { needs } : {}),
      run: async (found: Found) => {
        found.ran.push(name);
        return pass(name === 'clean up' ? 'nothing to remove' : '');
      },
    });
    const { results, found } = await run([
      { name: 'approve', run: async () => fail('AccessDenied', 'your credentials') },
      noted('reveal', 'approve'),
      noted('use the key', 'reveal'),
      noted('force a failure'),
      noted('clean up'),
    ]);

    expect(results.map((result) => `${result.outcome} ${result.name}: ${result.detail}`)).toEqual([
      'FAIL approve: AccessDenied',
      'SKIP reveal: not run: it needs "approve" to pass',
      'SKIP use the key: not run: it needs "reveal" to pass',
      'PASS force a failure: ',
      'PASS clean up: nothing to remove',
    ]);
    expect(found.ran).toEqual(['force a failure', 'clean up']);
    expect(tally(results)).toEqual({ PASS: 2, FAIL: 1, SKIP: 2 });
  });

  it('reports a check that throws as its failure, pointing at what the table names for errors', async () => {
    const { results } = await run([
      {
        name: 'GET /usage',
        run: async () => {
          throw new TypeError('fetch failed');
        },
      },
      { name: 'clean up', run: async () => pass('done') },
    ]);

    expect(results[0]).toEqual({
      name: 'GET /usage',
      outcome: 'FAIL',
      detail: 'TypeError: fetch failed',
      lookAt: 'the network',
    });
    expect(reportLine(results[0] as CheckResult)).toBe(
      'FAIL  GET /usage: TypeError: fetch failed  -> look at: the network',
    );
    expect(results[1]?.outcome).toBe('PASS');
  });

  it('refuses a table whose check needs no earlier check (a misspelt name would skip it silently)', async () => {
    await expect(
      run([
        { name: 'approve', run: async () => pass('') },
        { name: 'reveal', needs: 'aprove', run: async () => pass('') },
      ]),
    ).rejects.toThrow('"reveal" needs "aprove", which is no earlier check.');
  });
});
