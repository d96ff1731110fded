import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { DescribeMetricFiltersCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteRolePolicyCommand, IAMClient, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { API_BASE_PATH, partnerApiRoutes, publicApiRoutes, SECRET_SCANNING_PATH } from '../../core/routes';
import { COUNT_CHECK, FORCE_CHECK } from '../../verify/authorizer-failure';
import { localAuthorizerFailureProbe } from '../../verify/aws-probe';
import type { CheckResult } from '../../verify/checks';
import { PREREQUISITE_CHECKS, verifyStage } from '../../verify/deploy-checks';
import { functionsQueryingTheIndex, INDEX_QUERY_CHECKS } from '../../verify/deploy-checks/index-queries';
import { OPERATOR_INDEX_CHECK } from '../../verify/deploy-checks/operator-index-query';
import { BACKUP_CHECK } from '../../verify/deploy-checks/recent-copied-backup';
import type { VerifyContext } from '../../verify/deploy-checks/stage-run';
import { grantsOf } from '../../verify/deploy-checks/stage-run';
import { RATE_LIMIT_HEADERS } from '../../verify/http-answers';
import { adminJson } from '../support/cli';
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

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const named = (name: string) => new RegExp(`^${literally(name)}$`);

/** A line about a route: its path with the property id the run filled in, or as the table has it. */
const onRoute = (prefix: string, path: string, suffix = '') =>
  new RegExp(
    `^${literally(prefix)}${literally(path).replaceAll(literally('{propertyId}'), '(\\d+|\\{propertyId\\})')}${literally(suffix)}$`,
  );

/** Every call the verification must make, by the name of its line, in this order. */
const CHECKS: RegExp[] = [
  named('approve a test partner'),
  named('reveal the key (GET and POST /reveal/{revealId})'),
  ...partnerApiRoutes
    .filter((route) => functionsQueryingTheIndex().includes(route.id))
    .map((route) => named(INDEX_QUERY_CHECKS[route.id] ?? '')),
  named(OPERATOR_INDEX_CHECK),
  named('open the activation link'),
  named(INDEX_QUERY_CHECKS.marketplacePage ?? ''),
  named('provision the host (marketplace POST: one TransactWriteItems)'),
  named(INDEX_QUERY_CHECKS.onboardingPage ?? ''),
  named('complete the onboarding wizard'),
  named('GET /usage: authorizer key read, limiter write'),
  ...[...partnerApiRoutes, ...publicApiRoutes].map((route) => onRoute('HEAD ', route.path)),
  ...partnerApiRoutes.map((route) => onRoute('GET ', route.path, ', If-None-Match: its ETag')),
  named(FORCE_CHECK),
  named(COUNT_CHECK),
  named('GET /properties'),
  named('GET /properties, Accept: application/json and Accept-Encoding: gzip'),
  named("GET /properties, Accept-Encoding: gzip and no Accept (Go's default client)"),
  named('POST /properties'),
  named('GET /usage, Accept: text/html'),
  named(`POST ${SECRET_SCANNING_PATH}, unsigned`),
  named('a request the WAF managed rules block'),
  named('npm run admin -- audit list --partner'),
  named('npm run admin -- traffic'),
  named(BACKUP_CHECK),
  named('clean up'),
];

/** The report's lines: `OUTCOME  name: detail`, the name being the longest start that is a known check. */
function parse(stdout: string): { outcome: string; name: string; detail: string }[] {
  return stdout
    .split('\n')
    .filter((line) => /^(PASS|FAIL|SKIP) {2}/.test(line))
    .map((line) => {
      const rest = line.slice(6);
      const starts = [...rest.matchAll(/: /g)].map((match) => rest.slice(0, match.index));
      const name = starts.find((start) => CHECKS.some((check) => check.test(start))) ?? starts[0] ?? rest;
      return { outcome: line.slice(0, 4), name, detail: rest.slice(name.length + 2) };
    });
}

function localContext(target = testTarget()): VerifyContext {
  return {
    target,
    timeoutMs: 15_000,
    trafficWaitMs: 0,
    firewall: false,
    operatorEnvironment: process.env,
    operatorIdentity: 'local',
    operatorStatements: { audit: 'audit statements', traffic: 'traffic statements' },
    authorizerFailure: { skip: 'not in this test' },
    backups: { skip: 'the local server has no AWS Backup' },
  };
}

describe('the deploy verification (npm run verify)', () => {
  it('passes every check against the local stack, one line each in order, and skips only the WAF and AWS Backup (none locally)', async () => {
    const { code, stdout } = await verifyLocal();
    const lines = parse(stdout);

    expect(
      lines.filter((line) => line.outcome !== 'PASS').map((line) => `${line.outcome}  ${line.name}`),
      stdout,
    ).toEqual(['SKIP  a request the WAF managed rules block', `SKIP  ${BACKUP_CHECK}`]);
    expect(lines.map((line) => line.name)).toHaveLength(CHECKS.length);
    for (const [index, line] of lines.entries()) expect(line.name, stdout).toMatch(CHECKS[index] ?? /^$/);
    expect(stdout).toMatch(
      new RegExp(`Verification of local: ${CHECKS.length - 2} checks passed, 0 failed, 2 skipped\\.`),
    );
    // The forced failure was a 503 from the authorizer-failure gateway response, counted by both filters.
    expect(lines.find((line) => line.name === FORCE_CHECK)?.detail).toMatch(
      /^503 service-unavailable, Retry-After 1 after \d+ s \(request [0-9a-f-]{36}\)$/,
    );
    expect(lines.find((line) => line.name === COUNT_CHECK)?.detail).toBe(
      'its access-log line (status 503, responseType AUTHORIZER_FAILURE) counts in partnerApi5xx ({ $.status >= 500 }) and AuthorizerFailures ({ ($.responseType = "AUTHORIZER_FAILURE") || ($.responseType = "AUTHORIZER_CONFIGURATION_ERROR") })',
    );
    // It leaves nothing in use: the test host erased (the platform told, as of any host), the partner
    // suspended, so its links and reveal pages say "not available" and its keys are refused.
    const cleanUp = lines.at(-1)?.detail ?? '';
    const [, slug, hostId] =
      /^key svc_\w+ revoked; partner (verify-\d+-[0-9a-f]+) suspended; \d+ bulk properties deleted; the index check's property deleted; host (\d+) erased \(HostErasureRequested; HostErased sent back\); the partner is kept as test data \(its name says so\)$/.exec(
        cleanUp,
      ) ?? [];
    expect(hostId, cleanUp).toBeDefined();
    expect((await adminJson('partners', 'show', slug ?? '')).suspended).toMatchObject({
      reason: 'Deploy verification finished: test data',
    });
    await expect
      .poll(
        async () =>
          (
            (await adminJson('events', 'sent', '--host', hostId ?? '')).events as { 'detail-type': string }[]
          ).map((event) => event['detail-type']),
        { timeout: 15_000 },
      )
      .toEqual(expect.arrayContaining(['HostErased']));
    expect(code).toBe(0);
  }, 300_000);

  it('has an index check for every function the route table grants a query on the index, run first', () => {
    expect(Object.keys(INDEX_QUERY_CHECKS).sort()).toEqual(functionsQueryingTheIndex().sort());
    const firstOthers = CHECKS.findIndex(
      (check) =>
        ![...PREREQUISITE_CHECKS, ...Object.values(INDEX_QUERY_CHECKS), OPERATOR_INDEX_CHECK].some((name) =>
          check.test(name),
        ),
    );
    const lastIndexCheck = Math.max(
      ...Object.values(INDEX_QUERY_CHECKS).map((name) => CHECKS.findIndex((check) => check.test(name))),
    );
    expect(lastIndexCheck).toBeLessThan(firstOthers);
  });

  it('names the AWS call and the policy statement to look at when a check fails, skips what needs it, and still cleans up', async () => {
    const results: CheckResult[] = [];
    // The pages' base URL replaced by the API's: the reveal page is not there (404).
    const target = { ...testTarget(), activationBaseUrl: inject('apiBaseUrl') };

    await verifyStage(localContext(target), (result) => results.push(result));

    // One line per check of the table, in order, whatever failed: what needs the key says so.
    expect(results).toHaveLength(CHECKS.length);
    for (const [index, result] of results.entries()) expect(result.name).toMatch(CHECKS[index] ?? /^$/);
    expect(
      results
        .filter((result) => result.outcome !== 'SKIP')
        .map((result) => `${result.outcome} ${result.name}`),
    ).toEqual([
      'PASS approve a test partner',
      'FAIL reveal the key (GET and POST /reveal/{revealId})',
      `PASS ${OPERATOR_INDEX_CHECK}`,
      // The link is a page on the same wrong base URL.
      'FAIL open the activation link',
      'PASS clean up',
    ]);
    for (const skipped of results.filter(
      (result) => result.outcome === 'SKIP' && result.name !== FORCE_CHECK && result.name !== BACKUP_CHECK,
    ))
      expect(skipped.detail, skipped.name).toMatch(/^not run: it needs ".+" to pass$/);
    expect(
      results.find((result) => result.name === 'GET /usage: authorizer key read, limiter write')?.detail,
    ).toBe('not run: it needs "reveal the key (GET and POST /reveal/{revealId})" to pass');
    const failed = results.find((result) => result.outcome === 'FAIL');
    expect(failed?.name).toBe('reveal the key (GET and POST /reveal/{revealId})');
    expect(failed?.detail).toBe('GET 404, POST 404');
    expect(failed?.lookAt).toContain(grantsOf('revealPage'));
    expect(grantsOf('revealPage')).toBe(
      "the revealPage function's execution role: dynamodb:GetItem with LeadingKeys REVEAL#*, APIKEY#*, PARTNER#*; dynamodb:UpdateItem with LeadingKeys REVEAL#*, APIKEY#*; dynamodb:PutItem with LeadingKeys AUDIT#*; dynamodb:ConditionCheckItem with LeadingKeys PARTNER#*",
    );
    expect(results.at(-1)).toMatchObject({ name: 'clean up', outcome: 'PASS' });
    // No activation got as far as a host: nothing to erase, but the partner is suspended all the same.
    expect(results.at(-1)?.detail).toMatch(
      /^key svc_\w+ revoked; partner verify-\d+-[0-9a-f]+ suspended; the partner is kept as test data/,
    );
  });

  describe('fails each new check when what it checks is broken', () => {
    let proxy: BreakingProxy;
    const iam = () =>
      new IAMClient({
        endpoint: awsEndpoint(),
        region: 'local',
        credentials: { accessKeyId: 'operator', secretAccessKey: secretAccessKey() },
      });
    // Only the verification's own property (ids 8000<partner>2400, the index check's), so that the
    // suite's other files, which share the server, keep their pricing signals.
    const denyIndexQuery = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Deny',
          Action: 'dynamodb:Query',
          Resource: '*',
          Condition: {
            'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['PROPERTY#8000????2400#BOOKINGS'] },
          },
        },
      ],
    };

    beforeAll(async () => {
      proxy = await breakingProxy(new URL(inject('apiBaseUrl')).origin);
      await iam().send(
        new PutRolePolicyCommand({
          RoleName: 'pricingSignals',
          PolicyName: 'test-deny-index-query',
          PolicyDocument: JSON.stringify(denyIndexQuery),
        }),
      );
    });
    afterAll(async () => {
      await iam().send(
        new DeleteRolePolicyCommand({ RoleName: 'pricingSignals', PolicyName: 'test-deny-index-query' }),
      );
      await proxy?.close();
    });

    it('an index query denied, HEAD with a body, a 304 without rate-limit headers, a filter that no longer matches', async () => {
      const probe = localAuthorizerFailureProbe({
        awsEndpoint: awsEndpoint(),
        secretAccessKey: secretAccessKey(),
      });
      // The stage's answered-5xx filter, as if its pattern had been changed to one that misses a 503.
      probe.logs.middlewareStack.add(
        (next, context) => async (args) => {
          const output = await next(args);
          if (context.commandName === DescribeMetricFiltersCommand.name) {
            const body = output.output as { metricFilters?: { filterPattern?: string }[] };
            for (const filter of body.metricFilters ?? [])
              if (filter.filterPattern === '{ $.status >= 500 }')
                filter.filterPattern = '{ $.status >= 600 }';
          }
          return output;
        },
        { step: 'initialize', name: 'breakAnsweredServerErrorsFilter' },
      );
      const results: CheckResult[] = [];

      await verifyStage(
        {
          ...localContext({ ...testTarget(), apiBaseUrl: `${proxy.url}${API_BASE_PATH}` }),
          authorizerFailure: { ...probe, logWaitMs: 5_000 },
        },
        (result) => results.push(result),
      );
      const outcome = (pattern: RegExp) => results.filter((result) => pattern.test(result.name));
      const failures = results.filter((result) => result.outcome === 'FAIL');

      // The deny is the first failure, right after the partner and its key: the top of the report.
      expect(results.slice(0, 3).map((result) => `${result.outcome} ${result.name}`)).toEqual([
        'PASS approve a test partner',
        'PASS reveal the key (GET and POST /reveal/{revealId})',
        `FAIL ${INDEX_QUERY_CHECKS.pricingSignals}`,
      ]);
      expect(failures[0]?.lookAt).toContain('dynamodb:Query on the index with LeadingKeys PROPERTY#');
      for (const head of outcome(/^HEAD /)) {
        expect(head.outcome, head.name).toBe('FAIL');
        if (!head.name.includes('pricing-signals'))
          expect(head.detail, head.name).toMatch(/^\d+ body bytes$/);
      }
      for (const revalidation of outcome(/If-None-Match/).filter(
        (result) => !result.name.includes('pricing'),
      )) {
        expect(revalidation.outcome, revalidation.name).toBe('FAIL');
        expect(revalidation.detail, revalidation.name).toBe(`no ${RATE_LIMIT_HEADERS.join(', ')}`);
      }
      expect(outcome(named(FORCE_CHECK))[0]?.outcome).toBe('PASS');
      expect(outcome(named(COUNT_CHECK))[0]).toMatchObject({
        outcome: 'FAIL',
        detail:
          'its access-log line (status 503, responseType AUTHORIZER_FAILURE): partnerApi5xx ({ $.status >= 600 }) does not match it',
      });
      // Nothing else failed: each failure is one of the three breakages.
      expect(
        failures
          .map((result) => result.name)
          .filter(
            (name) =>
              !/^HEAD |If-None-Match/.test(name) &&
              name !== INDEX_QUERY_CHECKS.pricingSignals &&
              name !== COUNT_CHECK,
          ),
      ).toEqual([]);
      expect(results.at(-1)).toMatchObject({ name: 'clean up', outcome: 'PASS' });
    }, 300_000);
  });
});

const awsEndpoint = () => inject('localEnvironment').AWS_ENDPOINT_URL_SECRETS_MANAGER ?? '';
const secretAccessKey = () => inject('localEnvironment').AWS_SECRET_ACCESS_KEY ?? '';

interface BreakingProxy {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A gateway that breaks two things on the way back, speaking raw HTTP/1.1 so it can: a HEAD answer
 * gets a body (which no HTTP client would read), and a 304 loses the rate-limit headers.
 */
async function breakingProxy(upstream: string): Promise<BreakingProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [requestLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const [method = 'GET', path = '/'] = requestLine.split(' ');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).trim(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const length = Number(headers['Content-Length'] ?? headers['content-length'] ?? 0);
      if (received.length < end + 4 + length) return;
      const body = received.subarray(end + 4, end + 4 + length);
      socket.removeAllListeners('data');
      const forwarded = httpRequest(
        `${upstream}${path}`,
        { method, headers: { ...headers, host: new URL(upstream).host, connection: 'close' } },
        async (answer) => {
          const chunks: Buffer[] = [];
          for await (const chunk of answer) chunks.push(chunk as Buffer);
          let payload = Buffer.concat(chunks);
          const out: string[] = [];
          for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2) {
            const name = answer.rawHeaders[index] ?? '';
            const lower = name.toLowerCase();
            if (['content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(lower)) continue;
            if (answer.statusCode === 304 && RATE_LIMIT_HEADERS.includes(lower)) continue;
            out.push(`${name}: ${answer.rawHeaders[index + 1]}`);
          }
          if (method === 'HEAD') payload = Buffer.from('a body where there must be none');
          else out.push(`Content-Length: ${payload.length}`);
          socket.end(
            Buffer.concat([
              Buffer.from(
                `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\n${[...out, 'Connection: close'].join('\r\n')}\r\n\r\n`,
                'latin1',
              ),
              payload,
            ]),
          );
        },
      );
      forwarded.on('error', () => socket.destroy());
      forwarded.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
