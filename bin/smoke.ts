import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { problemSchema, propertyListSchema, responseSchemas } from '../core/contract/api-schemas';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from '../core/contract/problems';
import { BASE_SCOPES } from '../core/domain/scopes';
import { PROPERTY_ID, partnerApiRoute, partnerApiRoutes } from '../core/routes';

const USAGE = `Usage: npm run smoke -- --base-url URL --key KEY [--timeout-ms 10000]
  Checks a deployed stage from outside: status codes, content types and shapes of the three
  endpoints and of the errors API Gateway answers itself. About ten requests; exits 1 on a failure.
  --base-url   the ApiBaseUrl output, ending in /partner-api/v1
  --key        a partner API key of that stage (svc_...); or set PARTNER_API_KEY, which keeps
               the key out of your shell history and the process list`;

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly headers: Headers;
  readonly json: unknown;
}

interface CheckResult {
  readonly name: string;
  readonly expected: string;
  readonly got: string;
  readonly pass: boolean;
  readonly note?: string;
  readonly skipped?: boolean;
}

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

const { baseUrl, key, timeoutMs } = readOptions();

async function call(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { Accept: 'application/json', ...headers },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    headers: response.headers,
    json,
  };
}

const withKey = { Authorization: `Bearer ${key}` };

function shapeError(schema: z.ZodMiniType, value: unknown): string | undefined {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid';
}

/** Judges one answer: status among those expected, media type, body shape, request id. */
function judge(
  name: string,
  answer: Answer,
  expected: Record<number, z.ZodMiniType>,
  problemName?: Partial<Record<number, string>>,
): CheckResult {
  const statuses = Object.keys(expected).map(Number);
  const expectedText = statuses.join(' or ');
  const schema = expected[answer.status];
  const failures: string[] = [];
  if (!schema) {
    failures.push(`unexpected status`);
  } else {
    const isProblem = schema === problemSchema;
    const mediaType = isProblem ? PROBLEM_CONTENT_TYPE : 'application/json';
    if (!answer.contentType.toLowerCase().startsWith(mediaType))
      failures.push(`Content-Type "${answer.contentType}", not ${mediaType}`);
    const shape = shapeError(schema, answer.json);
    if (shape) failures.push(`shape: ${shape}`);
    const wantedType = problemName?.[answer.status];
    if (isProblem && wantedType && !shape) {
      const type = (answer.json as { type: string }).type;
      if (type !== PROBLEM_TYPE_BASE + wantedType) failures.push(`problem type ${type}, not ${wantedType}`);
    }
  }
  if (!answer.headers.get('x-amzn-requestid')) failures.push('no x-amzn-RequestId header');
  return {
    name,
    expected: expectedText,
    got: String(answer.status),
    pass: failures.length === 0,
    ...(failures.length > 0 ? { note: failures.join('; ') } : {}),
  };
}

async function run(): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const record = (result: CheckResult) => results.push(result);

  record(
    judge(
      'GET /usage without a key',
      await call('GET', '/usage'),
      { 401: problemSchema },
      { 401: 'missing-api-key' },
    ),
  );
  record(
    judge(
      'GET /usage with a malformed key',
      await call('GET', '/usage', { Authorization: 'Bearer svc_not-a-key' }),
      { 401: problemSchema },
      {
        401: 'malformed-api-key',
      },
    ),
  );
  const properties = await call('GET', '/properties', withKey);
  const revenueScope = properties.status === 200;
  const propertiesResult = judge(
    'GET /properties',
    properties,
    { 200: propertyListSchema, 403: problemSchema },
    { 403: 'insufficient-scope' },
  );
  record(
    propertiesResult.pass
      ? {
          ...propertiesResult,
          note: revenueScope
            ? 'key carries revenue:read'
            : 'key lacks revenue:read: revenue routes must answer 403',
        }
      : propertiesResult,
  );
  // Without revenue:read every revenue route answers 403 before looking at its input.
  const revenue = (status: number): Record<number, z.ZodMiniType> =>
    revenueScope ? { [status]: problemSchema } : { 403: problemSchema };
  const revenueProblem = (status: number, type: string) =>
    revenueScope ? { [status]: type } : { 403: 'insufficient-scope' };

  const parsedList = z.safeParse(propertyListSchema, properties.json);
  const firstProperty = parsedList.success ? parsedList.data.properties[0] : undefined;
  // Every other route of the table, each against its own response schema: a route added to the
  // table is checked here without a line of its own.
  for (const route of partnerApiRoutes) {
    if (route.id === 'properties') continue;
    // Whether the key holds the route's scope: every key holds the base scopes, and /properties
    // showed whether it holds revenue:read; of another scope either answer is right.
    const held = BASE_SCOPES.includes(route.scope)
      ? true
      : route.scope === partnerApiRoute('properties').scope
        ? revenueScope
        : undefined;
    const schema = responseSchemas[route.responseSchema];
    const ids = route.pathParameters.map((parameter) =>
      parameter === PROPERTY_ID ? firstProperty?.id : undefined,
    );
    if (ids.some((id) => id === undefined)) {
      record({
        name: `GET ${route.path}`,
        expected: '200',
        got: '-',
        pass: true,
        skipped: true,
        note: revenueScope ? 'skipped: the partner has no property yet' : 'skipped: key lacks revenue:read',
      });
      continue;
    }
    const path = route.pathParameters.reduce<string>(
      (filled, parameter, index) => filled.replace(`{${parameter.name}}`, String(ids[index])),
      route.path,
    );
    record(
      judge(
        `GET ${path}`,
        await call('GET', path, withKey),
        held === undefined
          ? { 200: schema, 403: problemSchema }
          : held
            ? { 200: schema }
            : { 403: problemSchema },
        held === true ? {} : { 403: 'insufficient-scope' },
      ),
    );
  }
  const probeId = firstProperty?.id ?? 999_999_999_999;
  record(
    judge(
      'GET /properties/999999999999/pricing-signals',
      await call('GET', '/properties/999999999999/pricing-signals', withKey),
      revenue(404),
      revenueProblem(404, 'property-not-found'),
    ),
  );
  record(
    judge(
      `GET /properties/${probeId}/pricing-signals?lookback_days=0`,
      await call('GET', `/properties/${probeId}/pricing-signals?lookback_days=0`, withKey),
      revenue(400),
      revenueProblem(400, 'invalid-request'),
    ),
  );

  const post = await call('POST', '/properties', { ...withKey, 'Content-Type': 'application/json' });
  const postResult = judge('POST /properties', post, { 405: problemSchema }, { 405: 'method-not-allowed' });
  const allow = post.headers.get('allow');
  record(
    allow === 'GET, HEAD' || !postResult.pass
      ? postResult
      : { ...postResult, pass: false, note: `Allow header "${allow ?? ''}", not "GET, HEAD"` },
  );
  record(
    judge(
      'GET /no-such-route',
      await call('GET', '/no-such-route', withKey),
      { 404: problemSchema },
      { 404: 'not-found' },
    ),
  );
  return results;
}

function printTable(results: readonly CheckResult[]): void {
  const rows = results.map((result) => [
    result.skipped ? 'SKIP' : result.pass ? 'PASS' : 'FAIL',
    result.name,
    result.expected,
    result.got,
    result.note ?? '',
  ]);
  const header = ['Result', 'Check', 'Expected', 'Got', 'Note'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
}

try {
  console.log(`Smoke test of ${baseUrl}\n`);
  const results = await run();
  printTable(results);
  const failed = results.filter((result) => !result.pass).length;
  console.log(
    failed === 0
      ? `\nAll ${results.length} checks passed.`
      : `\n${failed} of ${results.length} checks failed.`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
} catch (error) {
  console.error(`Smoke test aborted: ${(error as Error).message}`);
  process.exitCode = 1;
}
