/**
 * What the two commands that check a running stage share: `npm run verify` (deploy-checks.ts, the
 * deployer's proof of what only AWS can show) and `npm run smoke` (smoke-checks.ts, the contract as
 * one partner key sees it). Each is a table of named checks, run in order by `runChecks`; a check is
 * a small function that returns one verdict, and the report prints one line per check, alike in
 * both. Why they stay two commands is in docs/deploying.md ("Two commands, one runner").
 */

/** One line of the report: what was checked, how it went, and where to look when it failed. */
export interface CheckResult {
  readonly name: string;
  readonly outcome: 'PASS' | 'FAIL' | 'SKIP';
  readonly detail: string;
  /** The call behind the check and what allows it (for `npm run verify`, the policy statement). */
  readonly lookAt?: string;
}

/** What a check returns: its result without the name, which the table gives. */
export type Verdict = Omit<CheckResult, 'name'>;

export const pass = (detail: string): Verdict => ({ outcome: 'PASS', detail });
/** A failure always says where to look. */
export const fail = (detail: string, lookAt: string): Verdict => ({ outcome: 'FAIL', detail, lookAt });
export const skip = (reason: string): Verdict => ({ outcome: 'SKIP', detail: reason });

/** One row of a table: a name, and the function that checks it against what the run knows so far. */
export interface Check<Run> {
  readonly name: string;
  /** An earlier check whose PASS this one needs (it makes what this one uses); skipped without it. */
  readonly needs?: string;
  readonly run: (run: Run) => Promise<Verdict>;
}

/** A table's row: one check, or checks made from what earlier rows found (one per route, say). */
export type CheckRow<Run> = Check<Run> | ((run: Run) => readonly Check<Run>[]);

/**
 * Runs a table in order, one result per check, each passed to `log` as it comes. A check whose
 * `needs` did not pass is skipped, saying which; one that throws fails with the error, pointing at
 * `thrownLookAt`, and the run goes on (what needs it is then skipped). Nothing stops a table short,
 * so its last row (a clean-up) always runs.
 */
export async function runChecks<Run>(
  table: readonly CheckRow<Run>[],
  run: Run,
  log: (result: CheckResult) => void,
  thrownLookAt: string,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const row of table)
    for (const check of typeof row === 'function' ? row(run) : [row]) {
      const result = { name: check.name, ...(await verdictOf(check, run, results, thrownLookAt)) };
      results.push(result);
      log(result);
    }
  return results;
}

async function verdictOf<Run>(
  check: Check<Run>,
  run: Run,
  earlier: readonly CheckResult[],
  thrownLookAt: string,
): Promise<Verdict> {
  if (check.needs !== undefined) {
    const needed = earlier.find((result) => result.name === check.needs);
    if (!needed) throw new Error(`"${check.name}" needs "${check.needs}", which is no earlier check.`);
    if (needed.outcome !== 'PASS') return skip(`not run: it needs "${check.needs}" to pass`);
  }
  try {
    return await check.run(run);
  } catch (error) {
    const { name, message } = error as Error;
    return fail(`${name}: ${message}`, thrownLookAt);
  }
}

/** How a result is printed: `OUTCOME  name: detail`, and where to look after a failure. */
export function reportLine(result: CheckResult): string {
  const text = `${result.outcome}  ${result.name}: ${result.detail}`;
  return result.outcome === 'FAIL' && result.lookAt ? `${text}  -> look at: ${result.lookAt}` : text;
}

/** How many checks had each outcome. */
export function tally(results: readonly CheckResult[]): Record<CheckResult['outcome'], number> {
  const count = (outcome: CheckResult['outcome']) =>
    results.filter((result) => result.outcome === outcome).length;
  return { PASS: count('PASS'), FAIL: count('FAIL'), SKIP: count('SKIP') };
}
