import { RATE_LIMIT_POLICY_TEXT, RATE_LIMIT_WINDOW_SECONDS } from '../domain/rate-limit';
import { API_BASE_PATH, partnerApiRoutes, publicApiRoutes } from '../routes';
import type { ProblemName } from './problems';
import {
  PROBLEM_CONTENT_TYPE,
  PROBLEM_DETAILS,
  problemBody,
  problemCatalog,
  problemTypeUri,
} from './problems';

/**
 * Responses API Gateway produces without reaching a handler, rewritten as problem details.
 * The stack installs these templates; the local server renders the same ones, so a client
 * sees identical bodies in both. `$context.authorizer.*` values come from the authorizer's
 * Deny context (see `authorizer.ts`).
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'INVALID_API_KEY'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'WAF_FILTERED'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponseDefinition {
  readonly type: GatewayResponseType;
  /** Omitted for DEFAULT_4XX/5XX, which keep the status API Gateway chose. */
  readonly statusCode?: number;
  readonly template: string;
  readonly headers: Record<string, string>;
}

function template(fields: { type: string; title: string; status: string; detail: string }): string {
  return `{"type":"${fields.type}","title":"${fields.title}","status":${fields.status},"detail":"${fields.detail}","request_id":"$context.requestId"}`;
}

function catalogued(
  type: GatewayResponseType,
  name: ProblemName,
  detail: string,
  headers: Record<string, string> = {},
): GatewayResponseDefinition {
  const { status, title } = problemCatalog[name];
  return {
    type,
    statusCode: status,
    template: template({ type: problemTypeUri(name), title, status: String(status), detail }),
    headers,
  };
}

/**
 * Lists the live routes from the route table, so a new route shows up here by itself: with their
 * full paths (after the host, or the stage in an execute-api URL), which a client can call as shown.
 */
const NOT_FOUND_DETAIL = `There is no such resource. Live routes: ${[...partnerApiRoutes, ...publicApiRoutes]
  .map((route) => `${route.method} ${API_BASE_PATH}${route.path}`)
  .join(', ')}.`;

const definitions: GatewayResponseDefinition[] = [
  catalogued('UNAUTHORIZED', 'missing-api-key', PROBLEM_DETAILS['missing-key'], {
    'WWW-Authenticate': 'Bearer realm="partner-api"',
  }),
  {
    // The authorizer denies bad keys with a Deny policy whose context names the problem; the
    // status is fixed per response type, so this one is 401 and missing scope is a handler 403.
    type: 'ACCESS_DENIED',
    statusCode: 401,
    template: template({
      type: '$context.authorizer.problemType',
      title: '$context.authorizer.problemTitle',
      status: '401',
      detail: '$context.authorizer.problemDetail',
    }),
    headers: { 'WWW-Authenticate': 'Bearer realm="partner-api", error="invalid_token"' },
  },
  catalogued('INVALID_API_KEY', 'unknown-api-key', PROBLEM_DETAILS['key-not-active']),
  catalogued('MISSING_AUTHENTICATION_TOKEN', 'not-found', NOT_FOUND_DETAIL),
  catalogued('RESOURCE_NOT_FOUND', 'not-found', NOT_FOUND_DETAIL),
  catalogued(
    'THROTTLED',
    'rate-limited',
    `Too many requests for this key: at most ${RATE_LIMIT_POLICY_TEXT}.`,
    {
      'Retry-After': '1',
    },
  ),
  catalogued(
    'QUOTA_EXCEEDED',
    'rate-limited',
    `Too many requests for this key: at most ${RATE_LIMIT_POLICY_TEXT}.`,
    {
      'Retry-After': String(RATE_LIMIT_WINDOW_SECONDS),
    },
  ),
  catalogued('AUTHORIZER_FAILURE', 'service-unavailable', PROBLEM_DETAILS['authorizer-unavailable'], {
    'Retry-After': '1',
  }),
  catalogued(
    'AUTHORIZER_CONFIGURATION_ERROR',
    'service-unavailable',
    PROBLEM_DETAILS['authorizer-unavailable'],
    { 'Retry-After': '1' },
  ),
  catalogued(
    // The web firewall blocked the request (a managed rule matched); its rate limit answers 429 itself.
    'WAF_FILTERED',
    'request-blocked',
    PROBLEM_DETAILS.blocked,
  ),
  {
    // Any other refusal by API Gateway (e.g. a body too large). Gateway responses have no
    // status-code variable, and `status` is advisory in RFC 9457, so it is left out here.
    type: 'DEFAULT_4XX',
    template: `{"type":"${problemTypeUri('invalid-request')}","title":"${problemCatalog['invalid-request'].title}","detail":$context.error.messageString,"request_id":"$context.requestId"}`,
    headers: {},
  },
  {
    // Keeps API Gateway's own 5xx status (502, 504...), so the body leaves `status` out too.
    type: 'DEFAULT_5XX',
    template: `{"type":"${problemTypeUri('internal-error')}","title":"${problemCatalog['internal-error'].title}","detail":${JSON.stringify(PROBLEM_DETAILS.internal)},"request_id":"$context.requestId"}`,
    headers: {},
  },
];

export const gatewayResponses: readonly GatewayResponseDefinition[] = definitions.map((response) => ({
  ...response,
  headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...response.headers },
}));

/**
 * The body of the web firewall's 429 (per client IP, before API Gateway): static, so without a
 * request_id, and sent as `application/json` (the only JSON type AWS WAF can declare).
 */
export function firewallThrottledProblem(limit: { requests: number; windowSeconds: number }): string {
  return JSON.stringify(
    problemBody(
      'rate-limited',
      `Too many requests from your IP address: more than ${limit.requests} in ${limit.windowSeconds} seconds, all keys together. Retry after ${limit.windowSeconds} seconds.`,
    ),
  );
}

/** The detail of the 405 problem, identical from the stack's MOCK method and the local server. */
export function methodNotAllowedDetail(
  method: string,
  pathTemplate: string,
  allow: readonly string[],
): string {
  return `${method} ${pathTemplate} is not available: this route answers ${allow.join(', ')} only. No write endpoints are live.`;
}

/** A gateway response by type; the table is static, so a miss is a programming error. */
function gatewayResponse(type: GatewayResponseType): GatewayResponseDefinition {
  const response = gatewayResponses.find((candidate) => candidate.type === type);
  if (!response) throw new Error(`No gateway response ${type}`);
  return response;
}

/** Renders a template as API Gateway does for the context variables we use (local server). */
export function renderGatewayResponse(
  type: GatewayResponseType,
  variables: { requestId: string; authorizer?: Record<string, string | number | boolean> },
): { statusCode: number; headers: Record<string, string>; body: string } {
  const response = gatewayResponse(type);
  const body = response.template.replace(/\$context\.([A-Za-z.]+)/g, (_, path: string) => {
    if (path === 'requestId') return variables.requestId;
    if (path.startsWith('authorizer.'))
      return String(variables.authorizer?.[path.slice('authorizer.'.length)] ?? '');
    return '';
  });
  return { statusCode: response.statusCode ?? 500, headers: response.headers, body };
}
