import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '../common/logger';
import type { PartnerApiRouteId } from '../routes';
import { partnerApiRoute } from '../routes';
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
import { jsonResponse } from './response-encoding';

export interface PartnerApiRequest {
  readonly event: APIGatewayProxyEvent;
  readonly partnerId: number;
  /** The route's path parameters, as checked ids. */
  readonly path: Record<string, number>;
  readonly query: Record<string, number>;
  readonly nowMs: number;
}

/**
 * Wraps a route's logic with the shared chain, in order: identity from the authorizer, the
 * exact rate limit (every authenticated request counts), the route's scope, content
 * negotiation and query parsing. Errors become problem details; every response gets the
 * request id and rate-limit headers.
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
      const query = parseQueryParameters(route, event.multiValueQueryStringParameters);
      const path = Object.fromEntries(
        route.pathParameters.map((parameter) => [
          parameter.name,
          parsePathId(parameter, event.pathParameters?.[parameter.name]),
        ]),
      );
      const body = await respond({
        event,
        partnerId: context.partner.partnerId,
        path,
        query,
        nowMs: context.nowMs,
      });
      return jsonResponse(body, event.headers);
    });
  // Lambda passes a plain Context; `authenticatedPartner` adds the partner fields before the handler runs.
  return handler as unknown as (
    event: APIGatewayProxyEvent,
    context: Context,
  ) => Promise<APIGatewayProxyResult>;
}
