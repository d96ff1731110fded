import * as z from 'zod/mini';
import { problemSchema, propertyListSchema, responseSchemas } from '../core/contract/api-schemas';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from '../core/contract/problems';
import type { Scope } from '../core/domain/scopes';
import { BASE_SCOPES } from '../core/domain/scopes';
import { jsonOrUndefined } from '../core/json';
import type { PartnerApiRoute } from '../core/routes';
import { PROPERTY_ID, partnerApiRoute, partnerApiRoutes } from '../core/routes';
import type { Check, CheckResult, CheckRow, Verdict } from './checks';
import { fail, pass, runChecks, skip } from './checks';

/**
 * The smoke check (`npm run smoke`, docs/deploying.md): the partner API's contract as one partner
 * key sees it, from outside: each answer's status, media type, body schema and problem type, for
 * every route of the table and the errors API Gateway answers itself. About ten requests, all
 * reads but one POST the gateway refuses; nothing is written but the key's rate window.
 *
 * It shares the runner and the report with `npm run verify` (checks.ts) but not the table:
 * verify's checks need AWS credentials and a test partner they create (every scope, a fresh
 * property), smoke's hold for whatever key they are given, which decides what each route must
 * answer (a key without a route's scope gets that route's 403).
 */

export interface SmokeContext {
  /** The ApiBaseUrl output, ending in /partner-api/v1. */
  readonly baseUrl: string;
  readonly key: string;
  readonly timeoutMs: number;
}

/** One run of the table: what GET /properties showed of the key, for the checks after it. */
interface SmokeRun {
  readonly context: SmokeContext;
  revenueScope: boolean;
  firstPropertyId?: number;
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly headers: Headers;
  readonly json: unknown;
}

/** The body schema each accepted status must have, and for a problem its type's name. */
type Expected = Record<number, z.ZodMiniType>;
type ProblemNames = Partial<Record<number, string>>;

/** An id no partner's property has: the 404 of a property that is not the key's. */
const UNKNOWN_PROPERTY = 999_999_999_999;

const SMOKE_CHECKS: readonly CheckRow<SmokeRun>[] = [
  {
    name: 'GET /usage without a key',
    run: (run) => judged(run, 'GET', '/usage', {}, { 401: problemSchema }, { 401: 'missing-api-key' }),
  },
  {
    name: 'GET /usage with a malformed key',
    run: (run) =>
      judged(
        run,
        'GET',
        '/usage',
        { Authorization: 'Bearer svc_not-a-key' },
        { 401: problemSchema },
        { 401: 'malformed-api-key' },
      ),
  },
  { name: 'GET /properties', run: properties },
  // Every other route of the table, each against its own response schema: a route added to the
  // table is checked here without a line of its own.
  (run) =>
    partnerApiRoutes.filter((route) => route.id !== 'properties').map((route) => routeCheck(run, route)),
  {
    name: `GET /properties/${UNKNOWN_PROPERTY}/pricing-signals`,
    run: (run) =>
      judged(
        run,
        'GET',
        `/properties/${UNKNOWN_PROPERTY}/pricing-signals`,
        withKey(run),
        scoped(run, PRICING_SCOPE, 404),
        scopedProblem(run, PRICING_SCOPE, 404, 'property-not-found'),
      ),
  },
  (run) => {
    const path = `/properties/${run.firstPropertyId ?? UNKNOWN_PROPERTY}/pricing-signals?lookback_days=0`;
    return [
      {
        name: `GET ${path}`,
        run: () =>
          judged(
            run,
            'GET',
            path,
            withKey(run),
            scoped(run, PRICING_SCOPE, 400),
            scopedProblem(run, PRICING_SCOPE, 400, 'invalid-request'),
          ),
      },
    ];
  },
  { name: 'POST /properties', run: methodNotAllowed },
  {
    name: 'GET /no-such-route',
    run: (run) =>
      judged(run, 'GET', '/no-such-route', withKey(run), { 404: problemSchema }, { 404: 'not-found' }),
  },
];

/** Runs SMOKE_CHECKS against the context's API, passing each result to `log` as it comes. */
export function smokeCheck(
  context: SmokeContext,
  log: (result: CheckResult) => void,
): Promise<CheckResult[]> {
  return runChecks(
    SMOKE_CHECKS,
    { context, revenueScope: false },
    log,
    `the network path to ${context.baseUrl}`,
  );
}

const withKey = (run: SmokeRun) => ({ Authorization: `Bearer ${run.context.key}` });

/** The scope GET /properties needs: its answer shows whether the key holds it. */
const PROPERTIES_SCOPE = partnerApiRoute('properties').scope;
const PRICING_SCOPE = partnerApiRoute('pricingSignals').scope;

/**
 * Whether the key holds `scope`: every key holds the base scopes, and GET /properties showed
 * whether it holds that route's scope; of another scope the check cannot tell (undefined).
 */
function holds(run: SmokeRun, scope: Scope): boolean | undefined {
  if (BASE_SCOPES.includes(scope)) return true;
  return scope === PROPERTIES_SCOPE ? run.revenueScope : undefined;
}

// A key without a route's scope gets 403 before the route looks at its input; when the check
// cannot tell whether the key holds it, either answer is right.
function scoped(run: SmokeRun, scope: Scope, status: number): Expected {
  const held = holds(run, scope);
  if (held === undefined) return { [status]: problemSchema, 403: problemSchema };
  return held ? { [status]: problemSchema } : { 403: problemSchema };
}
function scopedProblem(run: SmokeRun, scope: Scope, status: number, type: string): ProblemNames {
  const held = holds(run, scope);
  if (held === undefined) return { [status]: type, 403: 'insufficient-scope' };
  return held ? { [status]: type } : { 403: 'insufficient-scope' };
}

async function call(
  run: SmokeRun,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<Answer> {
  const response = await fetch(run.context.baseUrl + path, {
    method,
    headers: { Accept: 'application/json', ...headers },
    signal: AbortSignal.timeout(run.context.timeoutMs),
  });
  const json = jsonOrUndefined(await response.text());
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    headers: response.headers,
    json,
  };
}

function shapeError(schema: z.ZodMiniType, value: unknown): string | undefined {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid';
}

/** What is wrong with an answer: status among those expected, media type, body shape, request id. */
function differences(answer: Answer, expected: Expected, problemName: ProblemNames): string[] {
  const schema = expected[answer.status];
  const failures: string[] = [];
  if (!schema) {
    failures.push('unexpected status');
  } else {
    const isProblem = schema === problemSchema;
    const mediaType = isProblem ? PROBLEM_CONTENT_TYPE : 'application/json';
    if (!answer.contentType.toLowerCase().startsWith(mediaType))
      failures.push(`Content-Type "${answer.contentType}", not ${mediaType}`);
    const shape = shapeError(schema, answer.json);
    if (shape) failures.push(`shape: ${shape}`);
    const wantedType = problemName[answer.status];
    if (isProblem && wantedType && !shape) {
      const type = (answer.json as { type: string }).type;
      if (type !== PROBLEM_TYPE_BASE + wantedType) failures.push(`problem type ${type}, not ${wantedType}`);
    }
  }
  if (!answer.headers.get('x-amzn-requestid')) failures.push('no x-amzn-RequestId header');
  return failures;
}

/** Judges one answer: `200 (expected 200 or 403)`, then what is wrong with it, or the note. */
function judge(
  request: string,
  answer: Answer,
  expected: Expected,
  problemName: ProblemNames,
  note?: string,
): Verdict {
  const got = `${answer.status} (expected ${Object.keys(expected).join(' or ')})`;
  const failures = differences(answer, expected, problemName);
  if (failures.length === 0) return pass(note ? `${got}; ${note}` : got);
  return fail(
    `${got}; ${failures.join('; ')}`,
    `what openapi/partner-api.json documents for ${request}, and the gateway responses (core/contract/gateway-responses.ts)`,
  );
}

async function judged(
  run: SmokeRun,
  method: string,
  path: string,
  headers: Record<string, string>,
  expected: Expected,
  problemName: ProblemNames,
): Promise<Verdict> {
  return judge(`${method} ${path}`, await call(run, method, path, headers), expected, problemName);
}

/** The key's properties, or 403: which shows whether the key holds their scope, and a property to ask about. */
async function properties(run: SmokeRun): Promise<Verdict> {
  const answer = await call(run, 'GET', '/properties', withKey(run));
  run.revenueScope = answer.status === 200;
  const list = z.safeParse(propertyListSchema, answer.json);
  run.firstPropertyId = list.success ? list.data.properties[0]?.id : undefined;
  return judge(
    'GET /properties',
    answer,
    { 200: propertyListSchema, 403: problemSchema },
    { 403: 'insufficient-scope' },
    run.revenueScope
      ? `key carries ${PROPERTIES_SCOPE}`
      : `key lacks ${PROPERTIES_SCOPE}: the routes that need it must answer 403`,
  );
}

/** A route of the table with its path filled in, against its response schema and the key's scopes. */
function routeCheck(run: SmokeRun, route: PartnerApiRoute): Check<SmokeRun> {
  const held = holds(run, route.scope);
  const ids = route.pathParameters.map((parameter) =>
    parameter === PROPERTY_ID ? run.firstPropertyId : undefined,
  );
  if (ids.some((id) => id === undefined))
    return {
      name: `GET ${route.path}`,
      run: async () =>
        skip(run.revenueScope ? 'the partner has no property yet' : `key lacks ${PROPERTIES_SCOPE}`),
    };
  const path = route.pathParameters.reduce<string>(
    (filled, parameter, index) => filled.replace(`{${parameter.name}}`, String(ids[index])),
    route.path,
  );
  const schema = responseSchemas[route.responseSchema];
  const expected: Expected =
    held === undefined
      ? { 200: schema, 403: problemSchema }
      : held
        ? { 200: schema }
        : { 403: problemSchema };
  return {
    name: `GET ${path}`,
    run: () =>
      judged(run, 'GET', path, withKey(run), expected, held === true ? {} : { 403: 'insufficient-scope' }),
  };
}

/** The 405 API Gateway answers itself, with the methods the route has. */
async function methodNotAllowed(run: SmokeRun): Promise<Verdict> {
  const answer = await call(run, 'POST', '/properties', {
    ...withKey(run),
    'Content-Type': 'application/json',
  });
  const verdict = judge('POST /properties', answer, { 405: problemSchema }, { 405: 'method-not-allowed' });
  const allow = answer.headers.get('allow');
  if (verdict.outcome !== 'PASS' || allow === 'GET, HEAD') return verdict;
  return fail(
    `${verdict.detail}; Allow header "${allow ?? ''}", not "GET, HEAD"`,
    'the ANY method (MOCK 405) of /properties and its Allow header',
  );
}
