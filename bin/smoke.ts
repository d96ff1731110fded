import { parseArgs } from 'node:util';
import { reportLine, tally } from '../verify/checks';
import { smokeCheck } from '../verify/smoke-checks';

/**
 * `npm run smoke`: the partner API's contract as one key sees it, from anywhere (the table of
 * checks is verify/smoke-checks.ts). It differs from `npm run verify` (bin/verify.ts) in who can
 * run it and what it touches: it needs only the API's URL and a partner key (no AWS credentials)
 * and writes nothing, so it can run at any time against any stage, production included, from a
 * pipeline or a machine without AWS access; verify needs AWS credentials, creates a test partner
 * and proves IAM and API Gateway behaviour call by call. Both run their tables with the same
 * runner and print the same report (verify/checks.ts); docs/deploying.md says more ("Two commands,
 * one runner").
 */

const USAGE = `Usage: npm run smoke -- --base-url URL --key KEY [--timeout-ms 10000]
  Checks a stage from outside with one partner key, no AWS credentials: status codes, content
  types and shapes of every route of the partner API and of the errors API Gateway answers itself,
  as that key's scopes decide. About ten requests, nothing written; one line per check, exits 1 on
  a failure.
  --base-url   the ApiBaseUrl output, ending in /partner-api/v1
  --key        a partner API key of that stage (svc_...); or set PARTNER_API_KEY, which keeps
               the key out of your shell history and the process list`;

function readOptions(): { baseUrl: string; key: string; timeoutMs: number } {
  try {
    const { values } = parseArgs({
      options: {
        'base-url': { type: 'string' },
        key: { type: 'string' },
        'timeout-ms': { type: 'string', default: '10000' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const baseUrl = values['base-url']?.replace(/\/+$/, '');
    const key = (values.key ?? process.env.PARTNER_API_KEY)?.trim();
    const timeoutMs = Number(values['timeout-ms']);
    if (!baseUrl || !/^https?:\/\//.test(baseUrl)) throw new Error('--base-url is required (http(s)://...).');
    if (!key) throw new Error('--key (or PARTNER_API_KEY) is required.');
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new Error('--timeout-ms must be a positive integer.');
    return { baseUrl, key, timeoutMs };
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const options = readOptions();
try {
  console.log(`Smoke test of ${options.baseUrl}`);
  const results = await smokeCheck(options, (result) => console.log(reportLine(result)));
  const count = tally(results);
  const skipped = count.SKIP > 0 ? ` (${count.SKIP} skipped)` : '';
  console.log(
    count.FAIL === 0
      ? `All ${count.PASS} checks passed${skipped}.`
      : `${count.FAIL} of ${results.length} checks failed${skipped}.`,
  );
  process.exitCode = count.FAIL === 0 ? 0 : 1;
} catch (error) {
  console.error(`Smoke test aborted: ${(error as Error).message}`);
  process.exitCode = 1;
}
