import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { output } from 'zod/mini';
import type { responseSchemas } from '../../core/contract/api-schemas';
import type { PartnerApiRouteId, PartnerApiRouteOf, PathValues, QueryValues } from '../../core/routes';
import { partnerApiRoute } from '../../core/routes';
import { logger } from '../common/logger';
import type { PartnerApiContext } from './middleware';
import {
  acceptJson,
  authenticatedPartner,
  partnerOf,
  problemDetails,
  rateLimit,
  requireScope,
  responseHeaders,
} from './middleware';
import { parsePathParameters, parseQueryParameters } from './request-parameters';
import type { BodyHeaders } from './response-encoding';
import { jsonResponse } from './response-encoding';

export interface PartnerApiRequest<Id extends PartnerApiRouteId> {
  readonly event: APIGatewayProxyEvent;
  readonly partnerId: number;
  /** The route's path parameters, by name, as checked ids. */
  readonly path: PathValues<PartnerApiRouteOf<Id>>;
  /** The route's query parameters, by name: integers checked (defaults filled in), cursors as sent. */
  readonly query: QueryValues<PartnerApiRouteOf<Id>>;
  readonly nowMs: number;
}

/** The 200 body of a route, as its response schema in the document describes it. */
export type ResponseBody<Id extends PartnerApiRouteId> = output<
  (typeof responseSchemas)[PartnerApiRouteOf<Id>['responseSchema']]
>;

/** A 200 body with response headers of its own (the property list's `Link`). */
export class BodyWithHeaders<Body> {
  constructor(
    readonly body: Body,
    readonly headers: BodyHeaders,
  ) {}
}

/**
 * Wraps a route's logic with the shared chain, in order: identity from the authorizer, the
 * exact rate limit (every authenticated request counts), the route's scope, content
 * negotiation and parameter parsing. Errors become problem details; every response gets the
 * request id and rate-limit headers; a 200 its entity tag, or a 304 when the client holds it.
 */
export function partnerApiHandler<Id extends PartnerApiRouteId>(
  routeId: Id,
  respond: (request: PartnerApiRequest<Id>) => Promise<ResponseBody<Id> | BodyWithHeaders<ResponseBody<Id>>>,
) {
  const route = partnerApiRoute(routeId);
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PartnerApiContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(responseHeaders())
    .use(problemDetails())
    .use(authenticatedPartner())
    .use(rateLimit())
    .use(requireScope(route.scope))
    .use(acceptJson())
    .handler(async (event, context) => {
      const { partner, nowMs } = partnerOf(context);
      const answer = await respond({
        event,
        partnerId: partner.partnerId,
        path: parsePathParameters(route, event.pathParameters),
        query: parseQueryParameters(route, event.multiValueQueryStringParameters),
        nowMs,
      });
      return answer instanceof BodyWithHeaders
        ? jsonResponse(answer.body, event.headers, answer.headers)
        : jsonResponse(answer, event.headers);
    });
}
