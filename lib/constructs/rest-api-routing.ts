import type { IResource, Method, RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AuthorizationType,
  ContentHandling,
  MockIntegration,
  PassthroughBehavior,
  ResponseType,
} from 'aws-cdk-lib/aws-apigateway';
import { gatewayResponses, methodNotAllowedDetail } from '../../core/contract/gateway-responses';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../../core/contract/problems';
import { acknowledgeNagFinding } from './nag';

/** A static header value as API Gateway wants it in a mapping: single-quoted. */
function staticHeaderValue(value: string): string {
  if (value.includes("'")) throw new Error(`A static header value cannot contain a single quote: ${value}`);
  return `'${value}'`;
}

/**
 * Installs every gateway response of `contract/gateway-responses.ts` (the local server renders
 * the same definitions). Their bodies carry the request id (`$context.requestId` is documented in
 * gateway-response templates); their headers only static values: API Gateway documents no
 * `context.*` source for gateway-response header mappings, and a mapping it refuses would roll the
 * whole deployment back. Clients get the id in `x-amzn-RequestId`, which API Gateway always sends.
 */
export function addProblemGatewayResponses(api: RestApi): void {
  for (const response of gatewayResponses) {
    const headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, staticHeaderValue(value)]),
    );
    api.addGatewayResponse(`GatewayResponse${response.type}`, {
      type: ResponseType.of(response.type),
      ...(response.statusCode === undefined ? {} : { statusCode: String(response.statusCode) }),
      templates: { 'application/json': response.template },
      responseHeaders: headers,
    });
  }
}

/** Marks where the method goes in the detail, filled in by API Gateway at request time. */
const METHOD_PLACEHOLDER = '__HTTP_METHOD__';

/**
 * The 405 problem of the local server (`emulator/api-gateway.ts`), as a mapping template. The
 * path is the route's template from the route table; the method comes from `$context`.
 */
function methodNotAllowedTemplate(allow: readonly string[], path: string): string {
  const body = problemBody('method-not-allowed', methodNotAllowedDetail(METHOD_PLACEHOLDER, path, allow), {
    request_id: '$context.requestId',
  });
  return [
    '#set($context.responseOverride.header.X-Request-Id = $context.requestId)',
    JSON.stringify(body).replace(METHOD_PLACEHOLDER, '$context.httpMethod'),
  ].join('\n');
}

/**
 * Answers every method a resource does not serve with a 405 problem and an `Allow` header,
 * straight from API Gateway (MOCK integration, no authorizer: there is nothing to protect and a
 * client without a key deserves the same answer).
 */
export function addMethodNotAllowed(resource: IResource, allow: readonly string[], path: string): Method {
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      // No request template: every body and content type reaches the default integration response.
      passthroughBehavior: PassthroughBehavior.WHEN_NO_TEMPLATES,
      // With binary media types (the partner API has */*), a request or response without content
      // handling is converted to binary; the MOCK's JSON then fails to decode and API Gateway answers
      // 500. CONVERT_TO_TEXT keeps both as text ("Content type conversions in API Gateway").
      contentHandling: ContentHandling.CONVERT_TO_TEXT,
      integrationResponses: [
        {
          statusCode: '405',
          contentHandling: ContentHandling.CONVERT_TO_TEXT,
          responseTemplates: { 'application/json': methodNotAllowedTemplate(allow, path) },
          responseParameters: {
            'method.response.header.Allow': staticHeaderValue(allow.join(', ')),
            'method.response.header.Content-Type': staticHeaderValue(PROBLEM_CONTENT_TYPE),
          },
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      apiKeyRequired: false,
      operationName: 'methodNotAllowed',
      methodResponses: [
        {
          statusCode: '405',
          responseParameters: {
            'method.response.header.Allow': true,
            'method.response.header.Content-Type': true,
            // Set by the template's $context.responseOverride (documented for non-proxy integrations).
            'method.response.header.X-Request-Id': true,
          },
        },
      ],
    },
  );
  const reason =
    'A MOCK integration answering 405 Method Not Allowed with no backend and no data; the live methods of ' +
    'this resource carry their own authorization.';
  acknowledgeNagFinding(method, 'APIG4', reason);
  acknowledgeNagFinding(method, 'COG4', reason);
  return method;
}

/** Groups routes by path, keeping the order of the table: one resource per path. */
export function routesByPath<R extends { readonly path: string }>(routes: readonly R[]): Map<string, R[]> {
  const byPath = new Map<string, R[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
}

/** `pricingSignals` → `PricingSignals`, for construct ids. */
export function pascalCase(id: string): string {
  return id.charAt(0).toUpperCase() + id.slice(1);
}

/** Names of the `{name}` parameters of a path template. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].flatMap((match) => (match[1] ? [match[1]] : []));
}
