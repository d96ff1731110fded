import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { PartnerApiRouteId } from '../../core/routes';
import { partnerApiRoute } from '../../core/routes';
import { logger } from '../common/logger';
import type { PartnerApiContext } from './middleware';
import {
  acceptJson,
  authenticatedPartner,
  problemDetails,
  rateLimit,
  requireScope,
  responseHeaders,
} from './middleware';
import { parsePathId, parseQueryParameters } from './request-parameters';
import type { BodyHeaders } from './response-encoding';
import { jsonResponse } from './response-encoding';

export interface PartnerApiRequest {
  readonly event: APIGatewayProxyEvent;
  readonly partnerId: number;
  /** The route's path parameters, as checked ids. */
  readonly path: Record<string, number>;
  /** Integer query parameters, checked, with their defaults. */
  readonly query: Record<string, number>;
  /** Cursor query parameters, as sent (the handler verifies them). */
  readonly cursors: Record<string, string>;
  readonly nowMs: number;
}

/** A 200 body with response headers of its own (the property list's `Link`). */
export class BodyWithHeaders {
  constructor(
    readonly body: unknown,
    readonly headers: BodyHeaders,
  ) {}
}

/**
 * Wraps a route's logic with the shared chain, in order: identity from the authorizer, the
 * exact rate limit (every authenticated request counts), the route's scope, content
 * negotiation and query parsing. Errors become problem details; every response gets the
 * request id and rate-limit headers; a 200 its entity tag, or a 304 when the client holds it.
 */
export function partnerApiHandler(
  routeId: PartnerApiRouteId,
  respond: (request: PartnerApiRequest) => Promise<unknown>,
): (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult> {
  const route = partnerApiRoute(routeId);
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PartnerApiContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(responseHeaders())
    .use(problemDetails())
    .use(authenticatedPartner())
    .use(rateLimit())
    .use(requireScope(route.scope))
    .use(acceptJson())
    .handler(async (event, context) => {
      const { integers: query, cursors } = parseQueryParameters(route, event.multiValueQueryStringParameters);
      const path = Object.fromEntries(
        route.pathParameters.map((parameter) => [
          parameter.name,
          parsePathId(parameter, event.pathParameters?.[parameter.name]),
        ]),
      );
      const answer = await respond({
        event,
        partnerId: context.partner.partnerId,
        path,
        query,
        cursors,
        nowMs: context.nowMs,
      });
      return answer instanceof BodyWithHeaders
        ? jsonResponse(answer.body, event.headers, answer.headers)
        : jsonResponse(answer, event.headers);
    });
  // Lambda passes a plain Context; `authenticatedPartner` adds the partner fields before the handler runs.
  return handler as unknown as (
    event: APIGatewayProxyEvent,
    context: Context,
  ) => Promise<APIGatewayProxyResult>;
}
