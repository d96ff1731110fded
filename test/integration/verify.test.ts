import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import type { CheckResult } from '../../lib/verify/deploy-checks';
import { grantsOf, verifyStage } from '../../lib/verify/deploy-checks';
import { testTarget } from '../support/partners';

const run = promisify(execFile);

/** `npm run verify -- --stage local`, as the deploy guide runs it against a stage, here against the suite's local stack. */
async function verifyLocal() {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/verify.ts', '--stage', 'local'], {
      env: process.env,
      timeout: 240_000,
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: `${failed.stdout}\n${failed.stderr}` };
  }
}

/** Every call the verification must make, by the words of its line. */
const CHECKS = [
  'approve a test partner',
  'reveal the key',
  'GET /usage: authorizer key read, limiter write',
  'HEAD /usage',
  'open the activation link',
  'provision the host (marketplace POST: one TransactWriteItems)',
  'complete the onboarding wizard',
  'GET /properties',
  'GET /properties/{id}/pricing-signals: global index query',
  'GET /properties, Accept: application/json and Accept-Encoding: gzip',
  "GET /properties, Accept-Encoding: gzip and no Accept (Go's default client)",
  'POST /properties',
  'GET /usage, Accept: text/html',
  'a request the WAF managed rules block',
  'npm run admin -- audit list',
  'npm run admin -- traffic',
  'clean up',
];

describe('the deploy verification (npm run verify)', () => {
  it('passes every check against the local stack, one line each, and skips only the WAF (none locally)', async () => {
    const { code, stdout } = await verifyLocal();
    const lines = stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) {2}/.test(line));

    expect(
      lines.filter((line) => !line.startsWith('PASS')),
      stdout,
    ).toEqual(['SKIP  a request the WAF managed rules block: the local server has no WAF']);
    for (const check of CHECKS)
      expect(lines.filter((line) => line.includes(`  ${check}`)).length, check).toBeGreaterThanOrEqual(1);
    expect(lines).toHaveLength(CHECKS.length);
    expect(stdout).toMatch(
      new RegExp(`Verification of local: ${CHECKS.length - 1} checks passed, 0 failed, 1 skipped\\.`),
    );
    expect(code).toBe(0);
  }, 300_000);

  it('names the AWS call and the policy statement to look at when a check fails, and still cleans up', async () => {
    const results: CheckResult[] = [];
    // The pages' base URL replaced by the API's: the reveal page is not there (404).
    const target = { ...testTarget(), activationBaseUrl: inject('apiBaseUrl') };

    await verifyStage(
      {
        target,
        timeoutMs: 15_000,
        trafficWaitMs: 0,
        firewall: false,
        operatorEnvironment: process.env,
        operatorIdentity: 'local',
        operatorStatements: { audit: 'audit statements', traffic: 'traffic statements' },
      },
      (result) => results.push(result),
    );

    const failed = results.find((result) => result.outcome === 'FAIL');
    expect(failed?.name).toBe('reveal the key (GET and POST /reveal/{revealId})');
    expect(failed?.detail).toBe('GET 404, POST 404');
    expect(failed?.lookAt).toContain(grantsOf('revealPage'));
    expect(grantsOf('revealPage')).toBe(
      "the revealPage function's execution role: dynamodb:GetItem with LeadingKeys REVEAL#*, APIKEY#*, PARTNER#*; dynamodb:UpdateItem with LeadingKeys REVEAL#*, APIKEY#*; dynamodb:PutItem with LeadingKeys AUDIT#*; dynamodb:ConditionCheckItem with LeadingKeys PARTNER#*",
    );
    expect(results.at(-1)).toMatchObject({ name: 'clean up', outcome: 'PASS' });
    expect(results.at(-1)?.detail).toMatch(
      /^key svc_\w+ revoked; partner verify-\d+-[0-9a-f]+ stays as test data/,
    );
  });
});
