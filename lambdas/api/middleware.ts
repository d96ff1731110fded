import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ProblemBody } from '../../core/contract/problems';
import { PROBLEM_CONTENT_TYPE, PROBLEM_DETAILS, ProblemError } from '../../core/contract/problems';
import type { RateDecision } from '../../core/domain/rate-limit';
import { rateLimitedDetail, rateLimitHeaders } from '../../core/domain/rate-limit';
import type { Scope } from '../../core/domain/scopes';
import { missingScopeDetail, parseScopeList } from '../../core/domain/scopes';
import { isTransientAwsError } from '../common/aws-errors';
import { headerValue } from '../common/http-headers';
import { logger } from '../common/logger';
import { consumeRequest } from '../data/rate-windows';

/** The authenticated partner, from the authorizer's context: identity comes only from the key. */
export interface AuthenticatedPartner {
  readonly partnerId: number;
  readonly keyPrefix: string;
  readonly scopes: readonly Scope[];
}

/**
 * Lambda's context with what the chain adds as it runs. Optional, because Lambda calls the handler
 * with a plain context: {@link partnerOf} reads the fields `authenticatedPartner` set.
 */
export interface PartnerApiContext extends Context {
  partner?: AuthenticatedPartner;
  rateDecision?: RateDecision;
  /** One clock reading per request, shared by the rate limit and the handler. */
  nowMs?: number;
}

/** The partner and clock reading of a request that passed `authenticatedPartner`. */
export function partnerOf(context: PartnerApiContext): { partner: AuthenticatedPartner; nowMs: number } {
  const { partner, nowMs } = context;
  // Only reachable if the chain were assembled without `authenticatedPartner`: fail closed.
  if (!partner || nowMs === undefined) throw new Error('No authenticated partner on this request');
  return { partner, nowMs };
}

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PartnerApiContext>;
type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PartnerApiContext>;

/** Maps any thrown value to the problem the client sees; unexpected ones are logged, never shown. */
function toProblemError(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (isTransientAwsError(error)) {
    logger.warn('Transient dependency failure', { error: error as Error });
    return new ProblemError('service-unavailable', PROBLEM_DETAILS.busy, {
      'Retry-After': '2',
    });
  }
  logger.error('Unexpected failure', { error: error as Error });
  return new ProblemError('internal-error', PROBLEM_DETAILS.internal);
}

/**
 * The one place errors become responses: RFC 9457 problem details with the request id, in
 * `application/problem+json`. Our own `onError` rather than `@middy/http-error-handler`: that
 * middleware renders `error.message` as the body and sets the media type to `application/json`
 * or `text/plain` itself, and turns every error without a status into a bare 500; a problem needs
 * its own media type, the request id in the body, and a 503 with `Retry-After` for a busy
 * dependency (docs/design/errors.md).
 */
export function problemDetails(): Middleware {
  return {
    onError: async (request: Request) => {
      if (request.response !== undefined) return;
      const problem = toProblemError(request.error);
      const body: ProblemBody = { ...problem.problem, request_id: request.event.requestContext?.requestId };
      request.response = {
        statusCode: problem.statusCode,
        headers: { ...problem.headers, 'Content-Type': PROBLEM_CONTENT_TYPE },
        body: JSON.stringify(body),
      };
    },
  };
}

/** Headers on every response, success or problem: request id, caching, rate limit. */
export function responseHeaders(): Middleware {
  const apply = async (request: Request) => {
    if (!request.response) return;
    const { rateDecision } = request.context;
    request.response.headers = {
      // Problems are never stored; a 200 or 304 says itself how to revalidate (jsonResponse).
      'Cache-Control': 'no-store',
      ...request.response.headers,
      'X-Request-Id': request.event.requestContext?.requestId ?? '',
      ...(rateDecision ? rateLimitHeaders(rateDecision) : {}),
    };
  };
  return { after: apply, onError: apply };
}

/** Reads the partner identity the authorizer put in the request context. */
export function authenticatedPartner(): Middleware {
  return {
    before: async (request: Request) => {
      request.context.nowMs = Date.now();
      const authorizer = request.event.requestContext?.authorizer;
      const partnerId = Number(authorizer?.partnerId);
      const keyPrefix = authorizer?.keyPrefix;
      // Only reachable if the route were deployed without the authorizer: fail closed.
      if (!Number.isSafeInteger(partnerId) || typeof keyPrefix !== 'string') {
        throw new Error('Request reached a partner route without an authorizer context');
      }
      request.context.partner = { partnerId, keyPrefix, scopes: parseScopeList(authorizer?.scopes) };
      // The request id is API Gateway's (X-Request-Id, request_id in problems): a support ticket finds these lines.
      logger.appendKeys({ requestId: request.event.requestContext?.requestId, keyPrefix, partnerId });
    },
  };
}

/** The exact per-key limit (RATE_LIMIT), counted in DynamoDB whatever the number of instances. */
export function rateLimit(): Middleware {
  return {
    before: async (request: Request) => {
      const decision = await consumeRequest(partnerOf(request.context).partner.keyPrefix);
      request.context.rateDecision = decision;
      if (!decision.admitted) {
        throw new ProblemError('rate-limited', rateLimitedDetail(decision.resetSeconds));
      }
    },
  };
}

/** The route's scope from the route table; 403 without it. */
export function requireScope(scope: Scope): Middleware {
  return {
    before: async (request: Request) => {
      if (!partnerOf(request.context).partner.scopes.includes(scope)) {
        throw new ProblemError('insufficient-scope', missingScopeDetail(scope));
      }
    },
  };
}

/** Responses are JSON; a client that accepts none of it gets 406 rather than a surprise. */
export function acceptJson(): Middleware {
  return {
    before: async (request: Request) => {
      const accept = headerValue(request.event.headers, 'accept');
      if (accept && !acceptsJson(accept)) {
        throw new ProblemError('not-acceptable', PROBLEM_DETAILS['not-json']);
      }
    },
  };
}

function acceptsJson(accept: string): boolean {
  return accept
    .split(',')
    .map((part) => part.split(';'))
    .some(([range = '', ...parameters]) => {
      const type = range.trim().toLowerCase();
      const refused = parameters.some((parameter) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(parameter));
      return (
        !refused && ['*/*', 'application/*', 'application/json', 'application/problem+json'].includes(type)
      );
    });
}
