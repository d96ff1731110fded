import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { GatewayResponseType } from '../../lambdas/api/gateway-responses';
import { methodNotAllowedDetail, renderGatewayResponse } from '../../lambdas/api/gateway-responses';
import type { PageRoute, PartnerApiRoute, PublicApiRoute } from '../../lambdas/routes';
import {
  API_BASE_PATH,
  matchRoute,
  pageRoutes,
  partnerApiRoutes,
  publicApiRoutes,
} from '../../lambdas/routes';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../../lambdas/shared/problems';

const LAMBDAS_DIRECTORY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'lambdas');

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
  /** For the access log. */
  readonly keyPrefix?: string;
}

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

const loaded = new Map<string, Promise<unknown>>();

/** Imports a handler module once, like a warm Lambda. */
async function loadHandler<T>(entry: string): Promise<T> {
  let module = loaded.get(entry);
  if (!module) {
    module = import(pathToFileURL(join(LAMBDAS_DIRECTORY, entry)).href);
    loaded.set(entry, module);
  }
  return ((await module) as { handler: T }).handler;
}

function lambdaContext(functionName: string, requestId: string): Context {
  const started = Date.now();
  return {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, 10_000 - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

interface ParsedRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly multiValueHeaders: Record<string, string[]>;
  readonly queryStringParameters: Record<string, string> | null;
  readonly multiValueQueryStringParameters: Record<string, string[]> | null;
}

function parseRequest(request: GatewayRequest): ParsedRequest {
  const url = new URL(request.url, 'http://local');
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = request.rawHeaders[index + 1] ?? '';
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
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

/** Lambda refuses a synchronous response over 6 MB; API Gateway then answers 502. */
const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

function exceedsLambdaLimit(result: APIGatewayProxyResult): boolean {
  return Buffer.byteLength(JSON.stringify(result)) > LAMBDA_RESPONSE_LIMIT_BYTES;
}

function fromProxyResult(result: APIGatewayProxyResult, requestId: string): GatewayResult {
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  return { statusCode: result.statusCode, headers, body };
}

function gatewayResult(
  type: GatewayResponseType,
  requestId: string,
  authorizer?: Record<string, string | number | boolean>,
  statusOverride?: number,
): GatewayResult {
  const rendered = renderGatewayResponse(type, { requestId, authorizer });
  return {
    statusCode: statusOverride ?? rendered.statusCode,
    headers: { ...rendered.headers, 'X-Request-Id': requestId, 'x-amzn-RequestId': requestId },
    body: rendered.body,
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
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, Allow: allow.join(', '), 'X-Request-Id': requestId },
    body: JSON.stringify(body),
  };
}

/** Runs the REQUEST authorizer the way API Gateway does, then the route's handler. */
async function invokePartnerApi(
  request: GatewayRequest,
  parsed: ParsedRequest,
  route: PartnerApiRoute,
  pathParameters: Record<string, string>,
  requestId: string,
): Promise<GatewayResult> {
  const resource = API_BASE_PATH + route.path;
  const event = proxyEvent(request, parsed, resource, pathParameters, requestId);
  const authorizer = await loadHandler<AuthorizerHandler>('api/authorizer.ts');
  const methodArn = `arn:aws:execute-api:local:000000000000:local/local/${request.method}${resource}`;
  let decision: APIGatewayAuthorizerResult;
  try {
    decision = await authorizer(
      {
        type: 'REQUEST',
        methodArn,
        resource,
        path: parsed.path,
        httpMethod: request.method,
        headers: parsed.headers,
        multiValueHeaders: parsed.multiValueHeaders,
        queryStringParameters: parsed.queryStringParameters,
        multiValueQueryStringParameters: parsed.multiValueQueryStringParameters,
        pathParameters: event.pathParameters,
        stageVariables: null,
        requestContext: { ...event.requestContext, authorizer: undefined },
      },
      lambdaContext('authorizer', randomUUID()),
    );
  } catch (error) {
    return gatewayResult(
      (error as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE',
      requestId,
    );
  }
  const context: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(decision.context ?? {})) {
    if (value !== null && value !== undefined) context[name] = value;
  }
  const allowed = decision.policyDocument.Statement.some(
    (statement) =>
      statement.Effect === 'Allow' &&
      'Resource' in statement &&
      [statement.Resource].flat().includes(methodArn),
  );
  if (!allowed) return gatewayResult('ACCESS_DENIED', requestId, context);
  // API Gateway hands authorizer context values to the integration as strings.
  event.requestContext.authorizer = {
    principalId: decision.principalId,
    ...Object.fromEntries(Object.entries(context).map(([name, value]) => [name, String(value)])),
  };
  const handler = await loadHandler<ProxyHandler>(route.entry);
  try {
    const result = await handler(event, lambdaContext(route.id, randomUUID()));
    if (exceedsLambdaLimit(result)) return gatewayResult('DEFAULT_5XX', requestId, undefined, 502);
    return { ...fromProxyResult(result, requestId), keyPrefix: String(context.keyPrefix) };
  } catch {
    // An exception that escapes a handler is API Gateway's 502.
    return gatewayResult('DEFAULT_5XX', requestId, undefined, 502);
  }
}

async function invokePage(
  request: GatewayRequest,
  parsed: ParsedRequest,
  route: PageRoute,
  pathParameters: Record<string, string>,
  requestId: string,
): Promise<GatewayResult> {
  const handler = await loadHandler<ProxyHandler>(route.entry);
  try {
    const result = await handler(
      proxyEvent(request, parsed, route.path, pathParameters, requestId),
      lambdaContext(route.id, randomUUID()),
    );
    return fromProxyResult(result, requestId);
  } catch {
    return gatewayResult('DEFAULT_5XX', requestId, undefined, 502);
  }
}

/** A public route of the API: no authorizer, as in the stack. */
async function invokePublic(
  request: GatewayRequest,
  parsed: ParsedRequest,
  route: PublicApiRoute,
  requestId: string,
): Promise<GatewayResult> {
  const handler = await loadHandler<ProxyHandler>(route.entry);
  const event = proxyEvent(request, parsed, API_BASE_PATH + route.path, {}, requestId);
  return fromProxyResult(await handler(event, lambdaContext(route.id, randomUUID())), requestId);
}

/**
 * API Gateway as deployed, on one machine: route matching, the authorizer, proxy integration
 * and gateway responses. Paths under `/partner-api/v1` are the API; the pages are at the root,
 * as on the activation base URL.
 */
export async function handleGatewayRequest(request: GatewayRequest): Promise<GatewayResult> {
  const requestId = randomUUID();
  const parsed = parseRequest(request);
  if (parsed.path === API_BASE_PATH || parsed.path.startsWith(`${API_BASE_PATH}/`)) {
    const apiPath = parsed.path.slice(API_BASE_PATH.length);
    const open = matchRoute(publicApiRoutes, (route) => [route.method], request.method, apiPath);
    if (open.kind === 'match') return invokePublic(request, parsed, open.route, requestId);
    if (open.kind === 'method-not-allowed') {
      return methodNotAllowed(open.allow, request.method, API_BASE_PATH + open.path, requestId);
    }
    const match = matchRoute(partnerApiRoutes, (route) => [route.method], request.method, apiPath);
    if (match.kind === 'no-route') return gatewayResult('MISSING_AUTHENTICATION_TOKEN', requestId);
    if (match.kind === 'method-not-allowed') {
      return methodNotAllowed(match.allow, request.method, API_BASE_PATH + match.path, requestId);
    }
    return invokePartnerApi(request, parsed, match.route, match.pathParameters, requestId);
  }
  const page = matchRoute(pageRoutes, (route) => route.methods, request.method, parsed.path);
  if (page.kind === 'match') return invokePage(request, parsed, page.route, page.pathParameters, requestId);
  if (page.kind === 'method-not-allowed')
    return methodNotAllowed(page.allow, request.method, page.path, requestId);
  return gatewayResult('MISSING_AUTHENTICATION_TOKEN', requestId);
}
