import { randomUUID } from 'node:crypto';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import type { GatewayResponseType } from '../core/contract/gateway-responses';
import { methodNotAllowedDetail, renderGatewayResponse } from '../core/contract/gateway-responses';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../core/contract/problems';
import type { PageRoute, PartnerApiRoute, PublicApiRoute } from '../core/routes';
import {
  API_BASE_PATH,
  AUTHORIZER,
  answeredMethods,
  pageFunctionName,
  pageRoutes,
  partnerApiRoutes,
  publicApiRoutes,
} from '../core/routes';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../lambdas/api/response-encoding';
import type { InvocationOutcome, InvocationReport, LocalLambdaRuntime } from './lambda-runtime';
import { matchRoute } from './route-matching';

/** An HTTP request as the local server received it. */
export interface GatewayRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  /** Header names and values in arrival order (Node's rawHeaders). */
  readonly rawHeaders: readonly string[];
  readonly body: string | null;
  readonly sourceIp: string;
}

export interface GatewayResult {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[]>;
  /** Bytes when the handler returned a base64-encoded (binary, e.g. gzip) body. */
  readonly body: string | Buffer;
  /** For the access log (`$context.requestId`). */
  readonly requestId: string;
  /** For the access log: the matched route template (`$context.resourcePath`). */
  readonly resourcePath?: string;
  /**
   * For the access log: the authorizer's `partnerId` and `keyPrefix` context, as API Gateway's
   * `$context.authorizer.*` has them. Only when the authorizer allowed the request: a refused key
   * (Deny) or a missing one (401) has no partner, as deployed.
   */
  readonly partnerId?: string;
  readonly keyPrefix?: string;
  /** For the access log: the gateway response type, when API Gateway answered itself. */
  readonly responseType?: GatewayResponseType;
  /** The functions this request invoked, in order (the access log shows cold starts). */
  readonly invocations: readonly InvocationReport[];
}

interface ParsedRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly multiValueHeaders: Record<string, string[]>;
  readonly queryStringParameters: Record<string, string> | null;
  readonly multiValueQueryStringParameters: Record<string, string[]> | null;
}

/**
 * A map from names a client chose to values, without a prototype: a header or query parameter
 * named `constructor`, `__proto__` or `toString` is a name like any other, as in AWS's JSON event.
 */
function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function parseRequest(request: GatewayRequest): ParsedRequest {
  const url = new URL(request.url, 'http://local');
  const headers = dictionary<string>();
  const multiValueHeaders = dictionary<string[]>();
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = request.rawHeaders[index + 1] ?? '';
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  const query = dictionary<string>();
  const multiQuery = dictionary<string[]>();
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    multiQuery[name] = [...(multiQuery[name] ?? []), value];
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    path: url.pathname,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
  };
}

function requestContext(
  request: GatewayRequest,
  parsed: ParsedRequest,
  resource: string,
  requestId: string,
): APIGatewayProxyEvent['requestContext'] {
  return {
    accountId: '000000000000',
    apiId: 'local',
    authorizer: null,
    protocol: 'HTTP/1.1',
    httpMethod: request.method,
    identity: {
      accessKey: null,
      accountId: null,
      apiKey: null,
      apiKeyId: null,
      caller: null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      sourceIp: request.sourceIp,
      user: null,
      userAgent: parsed.headers['User-Agent'] ?? parsed.headers['user-agent'] ?? null,
      userArn: null,
    },
    path: parsed.path,
    stage: 'local',
    requestId,
    requestTimeEpoch: Date.now(),
    resourceId: 'local',
    resourcePath: resource,
  };
}

function proxyEvent(
  request: GatewayRequest,
  parsed: ParsedRequest,
  resource: string,
  pathParameters: Record<string, string>,
  requestId: string,
): APIGatewayProxyEvent {
  return {
    resource,
    path: parsed.path,
    httpMethod: request.method,
    headers: parsed.headers,
    multiValueHeaders: parsed.multiValueHeaders,
    queryStringParameters: parsed.queryStringParameters,
    multiValueQueryStringParameters: parsed.multiValueQueryStringParameters,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    requestContext: requestContext(request, parsed, resource, requestId),
    body: request.body,
    isBase64Encoded: false,
  };
}

function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  const result = value as APIGatewayProxyResult | null;
  return typeof result === 'object' && result !== null && Number.isInteger(result.statusCode);
}

/** A function's answer as API Gateway's Lambda proxy integration turns it into a response. */
function fromInvocation(outcome: InvocationOutcome, requestId: string): GatewayResult {
  const invocations = [outcome.report];
  // A function error, a payload over Lambda's limit (measured as Lambda does: the serialized
  // result) or a malformed proxy response: API Gateway's 502.
  if (!outcome.ok || Buffer.byteLength(outcome.payload) > LAMBDA_RESPONSE_LIMIT_BYTES)
    return gatewayResult('DEFAULT_5XX', requestId, invocations, undefined, 502);
  const result: unknown = JSON.parse(outcome.payload);
  if (!isProxyResult(result)) return gatewayResult('DEFAULT_5XX', requestId, invocations, undefined, 502);
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : (result.body ?? '');
  return { statusCode: result.statusCode, headers, body, requestId, invocations };
}

function gatewayResult(
  type: GatewayResponseType,
  requestId: string,
  invocations: readonly InvocationReport[],
  authorizer?: Record<string, string | number | boolean>,
  statusOverride?: number,
): GatewayResult {
  const rendered = renderGatewayResponse(type, { requestId, authorizer });
  return {
    statusCode: statusOverride ?? rendered.statusCode,
    // No X-Request-Id: a gateway response can only map static headers (see rest-api-routing.ts).
    headers: { ...rendered.headers, 'x-amzn-RequestId': requestId },
    body: rendered.body,
    requestId,
    responseType: type,
    invocations,
  };
}

function methodNotAllowed(
  allow: readonly string[],
  method: string,
  pathTemplate: string,
  requestId: string,
): GatewayResult {
  const body = problemBody('method-not-allowed', methodNotAllowedDetail(method, pathTemplate, allow), {
    request_id: requestId,
  });
  return {
    statusCode: 405,
    headers: {
      'Content-Type': PROBLEM_CONTENT_TYPE,
      Allow: allow.join(', '),
      'X-Request-Id': requestId,
      'x-amzn-RequestId': requestId,
    },
    body: JSON.stringify(body),
    requestId,
    invocations: [],
  };
}

/** Only what an authorizer may return reaches the integration: flat scalar context values. */
function authorizerContext(decision: APIGatewayAuthorizerResult): Record<string, string | number | boolean> {
  const context: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(decision.context ?? {})) {
    if (value !== null && value !== undefined) context[name] = value;
  }
  return context;
}

/**
 * API Gateway as deployed, on one machine: route matching, the REQUEST authorizer, Lambda proxy
 * integrations and gateway responses, every function invoked through the local Lambda runtime.
 * Paths under `/partner-api/v1` are the API; the pages are at the root, as on the activation
 * base URL.
 */
export class LocalApiGateway {
  constructor(private readonly lambdas: LocalLambdaRuntime) {}

  async handle(request: GatewayRequest): Promise<GatewayResult> {
    const result = await this.answer(request);
    // A HEAD answer has a GET's status and headers and no body.
    return request.method === 'HEAD' ? { ...result, body: '' } : result;
  }

  private async answer(request: GatewayRequest): Promise<GatewayResult> {
    const requestId = randomUUID();
    const parsed = parseRequest(request);
    // In AWS the API and the pages are two hosts: a request sent to the API stays on the API even
    // when its path resolves elsewhere (`/partner-api/v1/%2e%2e/..` is `/`, the pages' root here).
    const sentToApi =
      request.url.startsWith(API_BASE_PATH) && /^(?:[/?#]|$)/.test(request.url.slice(API_BASE_PATH.length));
    if (sentToApi || parsed.path === API_BASE_PATH || parsed.path.startsWith(`${API_BASE_PATH}/`)) {
      if (!parsed.path.startsWith(API_BASE_PATH))
        return gatewayResult('MISSING_AUTHENTICATION_TOKEN', requestId, []);
      const apiPath = parsed.path.slice(API_BASE_PATH.length);
      const open = matchRoute(publicApiRoutes, answeredMethods, request.method, apiPath);
      if (open.kind === 'match') return this.invokePublic(request, parsed, open.route, requestId);
      if (open.kind === 'method-not-allowed') {
        return methodNotAllowed(open.allow, request.method, API_BASE_PATH + open.path, requestId);
      }
      const match = matchRoute(partnerApiRoutes, answeredMethods, request.method, apiPath);
      if (match.kind === 'no-route') return gatewayResult('MISSING_AUTHENTICATION_TOKEN', requestId, []);
      if (match.kind === 'method-not-allowed') {
        return methodNotAllowed(match.allow, request.method, API_BASE_PATH + match.path, requestId);
      }
      return this.invokePartnerApi(request, parsed, match.route, match.pathParameters, requestId);
    }
    const page = matchRoute(pageRoutes, (route) => route.methods, request.method, parsed.path);
    if (page.kind === 'match')
      return this.invokePage(request, parsed, page.route, page.pathParameters, requestId);
    if (page.kind === 'method-not-allowed')
      return methodNotAllowed(page.allow, request.method, page.path, requestId);
    return gatewayResult('MISSING_AUTHENTICATION_TOKEN', requestId, []);
  }

  /** Runs the REQUEST authorizer the way API Gateway does, then the route's function. */
  private async invokePartnerApi(
    request: GatewayRequest,
    parsed: ParsedRequest,
    route: PartnerApiRoute,
    pathParameters: Record<string, string>,
    requestId: string,
  ): Promise<GatewayResult> {
    const resource = API_BASE_PATH + route.path;
    const event = proxyEvent(request, parsed, resource, pathParameters, requestId);
    const methodArn = `arn:aws:execute-api:local:000000000000:local/local/${request.method}${resource}`;
    // A REQUEST authorizer sees the request as the proxy event has it, without the body.
    const { body: _body, isBase64Encoded: _encoded, ...requestWithoutBody } = event;
    const authorizerEvent: APIGatewayRequestAuthorizerEvent = {
      type: 'REQUEST',
      methodArn,
      ...requestWithoutBody,
      requestContext: { ...event.requestContext, authorizer: undefined },
    };
    const authorization = await this.lambdas.invoke(AUTHORIZER.id, authorizerEvent);
    const invocations = [authorization.report];
    if (!authorization.ok) {
      // "Unauthorized" is the authorizer's way to ask for a 401; any other failure is its own fault.
      const type = authorization.errorMessage === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE';
      return { ...gatewayResult(type, requestId, invocations), resourcePath: resource };
    }
    const decision = JSON.parse(authorization.payload) as APIGatewayAuthorizerResult;
    const context = authorizerContext(decision);
    const allowed = decision.policyDocument?.Statement?.some(
      (statement) =>
        statement.Effect === 'Allow' &&
        'Resource' in statement &&
        [statement.Resource].flat().includes(methodArn),
    );
    if (!allowed)
      return { ...gatewayResult('ACCESS_DENIED', requestId, invocations, context), resourcePath: resource };
    // API Gateway hands authorizer context values to the integration as strings.
    event.requestContext.authorizer = {
      principalId: decision.principalId,
      ...Object.fromEntries(Object.entries(context).map(([name, value]) => [name, String(value)])),
    };
    const result = fromInvocation(await this.lambdas.invoke(route.id, event), requestId);
    return {
      ...result,
      resourcePath: resource,
      ...(context.partnerId === undefined ? {} : { partnerId: String(context.partnerId) }),
      ...(context.keyPrefix === undefined ? {} : { keyPrefix: String(context.keyPrefix) }),
      invocations: [...invocations, ...result.invocations],
    };
  }

  private async invokePage(
    request: GatewayRequest,
    parsed: ParsedRequest,
    route: PageRoute,
    pathParameters: Record<string, string>,
    requestId: string,
  ): Promise<GatewayResult> {
    const event = proxyEvent(request, parsed, route.path, pathParameters, requestId);
    const result = fromInvocation(await this.lambdas.invoke(pageFunctionName(route.id), event), requestId);
    return { ...result, resourcePath: route.path };
  }

  /** A public route of the API: no authorizer, as in the stack. */
  private async invokePublic(
    request: GatewayRequest,
    parsed: ParsedRequest,
    route: PublicApiRoute,
    requestId: string,
  ): Promise<GatewayResult> {
    const event = proxyEvent(request, parsed, API_BASE_PATH + route.path, {}, requestId);
    const result = fromInvocation(await this.lambdas.invoke(route.id, event), requestId);
    return { ...result, resourcePath: API_BASE_PATH + route.path };
  }
}
