import * as z from 'zod/mini';
import { problemSchema, propertyListSchema, responseSchemas } from '../../core/contract/api-schemas';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from '../../core/contract/problems';
import { RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS, rateLimitHeaders } from '../../core/domain/rate-limit';
import { jsonOrUndefined } from '../../core/json';
import type { PartnerApiRoute } from '../../core/routes';
import { PROPERTY_ID, partnerApiRoutes } from '../../core/routes';

/**
 * What the stage's CloudWatch Synthetics canary checks on every run (lib/constructs/partner-api-canary.ts,
 * docs/deploying.md#the-canary): each route of the partner API called with the canary's own key,
 * answered 200 with a body the contract's schema accepts and the rate-limit headers the API sends.
 * Plain `fetch`, no AWS: the same module runs in the tests against the local server.
 *
 * The key never leaves the request's `Authorization` header: no step's detail names it, and a
 * detail that would quote it (a server echoing it back) has it replaced before it is returned.
 */

export interface CanaryTarget {
  /** The stage's `ApiBaseUrl`, ending in /partner-api/v1. */
  readonly baseUrl: string;
  readonly key: string;
  /** The property whose pricing signals are checked; default: the first of `GET /properties`. */
  readonly propertyId?: number;
  /** Per request. @default 10 s */
  readonly timeoutMs?: number;
}

/** One step of a run: the route it called (a stable name, the Synthetics step's), and how it went. */
export interface CanaryStep {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * Runs one step's check; the default calls it. The canary passes Synthetics' `executeStep`, which
 * records the step's duration and outcome, and rethrows what the check throws.
 */
export type StepRunner = (name: string, check: () => Promise<string>) => Promise<string>;

export interface CanaryOptions {
  readonly runStep?: StepRunner;
  /** The clock the `X-RateLimit-Reset` time is judged by. @default Date.now */
  readonly now?: () => number;
}

/** A check that found the answer wrong: its message is the step's detail. */
class CheckFailed extends Error {
  override name = 'CheckFailed';
}

/** An id no partner's property has: with no property to ask about, its documented 404. */
export const UNKNOWN_PROPERTY_ID = 999_999_999_999;

/** The rate-limit headers on every answer of the API's own code to a key (the names the handlers send). */
const RATE_LIMIT_HEADER_NAMES = Object.keys(
  rateLimitHeaders({ admitted: true, atMs: 0, limit: RATE_LIMIT.limit, remaining: 0, resetSeconds: 0 }),
);

/** How far from the canary's clock `X-RateLimit-Reset` may be: the window, and a minute of clock skew. */
const RESET_TOLERANCE_SECONDS = RATE_LIMIT_WINDOW_SECONDS + 60;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: unknown;
}

/**
 * Checks every route of the partner API, in the route table's order: the routes without a path
 * parameter first (`GET /properties` gives a property id), then the others on the target's property
 * or the first listed. A partner with no property at all gets `GET /properties/{UNKNOWN_PROPERTY_ID}/…`
 * checked for its documented 404 instead: the route is reached, authorized and counted, though
 * its 200 cannot be. Every step runs whatever the others did.
 */
export async function checkPartnerApi(
  target: CanaryTarget,
  options: CanaryOptions = {},
): Promise<CanaryStep[]> {
  const runStep = options.runStep ?? ((_name, check) => check());
  const now = options.now ?? Date.now;
  const steps: CanaryStep[] = [];
  let listedPropertyId: number | undefined;
  const ordered = [...partnerApiRoutes].sort(
    (first, second) => first.pathParameters.length - second.pathParameters.length,
  );
  for (const route of ordered) {
    const name = `GET ${route.path}`;
    const check = async () => {
      const propertyId = target.propertyId ?? listedPropertyId;
      const answer = await call(target, filledPath(route, propertyId ?? UNKNOWN_PROPERTY_ID));
      if (route.id === 'properties') listedPropertyId = firstPropertyId(answer.json);
      if (route.pathParameters.length > 0 && propertyId === undefined) return judgeNotFound(answer, now());
      return judge(answer, responseSchemas[route.responseSchema], now());
    };
    // Redacted before the runner sees a failure: Synthetics' step runner logs it as thrown.
    steps.push(await step(name, () => runStep(name, redacting(check, target.key)), target.key));
  }
  return steps;
}

/** A step's outcome: its check's detail, or why it failed; never with the key in it. */
async function step(name: string, run: () => Promise<string>, key: string): Promise<CanaryStep> {
  try {
    return { name, ok: true, detail: withoutKey(await run(), key) };
  } catch (error) {
    const { name: errorName, message } = error as Error;
    const detail = errorName === 'CheckFailed' ? message : `${errorName}: ${message}`;
    return { name, ok: false, detail: withoutKey(detail, key) };
  }
}

/** `check`, its failures rethrown with the key replaced by its prefix (the error's name kept). */
function redacting(check: () => Promise<string>, key: string): () => Promise<string> {
  return async () => {
    try {
      return await check();
    } catch (error) {
      const { name, message } = error as Error;
      throw Object.assign(new Error(withoutKey(String(message), key)), { name });
    }
  };
}

/** The text with the key replaced by its public prefix (what the access log and support name a key by). */
export function withoutKey(text: string, key: string): string {
  return key.length === 0 ? text : text.replaceAll(key, `${key.slice(0, 12)}…`);
}

function filledPath(route: PartnerApiRoute, propertyId: number): string {
  return route.pathParameters.reduce<string>(
    (path, parameter) =>
      parameter === PROPERTY_ID ? path.replace(`{${parameter.name}}`, String(propertyId)) : path,
    route.path,
  );
}

function firstPropertyId(json: unknown): number | undefined {
  const list = z.safeParse(propertyListSchema, json);
  return list.success ? list.data.properties[0]?.id : undefined;
}

async function call(target: CanaryTarget, path: string): Promise<Answer> {
  const response = await fetch(target.baseUrl + path, {
    headers: {
      Accept: 'application/json',
      Authorization: `Bearer ${target.key}`,
      'User-Agent': 'partner-api-canary',
    },
    signal: AbortSignal.timeout(target.timeoutMs ?? 10_000),
  });
  const json = jsonOrUndefined(await response.text());
  return { status: response.status, headers: response.headers, json };
}

/** A 200 of the route's schema, as `application/json`, with the rate-limit headers. */
function judge(answer: Answer, schema: z.ZodMiniType, nowMs: number): string {
  const failures = [
    ...(answer.status === 200 ? [] : [`status ${answer.status}, not 200${problemTitle(answer.json)}`]),
    ...mediaTypeFailures(answer, 'application/json'),
    ...(answer.status === 200 ? shapeFailures(schema, answer.json) : []),
    ...rateLimitFailures(answer.headers, nowMs),
  ];
  if (failures.length > 0) throw new CheckFailed(failures.join('; '));
  return `200, body matches the schema, ${rateLimitSummary(answer.headers)}`;
}

/** The documented 404 of a property that is not the partner's, with the rate-limit headers (the request counted). */
function judgeNotFound(answer: Answer, nowMs: number): string {
  const expectedType = PROBLEM_TYPE_BASE + PROPERTY_ID.notFound.problem;
  const type = z.safeParse(problemSchema, answer.json).data?.type;
  const failures = [
    ...(answer.status === 404 ? [] : [`status ${answer.status}, not 404${problemTitle(answer.json)}`]),
    ...mediaTypeFailures(answer, PROBLEM_CONTENT_TYPE),
    ...shapeFailures(problemSchema, answer.json),
    ...(type === undefined || type === expectedType ? [] : [`problem type ${type}, not ${expectedType}`]),
    ...rateLimitFailures(answer.headers, nowMs),
  ];
  if (failures.length > 0) throw new CheckFailed(failures.join('; '));
  return `the partner has no property: 404 ${PROPERTY_ID.notFound.problem} as documented, ${rateLimitSummary(answer.headers)}`;
}

function problemTitle(json: unknown): string {
  const problem = z.safeParse(problemSchema, json);
  return problem.success ? ` (${problem.data.type.replace(PROBLEM_TYPE_BASE, '')})` : '';
}

function mediaTypeFailures(answer: Answer, mediaType: string): string[] {
  const contentType = answer.headers.get('content-type') ?? '';
  return contentType.toLowerCase().startsWith(mediaType)
    ? []
    : [`Content-Type "${contentType}", not ${mediaType}`];
}

/** Where the body departs from the schema (the path and zod's message, never the value). */
function shapeFailures(schema: z.ZodMiniType, json: unknown): string[] {
  const parsed = z.safeParse(schema, json);
  if (parsed.success) return [];
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
  return [`body does not match the schema: ${issues.join(', ')}`];
}

/**
 * The rate-limit headers: each present, the policy the API states (`RATE_LIMIT`), the remaining
 * count the same in both forms and within the limit, and a reset time near the canary's clock.
 */
function rateLimitFailures(headers: Headers, nowMs: number): string[] {
  const missing = RATE_LIMIT_HEADER_NAMES.filter((name) => headers.get(name) === null);
  if (missing.length > 0) return [`no ${missing.join(', ')} header`];
  const failures: string[] = [];
  const policy = `"per-key";q=${RATE_LIMIT.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`;
  if (headers.get('RateLimit-Policy') !== policy)
    failures.push(`RateLimit-Policy "${headers.get('RateLimit-Policy')}", not ${policy}`);
  if (headers.get('X-RateLimit-Limit') !== String(RATE_LIMIT.limit))
    failures.push(`X-RateLimit-Limit "${headers.get('X-RateLimit-Limit')}", not ${RATE_LIMIT.limit}`);
  const remaining = headers.get('X-RateLimit-Remaining') ?? '';
  if (!/^\d+$/.test(remaining) || Number(remaining) > RATE_LIMIT.limit)
    failures.push(`X-RateLimit-Remaining "${remaining}" is no count from 0 to ${RATE_LIMIT.limit}`);
  const rateLimit = /^"per-key";r=(\d+);t=(\d+)$/.exec(headers.get('RateLimit') ?? '');
  if (!rateLimit || rateLimit[1] !== remaining)
    failures.push(`RateLimit "${headers.get('RateLimit')}" does not state r=${remaining};t=<seconds>`);
  const reset = headers.get('X-RateLimit-Reset') ?? '';
  if (!/^\d+$/.test(reset) || Math.abs(Number(reset) - nowMs / 1000) > RESET_TOLERANCE_SECONDS)
    failures.push(`X-RateLimit-Reset "${reset}" is no Unix time within ${RESET_TOLERANCE_SECONDS} s of now`);
  return failures;
}

function rateLimitSummary(headers: Headers): string {
  return `rate limit ${headers.get('X-RateLimit-Remaining')} of ${headers.get('X-RateLimit-Limit')} left`;
}

/** The failed steps in one line, for the error that fails the run. */
export function failureSummary(steps: readonly CanaryStep[]): string {
  return steps
    .filter((result) => !result.ok)
    .map((result) => `${result.name}: ${result.detail}`)
    .join(' | ');
}
