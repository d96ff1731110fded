import type { CloudWatchLogsClient, MetricFilter } from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeMetricFiltersCommand,
  FilterLogEventsCommand,
  TestMetricFilterCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import type { IAMClient } from '@aws-sdk/client-iam';
import { DeleteRolePolicyCommand, ListRolePoliciesCommand, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { generateApiKey } from '../core/domain/api-key';
import { API_KEY_PARTITION } from '../core/partitions';
import type { Verdict } from './checks';
import { fail, pass } from './checks';
import type { RawAnswer } from './http-answers';
import { header, rawRequest } from './http-answers';

/**
 * The forced authorizer failure of `npm run verify` (docs/deploying.md): a real failure of the
 * real authorizer behind the real gateway, with nothing in the service's code that a request
 * could trigger. The verification puts an inline policy on the authorizer's execution role that
 * denies `dynamodb:GetItem` of key records that were never issued (fresh, well-formed keys it
 * just made up), presents one of those keys, and removes the policy again. The authorizer's read
 * fails with AccessDeniedException, the function fails, and API Gateway answers with the
 * authorizer-failure gateway response (503). Then the access-log line of that very request is
 * read back and the stage's own metric filters are tested on it (`TestMetricFilter`): the
 * answered-5xx filter must count it, and so must the authorizer-failures filter.
 *
 * Locally the same calls go to the local AWS endpoint, which emulates exactly these: inline
 * policies on a function's role, enforced on its DynamoDB calls, and the access log as a log
 * group with the stack's metric filters.
 */
export interface AuthorizerFailureProbe {
  readonly iam: IAMClient;
  readonly logs: CloudWatchLogsClient;
  /** The authorizer function's execution role (locally: the function's name). */
  readonly authorizerRoleName: string;
  /** The partner API's access log group. */
  readonly accessLogGroupName: string;
  /** How long the inline policy may take to apply (IAM is eventually consistent). */
  readonly denyWaitMs: number;
  /** How long the access-log line may take to arrive (delivery to CloudWatch Logs is asynchronous). */
  readonly logWaitMs: number;
}

/** What the verification names its inline policies; a run that was interrupted left one, which the next removes. */
const POLICY_NAME_PREFIX = 'deploy-verification-';

/** The metric name of the filter that counts answers with a 5xx status (`<api>5xx`, AccessLogMetrics). */
const ANSWERED_5XX_METRIC = /5xx$/;
const AUTHORIZER_FAILURES_METRIC = 'AuthorizerFailures';

/** Never-issued keys tried one after another until the deny applies (each is cached as unknown once read). */
const KEYS_TO_TRY = 40;
const RETRY_MS = 2_000;

/** The request the forced failure answered, for the check that it was counted. */
export interface ForcedFailure {
  readonly requestId: string;
  /** When it was sent: the access-log search starts a minute before. */
  readonly sentAt: number;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function requestIdOf(answer: RawAnswer): string {
  try {
    const body = JSON.parse(answer.bytes.toString('utf8')) as { request_id?: unknown };
    if (typeof body.request_id === 'string' && body.request_id) return body.request_id;
  } catch {
    // Not JSON: the gateway's own id below.
  }
  return header(answer, 'x-amzn-requestid');
}

export const FORCE_CHECK = 'authorizer failure, forced: GET /usage with GetItem of the key denied';
export const COUNT_CHECK = 'authorizer failure, counted by the answered-5xx metric filter';

/** Forces the failure (the FORCE_CHECK line) and says which request it answered, to count (COUNT_CHECK). */
export async function forceAuthorizerFailure(
  probe: AuthorizerFailureProbe,
  apiBaseUrl: string,
  timeoutMs: number,
): Promise<{ readonly verdict: Verdict; readonly forced?: ForcedFailure }> {
  const permissions = `your own credentials: iam:ListRolePolicies, iam:PutRolePolicy and iam:DeleteRolePolicy on the role ${probe.authorizerRoleName}`;
  const keys = Array.from({ length: KEYS_TO_TRY }, () => generateApiKey());
  const policyName = `${POLICY_NAME_PREFIX}${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const document = {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'DenyReadingKeysNeverIssued',
        Effect: 'Deny',
        Action: 'dynamodb:GetItem',
        Resource: '*',
        Condition: {
          'ForAnyValue:StringEquals': {
            'dynamodb:LeadingKeys': keys.map((key) => `${API_KEY_PARTITION}${key.prefix}`),
          },
        },
      },
    ],
  };
  let failed: RawAnswer | undefined;
  let sentAt = Date.now();
  let waitedMs = 0;
  let last: RawAnswer | undefined;
  try {
    // A policy an interrupted run left behind denies only keys nobody has; it goes all the same.
    const { PolicyNames = [] } = await probe.iam.send(
      new ListRolePoliciesCommand({ RoleName: probe.authorizerRoleName }),
    );
    for (const stale of PolicyNames.filter((name) => name.startsWith(POLICY_NAME_PREFIX)))
      await probe.iam.send(
        new DeleteRolePolicyCommand({ RoleName: probe.authorizerRoleName, PolicyName: stale }),
      );
    await probe.iam.send(
      new PutRolePolicyCommand({
        RoleName: probe.authorizerRoleName,
        PolicyName: policyName,
        PolicyDocument: JSON.stringify(document),
      }),
    );
  } catch (error) {
    const { name, message } = error as Error;
    return { verdict: fail(`${name}: ${message}`, permissions) };
  }
  try {
    const started = Date.now();
    for (const key of keys) {
      sentAt = Date.now();
      last = await rawRequest(
        `${apiBaseUrl}/usage`,
        'GET',
        { Authorization: `Bearer ${key.key}`, Accept: 'application/json' },
        timeoutMs,
      );
      waitedMs = Date.now() - started;
      if (last.status >= 500) {
        failed = last;
        break;
      }
      if (waitedMs > probe.denyWaitMs) break;
      await wait(RETRY_MS);
    }
  } finally {
    await probe.iam
      .send(new DeleteRolePolicyCommand({ RoleName: probe.authorizerRoleName, PolicyName: policyName }))
      .catch(() => undefined);
  }
  if (!failed)
    return {
      verdict: fail(
        `no 5xx within ${Math.round(waitedMs / 1000)} s: the last never-issued key was answered ${last?.status ?? '-'}`,
        `the inline policy ${policyName} on ${probe.authorizerRoleName} (IAM applies changes within seconds, rarely a minute), and the authorizer's handling of a failed read (lambdas/api/authorizer.ts)`,
      ),
    };
  const requestId = requestIdOf(failed);
  const problem = (() => {
    try {
      return String((JSON.parse(failed.bytes.toString('utf8')) as { type?: unknown }).type ?? '')
        .split('/')
        .pop();
    } catch {
      return '';
    }
  })();
  return {
    verdict: pass(
      `${failed.status} ${problem}${header(failed, 'retry-after') ? `, Retry-After ${header(failed, 'retry-after')}` : ''} after ${Math.round(waitedMs / 1000)} s (request ${requestId})`,
    ),
    forced: { requestId, sentAt },
  };
}

async function accessLogLine(probe: AuthorizerFailureProbe, requestId: string, sentAt: number) {
  const deadline = Date.now() + probe.logWaitMs;
  for (;;) {
    let nextToken: string | undefined;
    do {
      // A search over many streams can answer a page with no event and a token to go on.
      const page = await probe.logs.send(
        new FilterLogEventsCommand({
          logGroupName: probe.accessLogGroupName,
          filterPattern: `{ $.requestId = "${requestId}" }`,
          startTime: sentAt - 60_000,
          ...(nextToken ? { nextToken } : {}),
        }),
      );
      const line = page.events?.find((event) => event.message)?.message;
      if (line) return line;
      nextToken = page.nextToken;
    } while (nextToken);
    if (Date.now() >= deadline) return undefined;
    await wait(Math.min(5_000, Math.max(200, probe.logWaitMs / 20)));
  }
}

/** Whether the stage's answered-5xx and authorizer-failures filters both count the forced failure's log line. */
export async function countedByFilters(
  probe: AuthorizerFailureProbe,
  { requestId, sentAt }: ForcedFailure,
): Promise<Verdict> {
  const filtersAt = `the metric filters of ${probe.accessLogGroupName} (lib/constructs/access-log-metrics.ts) and the access-log format (status, responseType)`;
  try {
    const line = await accessLogLine(probe, requestId, sentAt);
    if (!line)
      return fail(
        `no access-log line of request ${requestId} in ${probe.accessLogGroupName} within ${Math.round(probe.logWaitMs / 1000)} s`,
        `the stage's access logging to ${probe.accessLogGroupName} (delivery can lag: --traffic-wait-seconds)`,
      );
    const { metricFilters = [] } = await probe.logs.send(
      new DescribeMetricFiltersCommand({ logGroupName: probe.accessLogGroupName }),
    );
    const named = (test: (metricName: string) => boolean) =>
      metricFilters.filter((filter) =>
        (filter.metricTransformations ?? []).some((transformation) => test(transformation.metricName ?? '')),
      );
    const wanted: [string, MetricFilter[]][] = [
      ['the answered-5xx filter', named((metric) => ANSWERED_5XX_METRIC.test(metric))],
      ['the authorizer-failures filter', named((metric) => metric === AUTHORIZER_FAILURES_METRIC)],
    ];
    const fields = (() => {
      try {
        const entry = JSON.parse(line) as { status?: unknown; responseType?: unknown };
        return `status ${String(entry.status)}, responseType ${String(entry.responseType)}`;
      } catch {
        return 'not JSON';
      }
    })();
    const verdicts: string[] = [];
    const misses: string[] = [];
    for (const [what, filters] of wanted) {
      if (filters.length === 0) {
        misses.push(`${what} is not on the log group`);
        continue;
      }
      for (const filter of filters) {
        const { matches = [] } = await probe.logs.send(
          new TestMetricFilterCommand({
            filterPattern: filter.filterPattern ?? '',
            logEventMessages: [line],
          }),
        );
        const metric = filter.metricTransformations?.[0]?.metricName ?? filter.filterName;
        if (matches.length === 1) verdicts.push(`${metric} (${filter.filterPattern})`);
        else misses.push(`${metric} (${filter.filterPattern}) does not match it`);
      }
    }
    return misses.length === 0
      ? pass(`its access-log line (${fields}) counts in ${verdicts.join(' and ')}`)
      : fail(`its access-log line (${fields}): ${misses.join('; ')}`, filtersAt);
  } catch (error) {
    const { name, message } = error as Error;
    return fail(
      `${name}: ${message}`,
      `your own credentials: logs:FilterLogEvents, logs:DescribeMetricFilters and logs:TestMetricFilter on ${probe.accessLogGroupName}`,
    );
  }
}
