/**
 * RFC 9457 problem details. Every JSON error the API returns has one of these types; the
 * catalog feeds the handlers, the gateway responses of the stack and local server, and the docs.
 */
export const PROBLEM_TYPE_BASE = 'https://developers.example.com/partner-api/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const problemCatalog = {
  'missing-api-key': { status: 401, title: 'API key missing' },
  'malformed-api-key': { status: 401, title: 'API key malformed' },
  'unknown-api-key': { status: 401, title: 'API key not recognised' },
  'expired-api-key': { status: 401, title: 'API key expired' },
  'revoked-api-key': { status: 401, title: 'API key revoked' },
  'partner-suspended': { status: 401, title: 'API access suspended' },
  'insufficient-scope': { status: 403, title: 'Scope missing' },
  'request-blocked': { status: 403, title: 'Request blocked' },
  'not-found': { status: 404, title: 'Not found' },
  'property-not-found': { status: 404, title: 'Property not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'not-acceptable': { status: 406, title: 'Not acceptable' },
  'invalid-request': { status: 400, title: 'Invalid request' },
  'rate-limited': { status: 429, title: 'Rate limit exceeded' },
  'internal-error': { status: 500, title: 'Internal error' },
  'response-too-large': { status: 406, title: 'Response too large' },
  'service-unavailable': { status: 503, title: 'Service temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemName = keyof typeof problemCatalog;

/**
 * The fixed detail texts of problems, by cause (a problem can have several causes): the handlers,
 * the authorizer, the gateway responses and the OpenAPI document's examples all read them here.
 * Details that carry values (a parameter, a delay) are made by functions beside their rule.
 */
export const PROBLEM_DETAILS = {
  'missing-key': 'Send your API key in the Authorization header as Bearer <key>, or in X-Enterprise-Key.',
  'wrong-scheme': 'Send the key with the Bearer scheme: Authorization: Bearer <key>.',
  malformed: 'This is not a partner API key: keys start with svc_ and are 50 characters long.',
  checksum: 'The API key checksum does not match: check that the key was copied whole.',
  unknown:
    'This API key is not recognised here. Check that it is the key of this environment (sandbox keys do not work in production, nor the other way round).',
  revoked: 'This API key was revoked. Use your current key or ask us for a new one.',
  superseded:
    'This API key was replaced by a newer one before it was revealed. Use the key from the most recent reveal link.',
  expired: 'This API key expired after a rotation. Use the key that replaced it.',
  suspended:
    'API access for this account is suspended: every key is refused until it is restored. Contact us; nothing was deleted.',
  'key-not-active': 'This API key is not active for the API. Ask us for a new key.',
  'not-json': 'This API only returns application/json. Send Accept: application/json.',
  blocked:
    'Our firewall refused this request: it looks like an attack pattern. If it is a legitimate call, quote the request_id to support.',
  busy: 'The service is busy right now. Retry after the delay in Retry-After.',
  'authorizer-unavailable': 'The service could not check your key just now; retry shortly.',
  internal: 'Something went wrong on our side. Retry shortly; quote the request_id if it persists.',
} as const;

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly request_id?: string;
  readonly [extension: string]: unknown;
}

export function problemTypeUri(name: ProblemName): string {
  return PROBLEM_TYPE_BASE + name;
}

/** Builds the body of a problem of a catalogued type. */
export function problemBody(
  name: ProblemName,
  detail: string,
  extensions: Record<string, unknown> = {},
): ProblemBody {
  const { status, title } = problemCatalog[name];
  return { type: problemTypeUri(name), title, status, detail, ...extensions };
}

/**
 * A failure the client may see, thrown by handlers and turned into a response by the
 * `problemDetails` middleware. `message` is the human-readable detail, for logs.
 */
export class ProblemError extends Error {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly problem: ProblemBody;

  constructor(name: ProblemName, detail: string, headers: Record<string, string> = {}) {
    const problem = problemBody(name, detail);
    super(detail);
    this.name = 'ProblemError';
    this.problem = problem;
    this.statusCode = problem.status;
    this.headers = headers;
  }
}
