import * as z from 'zod/mini';
import { apiSchemas } from '../core/contract/api-schemas';
import { firewallThrottledProblem } from '../core/contract/gateway-responses';
import type { ProblemName } from '../core/contract/problems';
import {
  PROBLEM_CONTENT_TYPE,
  PROBLEM_DETAILS,
  problemBody,
  problemCatalog,
} from '../core/contract/problems';
import { refusedCursorDetail } from '../core/domain/page-cursor';
import {
  RATE_LIMIT,
  RATE_LIMIT_POLICY_TEXT,
  RATE_LIMIT_WINDOW_SECONDS,
  rateLimitedDetail,
} from '../core/domain/rate-limit';
import type { Scope } from '../core/domain/scopes';
import { BASE_SCOPES, missingScopeDetail, SCOPE_SOURCE, SCOPES } from '../core/domain/scopes';
import type { PartnerApiRoute, PathParameter, PublicApiRoute, QueryParameter } from '../core/routes';
import { API_BASE_PATH, partnerApiRoutes, publicApiRoutes } from '../core/routes';
import { DEPLOYED_STAGES } from '../core/stages';
import { parseQueryParameters } from '../lambdas/api/request-parameters';
import {
  COMPRESS_ABOVE_BYTES,
  entityTag,
  REVALIDATE,
  tooLargeDetail,
} from '../lambdas/api/response-encoding';
import { stageSettings } from '../lib/stage-config';
import { propertyPageLink, SUCCESS_EXAMPLES } from './examples';

type Json = Record<string, unknown>;

/**
 * Components generated from the zod schemas, with `$ref`s between them. Response objects are
 * left open (no `additionalProperties: false`): v1 may add fields, and a closed object would
 * make every addition break partners' generated validators and mocks. Our own tests still hold
 * the server to exactly the documented fields (`openapi/contract.ts` closes them).
 */
function schemaComponents(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(apiSchemas, {
    target: 'draft-2020-12',
    metadata: apiSchemas,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  const components = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, openObject(withoutSchemaIds(schema))]),
  );
  const problem = components.Problem ?? {};
  return {
    ...components,
    FirewallProblem: {
      ...problem,
      description: 'The problem of the firewall’s 429: static, so without request_id.',
      required: ((problem.required ?? []) as string[]).filter((name) => name !== 'request_id'),
    },
  };
}

function withoutSchemaIds(schema: Json): Json {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function openObject(schema: Json): Json {
  const { additionalProperties, ...rest } = schema;
  return additionalProperties === false ? rest : schema;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = [
  'RateLimit-Policy',
  'RateLimit',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];
/** Headers on every answer of the API's own code to an authenticated request. */
const ALWAYS_SENT_BY_API = [...RATE_LIMIT_HEADERS, 'Cache-Control'];

/**
 * A header of {@link ALWAYS_SENT_BY_API} is required where only the API answers (its component
 * `<name>`), and optional where the gateway or the firewall may answer instead (`<name>-Optional`),
 * as `x-amzn-RequestId` and `X-Request-Id` are.
 */
const apiHeaderRef = (name: string, onlyApiAnswers: boolean) =>
  headerRef(onlyApiAnswers || !ALWAYS_SENT_BY_API.includes(name) ? name : `${name}-Optional`);

/** `components/headers`: each header, and the required and optional forms of those the API always sends. */
function headerComponents(): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(HEADERS).flatMap(([name, header]) =>
      ALWAYS_SENT_BY_API.includes(name)
        ? [
            [name, { ...header, required: true }],
            [`${name}-Optional`, header],
          ]
        : [[name, header]],
    ),
  );
}

const REQUEST_ID_SCHEMA = { type: 'string', format: 'uuid', maxLength: 36 };
const HEADERS: Record<string, Json> = {
  'x-amzn-RequestId': {
    description:
      'Identifies this request, on every answer; the same value is in problem bodies as request_id. Quote it to support.',
    required: true,
    schema: REQUEST_ID_SCHEMA,
  },
  'X-Request-Id': {
    description: 'The same value as x-amzn-RequestId, on every answer of the API itself.',
    required: true,
    schema: REQUEST_ID_SCHEMA,
  },
  'x-amzn-RequestId-Optional': {
    description:
      'Identifies this request; a 429 of our firewall (too many requests from one IP address) may come without it.',
    required: false,
    schema: REQUEST_ID_SCHEMA,
  },
  'X-Request-Id-Optional': {
    description:
      'The same value as x-amzn-RequestId; absent when the gateway or our firewall answered before the API (a stage throttle, a failed key check, a blocked request).',
    required: false,
    schema: REQUEST_ID_SCHEMA,
  },
  'RateLimit-Policy': {
    description: `The limit of this key (IETF RateLimit fields): ${RATE_LIMIT_POLICY_TEXT}.`,
    schema: {
      type: 'string',
      maxLength: 100,
      pattern: '^"per-key";q=[0-9]+;w=[0-9]+$',
      examples: [`"per-key";q=${RATE_LIMIT.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`],
    },
  },
  RateLimit: {
    description: 'r: requests left in the window; t: seconds until one more is available.',
    schema: {
      type: 'string',
      maxLength: 100,
      pattern: '^"per-key";r=[0-9]+;t=[0-9]+$',
      examples: ['"per-key";r=117;t=58'],
    },
  },
  'X-RateLimit-Limit': {
    description: `Requests allowed per rolling ${RATE_LIMIT_WINDOW_SECONDS} seconds.`,
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 100_000 },
  },
  'X-RateLimit-Remaining': {
    description: `Requests left in the rolling ${RATE_LIMIT_WINDOW_SECONDS} seconds.`,
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 100_000 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) at which one more request is available.',
    schema: { type: 'integer', format: 'int64', minimum: 0, maximum: 99_999_999_999 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 3_600 },
  },
  'Cache-Control': {
    description:
      'Problems are never stored (no-store). A 200 or 304 answer may be kept by the client that asked, which must revalidate it before reuse (private, no-cache): send its ETag in If-None-Match.',
    schema: { type: 'string', maxLength: 100, enum: ['no-store', REVALIDATE] },
  },
  Vary: {
    description: 'Bodies depend on Accept and Accept-Encoding (compression).',
    schema: { type: 'string', maxLength: 100, enum: ['Accept, Accept-Encoding'] },
  },
  'Content-Encoding': {
    description: `gzip when the body is over ${COMPRESS_ABOVE_BYTES / 1024} KB and the request had both an Accept header and gzip in Accept-Encoding. A request without an Accept header always gets an uncompressed body: API Gateway decodes a compressed body to bytes according to the Accept header, and documents no behaviour without one.`,
    schema: { type: 'string', maxLength: 20, enum: ['gzip'] },
  },
  ETag: {
    description:
      'Weak entity tag of the body (a hash of its content without generated_at): the same for the plain and the gzip-compressed body. Send it in If-None-Match to get 304 when nothing changed.',
    required: true,
    schema: {
      type: 'string',
      maxLength: 40,
      pattern: '^W/"[A-Za-z0-9_-]{27}"$',
      examples: [entityTag(SUCCESS_EXAMPLES.UsageReport.usage?.value)],
    },
  },
  Link: {
    description:
      'With limit: the next page (RFC 8288), a reference to resolve against the request URL, until the last page, which has no Link header.',
    schema: {
      type: 'string',
      maxLength: 400,
      pattern: '^<[^<>\\s]+>; rel="next"$',
      examples: [propertyPageLink],
    },
  },
  'WWW-Authenticate': {
    description: 'How to authenticate.',
    schema: {
      type: 'string',
      maxLength: 200,
      enum: ['Bearer realm="partner-api"', 'Bearer realm="partner-api", error="invalid_token"'],
    },
  },
};

/**
 * Who answers with this status (the response's `x-answered-by`): the API's own code (X-Request-Id
 * and, to an authenticated request, the rate-limit headers always), the gateway alone (gateway
 * responses can carry only static headers, so no X-Request-Id), either of them, or any of them
 * and the web firewall (its 429 is a static `application/json` body).
 */
type AnsweredBy = 'api' | 'gateway' | 'either' | 'any';

function requestIdHeaders(answeredBy: AnsweredBy): Record<string, Json> {
  return {
    'x-amzn-RequestId': headerRef(answeredBy === 'any' ? 'x-amzn-RequestId-Optional' : 'x-amzn-RequestId'),
    ...(answeredBy === 'api' ? { 'X-Request-Id': headerRef('X-Request-Id') } : {}),
    ...(answeredBy === 'either' || answeredBy === 'any'
      ? { 'X-Request-Id': headerRef('X-Request-Id-Optional') }
      : {}),
  };
}

const FIREWALL_LIMITS_TEXT = DEPLOYED_STAGES.map((stage) => {
  const { requests, windowSeconds } = stageSettings[stage].firewall.api;
  return `${requests} requests per ${windowSeconds} seconds in ${stage}`;
}).join(', ');

/** The firewall's 429, as it comes: `application/json`, no request_id. */
const FIREWALL_CONTENT: Json = {
  'application/json': {
    schema: ref('FirewallProblem'),
    examples: {
      firewall: {
        summary: 'Too many requests from one IP address (our firewall)',
        value: JSON.parse(firewallThrottledProblem(stageSettings.production.firewall.api)),
      },
    },
  },
};

/** One example of a problem: its catalogued type and the detail a client would read. */
interface ProblemExample {
  readonly name: ProblemName;
  readonly detail: string;
  /** A gateway catch-all keeps the status API Gateway chose: its body cannot carry it. */
  readonly withoutStatus?: boolean;
  /** What the example shows, when the problem's title alone would not tell examples apart. */
  readonly summary?: string;
}

function problemResponse(
  description: string,
  problems: readonly (ProblemName | ProblemExample)[],
  headers: readonly string[],
  answeredBy: AnsweredBy = 'api',
): Json {
  // Headers the API itself always sets are required when only the API answers this status.
  const onlyApiAnswers = answeredBy === 'api';
  const examples = problems.map((problem) =>
    typeof problem === 'string' ? { name: problem, detail: exampleDetail(problem) } : problem,
  );
  // Example keys: the problem name, numbered when one problem has several examples.
  const keyOf = (example: ProblemExample, index: number) => {
    const earlier = examples.slice(0, index).filter((other) => other.name === example.name).length;
    return earlier === 0 ? example.name : `${example.name}-${earlier + 1}`;
  };
  return {
    description,
    'x-answered-by': answeredBy,
    headers: {
      ...requestIdHeaders(answeredBy),
      ...Object.fromEntries(headers.map((name) => [name, apiHeaderRef(name, onlyApiAnswers)])),
    },
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: ref('Problem'),
        examples: Object.fromEntries(
          examples.map((example, index) => [
            keyOf(example, index),
            {
              summary: example.summary ?? problemCatalog[example.name].title,
              value: withoutStatus(
                problemBody(example.name, example.detail, { request_id: EXAMPLE_REQUEST_ID }),
                example.withoutStatus === true,
              ),
            },
          ]),
        ),
      },
      ...(answeredBy === 'any' ? FIREWALL_CONTENT : {}),
    },
  };
}

const EXAMPLE_REQUEST_ID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

function withoutStatus(body: Json, drop: boolean): Json {
  const { status: _status, ...rest } = body;
  return drop ? rest : body;
}

/** The 400 a route gives for a bad query parameter, from its own parser: one per parameter. */
function invalidQueryExamples(route: PartnerApiRoute): ProblemExample[] {
  const refusal = (query: Record<string, string[]>, summary: string): ProblemExample => {
    try {
      parseQueryParameters(route, query);
    } catch (error) {
      return { name: 'invalid-request', detail: (error as Error).message, summary };
    }
    throw new Error(`${route.id}: the parser accepted ${JSON.stringify(query)}`);
  };
  const outOfRange = (parameter: QueryParameter): ProblemExample[] => {
    if (parameter.kind === 'integer')
      return [
        refusal({ [parameter.name]: [String(parameter.minimum - 1)] }, `${parameter.name} out of range`),
      ];
    if (parameter.kind === 'text')
      return parameter.excludes.map((excluded) =>
        refusal(
          {
            ...Object.fromEntries(
              route.queryParameters.map((other) => [other.name, [other.kind === 'integer' ? '1' : 'x']]),
            ),
            [parameter.name]: [parameter.example],
            [excluded]: ['x'],
          },
          `${parameter.name} with ${excluded}`,
        ),
      );
    return [
      {
        name: 'invalid-request',
        detail: refusedCursorDetail(parameter.name),
        summary: `A ${parameter.name} that is not yours, or altered`,
      },
    ];
  };
  return route.queryParameters.length > 0
    ? route.queryParameters.flatMap(outOfRange)
    : [refusal({ days: ['7'] }, 'An unknown query parameter')];
}

function exampleDetail(name: ProblemName): string {
  const details: Partial<Record<ProblemName, string>> = {
    'missing-api-key': PROBLEM_DETAILS['missing-key'],
    'unknown-api-key': PROBLEM_DETAILS.unknown,
    'revoked-api-key': PROBLEM_DETAILS.revoked,
    'expired-api-key': PROBLEM_DETAILS.expired,
    'partner-suspended': PROBLEM_DETAILS.suspended,
    'malformed-api-key': PROBLEM_DETAILS.malformed,
    'insufficient-scope': missingScopeDetail(
      SCOPES.find((scope) => !BASE_SCOPES.includes(scope)) ?? SCOPES[0],
    ),
    'request-blocked': PROBLEM_DETAILS.blocked,
    'property-not-found': 'No property 42 is sponsored by your account.',
    'invalid-request': 'lookback_days must be an integer from 1 to 365; got "0".',
    'not-acceptable': PROBLEM_DETAILS['not-json'],
    'rate-limited': rateLimitedDetail(12),
    'service-unavailable': PROBLEM_DETAILS.busy,
    'internal-error': PROBLEM_DETAILS.internal,
    'response-too-large': tooLargeDetail(9_400_000, false),
  };
  return details[name] ?? problemCatalog[name].title;
}

/** A scope every key carries, whatever the partner's agreement. */
function everyKeyHas(scope: Scope): boolean {
  return BASE_SCOPES.includes(scope);
}

/**
 * The HEAD twin of a GET operation: the same status codes and headers, no body. Every answer
 * of the API to HEAD is the GET answer without its content.
 */
function headOperation(get: Json, components: Record<string, Json>): Json {
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, Json>).map(([status, response]) => [
      status,
      headResponse(response, components),
    ]),
  );
  return {
    ...get,
    operationId: `${String(get.operationId)}Head`,
    summary: `${String(get.summary)} (headers only)`,
    description: `${String(get.description)} HEAD answers as GET does, with the same status and headers and no body; it counts against the rate limit like a GET.`,
    responses,
  };
}

/**
 * A response as HEAD gives it: a component's `…Head` twin when the component has content (the
 * same one when it has none, like a 304), or the same object without content.
 */
function headResponse(response: Json, components: Record<string, Json>): Json {
  if (typeof response.$ref !== 'string') return withoutContent(response);
  const name = response.$ref.replace('#/components/responses/', '');
  return components[name]?.content === undefined ? response : { $ref: `${response.$ref}${HEAD_SUFFIX}` };
}

function withoutContent(response: Json): Json {
  const { content: _content, ...rest } = response;
  return rest;
}

function queryParameter(parameter: QueryParameter): Json {
  if (parameter.kind === 'text')
    return {
      name: parameter.name,
      in: 'query',
      required: false,
      description: parameter.description,
      example: parameter.example,
      schema: { type: 'string', minLength: 1, maxLength: parameter.maxLength, pattern: parameter.pattern },
    };
  if (parameter.kind === 'cursor')
    return {
      name: parameter.name,
      in: 'query',
      required: false,
      description: `${parameter.description} Only together with ${parameter.requires}.`,
      schema: { type: 'string', minLength: 1, maxLength: parameter.maxLength, pattern: '^[A-Za-z0-9_-]+$' },
    };
  const range = `An integer from ${parameter.minimum} to ${parameter.maximum}`;
  return {
    name: parameter.name,
    in: 'query',
    required: false,
    description: `${parameter.description} ${range}${parameter.default === undefined ? '' : `; default ${parameter.default}`}.`,
    example: parameter.example,
    schema: {
      type: 'integer',
      format: 'int32',
      minimum: parameter.minimum,
      maximum: parameter.maximum,
      ...(parameter.default === undefined ? {} : { default: parameter.default }),
    },
  };
}

/**
 * The example of `If-None-Match`: a tag no answer ever carries (the API's tags have 27 characters
 * between the quotes, `entityTag`), so a contract tool that sends it gets the documented 200, not a
 * 304 (docs/design/openapi.md).
 */
const STALE_ENTITY_TAG = 'W/"an-old-etag-that-matches-nothing"';

/** The conditional-request header of the GETs (RFC 9110 §13.1.2). */
const IF_NONE_MATCH: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of an answer you hold: when the data is unchanged the answer is 304 with no body (it counts against the rate limit like any request).',
  example: STALE_ENTITY_TAG,
  schema: { type: 'string', maxLength: 1_000, pattern: '^[\\x21-\\x7e][\\x20-\\x7e]*$' },
};

/** A response of `components/responses`, by its name there. */
interface NamedResponse {
  readonly name: string;
  readonly response: Json;
}

/**
 * The problem responses of the partner API that do not depend on the route, written once in
 * `components/responses` and named by a `$ref` from every operation that gives them.
 */
const SHARED_PROBLEMS = {
  Unauthorized: problemResponse(
    'The API key is missing, malformed, unknown, revoked or expired, or the account is suspended; the problem type says which.',
    [
      'missing-api-key',
      'malformed-api-key',
      'unknown-api-key',
      'revoked-api-key',
      'expired-api-key',
      'partner-suspended',
    ],
    ['WWW-Authenticate'],
    'gateway',
  ),
  // Every key carries the base scopes: a route needing one of them answers 403 only from the firewall.
  RequestBlocked: problemResponse(
    'Our firewall blocked the request (request-blocked).',
    ['request-blocked'],
    [],
    'gateway',
  ),
  ScopeMissingOrRequestBlocked: problemResponse(
    'The key is valid but lacks the scope the operation requires (its security names it), or our firewall blocked the request (request-blocked).',
    ['insufficient-scope', 'request-blocked'],
    ALWAYS_SENT_BY_API,
    'either',
  ),
  NotAcceptable: problemResponse('The Accept header excludes JSON.', ['not-acceptable'], ALWAYS_SENT_BY_API),
  NotAcceptableOrTooLarge: problemResponse(
    'The Accept header excludes JSON (not-acceptable), or the whole list is more than one response can carry (response-too-large): ask for pages with limit, or, when the detail says it would fit, send Accept-Encoding: gzip with an Accept header.',
    ['not-acceptable', 'response-too-large'],
    ALWAYS_SENT_BY_API,
  ),
  RateLimited: problemResponse(
    `More than ${RATE_LIMIT.limit} requests in the last ${RATE_LIMIT_WINDOW_SECONDS} s for this key, or too many from your IP address (our firewall: ${FIREWALL_LIMITS_TEXT}; approximate, see the API description).`,
    ['rate-limited'],
    ['Retry-After', ...ALWAYS_SENT_BY_API],
    'any',
  ),
  InternalError: problemResponse(
    'Unexpected failure; quote the request_id.',
    ['internal-error'],
    ALWAYS_SENT_BY_API,
    // Also API Gateway's, when Lambda refuses to run the function (its concurrency limit).
    'either',
  ),
  BadGateway: problemResponse(
    'The function failed or timed out before answering; retry, and quote the request_id if it persists.',
    // API Gateway's own 5xx keeps its status, which its template cannot name: no status in the body.
    [{ name: 'internal-error', detail: exampleDetail('internal-error'), withoutStatus: true }],
    [],
    'gateway',
  ),
  ServiceUnavailable: problemResponse(
    'Temporarily unavailable (the database is busy or unreachable): retry after Retry-After.',
    ['service-unavailable'],
    ['Retry-After', ...ALWAYS_SENT_BY_API],
    'either',
  ),
} satisfies Record<string, Json>;

const shared = (name: keyof typeof SHARED_PROBLEMS): NamedResponse => ({
  name,
  response: SHARED_PROBLEMS[name],
});

/** `property-not-found` → `PropertyNotFound`, `lookback_days` → `LookbackDays`. */
function pascalCase(words: string): string {
  return words.replace(/(^|[-_])(\w)/g, (_match, _separator, letter: string) => letter.toUpperCase());
}

/**
 * The route's 400, named by its query parameters, which decide everything in it (the examples are
 * their parser's refusals): routes with the same parameters share it.
 */
function invalidRequestResponse(route: PartnerApiRoute): NamedResponse {
  const pages = pagesList(route);
  return {
    name: `Invalid${route.queryParameters.length > 0 ? route.queryParameters.map((parameter) => pascalCase(parameter.name)).join('') : 'Request'}`,
    response: problemResponse(
      pages
        ? 'A query or path parameter is invalid (the detail names it), a cursor this API did not give your account, or a partner_id was sent.'
        : 'A query or path parameter is invalid (the detail names it), or a partner_id was sent.',
      invalidQueryExamples(route),
      ALWAYS_SENT_BY_API,
    ),
  };
}

/** The route's 404, named by the problems of its path parameters (`PropertyNotFound`). */
function notFoundResponse(route: PartnerApiRoute): NamedResponse {
  const notFound = route.pathParameters.map((parameter) => parameter.notFound);
  const problems = [...new Set(notFound.map((problem) => problem.problem))];
  return {
    name: problems.map(pascalCase).join('Or'),
    response: problemResponse(
      notFound.map((problem) => problem.description).join(' '),
      problems,
      ALWAYS_SENT_BY_API,
    ),
  };
}

/** Every response of a route but its 200, by status: each a component of `components/responses`. */
function namedResponses(route: PartnerApiRoute): Record<string, NamedResponse> {
  return {
    '304': notModifiedResponse(route),
    '400': invalidRequestResponse(route),
    '401': shared('Unauthorized'),
    '403': shared(everyKeyHas(route.scope) ? 'RequestBlocked' : 'ScopeMissingOrRequestBlocked'),
    ...(route.pathParameters.length > 0 ? { '404': notFoundResponse(route) } : {}),
    '406': shared(route.compressible ? 'NotAcceptableOrTooLarge' : 'NotAcceptable'),
    '429': shared('RateLimited'),
    '500': shared('InternalError'),
    '502': shared('BadGateway'),
    '503': shared('ServiceUnavailable'),
  };
}

/** The name of HEAD's twin of a response component: the same status and headers, no content. */
const HEAD_SUFFIX = 'Head';

/**
 * `components/responses`: every response of the partner API but the 200s, once, and the HEAD twin
 * of each one with content. Routes naming different responses alike (parameters of the same
 * names that refuse differently) would make one `$ref` wrong, so that stops the generation.
 */
function responseComponents(): Record<string, Json> {
  const components = new Map<string, Json>();
  for (const { name, response } of partnerApiRoutes.flatMap((route) =>
    Object.values(namedResponses(route)),
  )) {
    const known = components.get(name);
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(response))
      throw new Error(`Routes give different responses named ${name}: rename a query parameter of one.`);
    components.set(name, response);
  }
  return Object.fromEntries(
    [...components].flatMap(([name, response]) => [
      [name, response],
      ...(response.content === undefined ? [] : [[`${name}${HEAD_SUFFIX}`, withoutContent(response)]]),
    ]),
  );
}

/** Whether a route's GET pages its list (`limit`, `cursor` and a `Link` header). */
function pagesList(route: PartnerApiRoute): boolean {
  return route.queryParameters.some((parameter) => parameter.kind === 'cursor');
}

function pathParameter(parameter: PathParameter): Json {
  return {
    name: parameter.name,
    in: 'path',
    required: true,
    description: parameter.description,
    example: parameter.example,
    schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  };
}

/** The headers of a representation, on its 200 and its 304. */
function representationHeaders(route: PartnerApiRoute): Record<string, Json> {
  return {
    ...requestIdHeaders('api'),
    ...Object.fromEntries(ALWAYS_SENT_BY_API.map((name) => [name, headerRef(name)])),
    ETag: headerRef('ETag'),
    Vary: headerRef('Vary'),
    ...(pagesList(route) ? { Link: headerRef('Link') } : {}),
  };
}

/** The route's 200: its schema and examples, in the operation itself. */
function successResponse(route: PartnerApiRoute): Json {
  return {
    description: 'The result.',
    'x-answered-by': 'api',
    headers: {
      ...representationHeaders(route),
      ...(route.compressible ? { 'Content-Encoding': headerRef('Content-Encoding') } : {}),
    },
    content: {
      'application/json': {
        schema: ref(route.responseSchema),
        examples: SUCCESS_EXAMPLES[route.responseSchema],
      },
    },
  };
}

/** The 304, with the headers of the 200 (a list's `Link` included) and no body. */
function notModifiedResponse(route: PartnerApiRoute): NamedResponse {
  return {
    name: pagesList(route) ? 'NotModifiedPage' : 'NotModified',
    response: {
      description:
        'Not modified: If-None-Match holds the current ETag. No body; keep using the answer you hold. Counts against the rate limit.',
      'x-answered-by': 'api',
      headers: representationHeaders(route),
    },
  };
}

function partnerOperation(route: PartnerApiRoute): Json {
  const paging = pagesList(route)
    ? ' With `limit`, one page in ascending id order and a `Link` header (rel="next") until the last page; the body has the same fields.'
    : '';
  const named = Object.entries(namedResponses(route)).map(([status, { name }]) => [
    status,
    { $ref: `#/components/responses/${name}` },
  ]);
  return {
    operationId: route.id,
    summary: route.summary,
    description: `Requires the \`${route.scope}\` scope. The partner is identified by the API key alone.${paging}`,
    tags: ['Partner data'],
    security: [{ bearerAuth: [route.scope] }, { enterpriseKey: [route.scope] }],
    parameters: [
      ...route.pathParameters.map(pathParameter),
      ...route.queryParameters.map(queryParameter),
      IF_NONE_MATCH,
    ],
    responses: { '200': successResponse(route), ...Object.fromEntries(named) },
  };
}

function publicOperation(route: PublicApiRoute): Json {
  return {
    operationId: route.id,
    summary: route.summary,
    description: 'No API key needed.',
    tags: ['About this API'],
    security: [],
    responses: {
      '200': {
        description: 'This document.',
        headers: {
          ...requestIdHeaders('api'),
          'Cache-Control': {
            description: 'May be cached for five minutes.',
            schema: { type: 'string', maxLength: 100, enum: ['public, max-age=300'] },
          },
        },
        content: {
          'application/json': {
            schema: { type: 'object', maxProperties: 20, additionalProperties: true },
            examples: {
              document: {
                summary: 'This document (abridged: paths and components left out)',
                value: {
                  openapi: '3.1.0',
                  info: { title: INFO.title, version: INFO.version, summary: INFO.summary },
                },
              },
            },
          },
        },
      },
      '429': problemResponse(
        'Too many requests to this stage, or from your IP address (our firewall).',
        ['rate-limited'],
        ['Retry-After'],
        'any',
      ),
      '4XX': problemResponse(
        'Any other refusal by the gateway, or by our firewall (request-blocked).',
        [
          // The gateway's catch-all keeps its own status, which its template cannot name.
          { name: 'invalid-request', detail: 'Request Too Long', withoutStatus: true },
          'request-blocked',
        ],
        [],
        'gateway',
      ),
    },
  };
}

/** Each scope, where it comes from and the routes it covers: from the scope list and the route table. */
const SCOPES_TEXT = SCOPES.map(
  (scope) =>
    `\`${scope}\` (${SCOPE_SOURCE[scope]}) covers ${partnerApiRoutes
      .filter((route) => route.scope === scope)
      .map((route) => `${route.method} ${route.path}`)
      .join(', ')}`,
).join('; ');

const DESCRIPTION = `Seat usage, properties and pricing signals of the hosts you sponsor.

**Authentication.** Send your API key as \`Authorization: Bearer <key>\` (preferred) or \`X-Enterprise-Key: <key>\`. Keys start with \`svc_\`; the first 12 characters (the key prefix) identify a key in our logs and support. The partner is identified by the key alone.

**Scopes.** ${SCOPES_TEXT}.

**Rate limit.** ${RATE_LIMIT_POLICY_TEXT} per key, exact: counted on every request, a 304 included. Every response to an authenticated request carries \`RateLimit-Policy\`, \`RateLimit\` and \`X-RateLimit-*\` headers; a refused request gets 429 with \`Retry-After\`.

**Firewall.** Each IP address is limited too, all keys together (${FIREWALL_LIMITS_TEXT}), well above one key's limit. That limit is approximate, by AWS WAF's own description: it estimates the rate, and may start or stop refusing some time after the rate crossed it (usually under 30 seconds, up to several minutes). Over it, requests get 429 with \`Retry-After\` and a problem body as \`application/json\`, without \`request_id\`. A request that matches a known attack pattern gets 403 \`request-blocked\`.

**Pages.** \`GET /properties\` returns the whole list by default. With \`limit\` (1 to 1000) it returns one page in ascending id order, and a \`Link: <…>; rel="next"\` header (RFC 8288; resolve it against the request URL) until the last page, which has none; the body keeps the same fields. The cursor in that link is opaque and bound to your account: send it back unchanged (an altered or foreign cursor is a 400). A property added during a walk has a higher id than those before it, so it shows on a later page; nothing is skipped or repeated. A list too large for one response (hundreds of thousands of properties) answers 406 \`response-too-large\`: ask for pages.

**Your own property ids.** \`GET /properties?pms_hotel_id=<your id>\` answers the property with that \`pms_hotel_id\` (the one in its activation link) alone, with the same fields as the list, or an empty list when none of the hosts you sponsor has it (a property whose sponsorship ended included). It may come with \`limit\` (one page, no \`Link\`), not with \`cursor\` (400).

**Conditional requests.** Every 200 carries a weak \`ETag\` and \`Cache-Control: private, no-cache\`. Send the tag back in \`If-None-Match\`: while the data is unchanged the answer is 304 with no body (and the rate-limit headers); it counts against the rate limit like any request. \`generated_at\` is not part of the tag: a 304 means the rest of the body is unchanged.

**Compression.** Bodies over ${COMPRESS_ABOVE_BYTES / 1024} KB are gzip-compressed when the request sends both an \`Accept\` header and \`Accept-Encoding: gzip\`. Without an \`Accept\` header (Go's default HTTP client sends none) the body is never compressed: API Gateway decides from that header whether to send the compressed bytes.

**Errors** are RFC 9457 problem details (\`application/problem+json\`) whose \`type\` is stable; \`request_id\` matches the \`x-amzn-RequestId\` header every answer carries (and \`X-Request-Id\` on the API's own answers).

**Compatibility.** The version is in the path (\`/partner-api/v1\`). Within v1 fields may be added (notably to \`signals\`): ignore fields you do not know. Only GET (and HEAD, the same answer without a body) is live: there are no write endpoints, webhooks or token minting.`;

const INFO = {
  title: 'Partner data API',
  version: '1.0.0',
  summary: 'Read-only data about the hosts a partner sponsors.',
  description: DESCRIPTION,
  contact: { name: 'Partner support', email: 'partners@example.com' },
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
};

/** The OpenAPI 3.1 document of the partner API, from the route table and the zod schemas. */
export function partnerApiDocument(): Json {
  const responses = responseComponents();
  const paths: Record<string, Json> = {};
  for (const route of partnerApiRoutes) {
    const get = partnerOperation(route);
    paths[route.path] = { ...(paths[route.path] ?? {}), get, head: headOperation(get, responses) };
  }
  for (const route of publicApiRoutes) {
    const get = publicOperation(route);
    paths[route.path] = { ...(paths[route.path] ?? {}), get, head: headOperation(get, responses) };
  }
  return {
    openapi: '3.1.0',
    info: INFO,
    // The deployed base URLs carry the stage name before the base path (docs/deploying.md).
    // Production is served on its own domain (a deployment must give one); the sandbox may be on
    // its `execute-api` address, whose path starts with the stage. Each stage's own document
    // (GET /openapi.json) names its exact base URL instead.
    servers: DEPLOYED_STAGES.map((stage) => ({
      url:
        stage === 'production' ? `https://{host}${API_BASE_PATH}` : `https://{host}/${stage}${API_BASE_PATH}`,
      description:
        stage === 'production'
          ? 'Production: the host is in your onboarding e-mail.'
          : 'Sandbox: the same paths, with sample data; its host is in your onboarding e-mail.',
      variables: {
        host: {
          default:
            stage === 'production'
              ? 'api.partner-api.dev'
              : `${stage}-api-id.execute-api.eu-west-1.amazonaws.com`,
          description: `Host of the ${stage} API, from the base URL in your onboarding e-mail.`,
        },
      },
      'x-internal': false,
    })),
    tags: [
      { name: 'Partner data', description: 'What the API key gives access to.' },
      { name: 'About this API', description: 'This description, without a key.' },
    ],
    security: [{ bearerAuth: [] }, { enterpriseKey: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API key> (preferred).',
        },
        enterpriseKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Enterprise-Key',
          description: 'The API key, for clients that cannot set Authorization.',
        },
      },
      headers: headerComponents(),
      responses,
      schemas: schemaComponents(),
    },
  };
}
