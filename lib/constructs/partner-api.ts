import { Duration } from 'aws-cdk-lib';
import type { IResource, ThrottleSettings, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiKeySourceType,
  CfnAuthorizer,
  LambdaIntegration,
  RequestAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { firewallThrottledProblem } from '../../core/contract/gateway-responses';
import type { PartnerApiRoute, PublicApiRoute } from '../../core/routes';
import {
  API_BASE_PATH,
  AUTHORIZER,
  answeredMethods,
  partnerApiRoutes,
  publicApiRoutes,
} from '../../core/routes';
import type { FirewallLimit } from '../stage-config';
import { acknowledgeLambdaPermissionsOfApiGateway, acknowledgeNagFinding } from './nag';
import { addMethodNotAllowed, pascalCase, pathParameterNames, routesByPath } from './rest-api-routing';
import type { AccessResources, FunctionSettings } from './service-function';
import { ServiceFunction } from './service-function';
import type { ServiceRestApiProps } from './service-rest-api';
import { ServiceRestApi } from './service-rest-api';

export interface PartnerApiProps {
  /** The table, index and secrets the functions' grants refer to. */
  readonly resources: AccessResources;
  readonly functionSettings: FunctionSettings;
  readonly api: Omit<ServiceRestApiProps, 'apiKeySourceType' | 'restApiName' | 'description' | 'firewall'>;
  /** Per-IP limit of the web ACL in front of the API. */
  readonly requestsPerIp: FirewallLimit;
  /** Per-key throttle of the usage plan (the backstop of the exact limit in code). */
  readonly usagePlanThrottle: ThrottleSettings;
}

/**
 * The partner API (`/partner-api/v1`), entirely from the route table: one resource and one
 * Lambda-proxied method per route behind the REQUEST authorizer, which also hands API Gateway
 * the usage-plan key of the partner key (`apiKeySource: AUTHORIZER`); a 405 for every other
 * method on those resources; and a usage plan throttling each key.
 */
export class PartnerApi extends Construct {
  public readonly restApi: ServiceRestApi;
  public readonly authorizerFunction: ServiceFunction;
  public readonly authorizer: RequestAuthorizer;
  /** One function per route, by route id. */
  public readonly routeFunctions: ReadonlyMap<string, ServiceFunction>;
  public readonly usagePlan: UsagePlan;
  /** The partner API base URL, ending in `/partner-api/v1`. */
  public readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: PartnerApiProps) {
    super(scope, id);
    this.restApi = this.partnerRestApi(props);
    const { api } = this.restApi;
    this.authorizerFunction = this.authorizerFunctionOf(props);
    this.authorizer = this.requestAuthorizer(props.api.stageName, this.authorizerFunction);
    const routeFunctions = new Map<string, ServiceFunction>();
    for (const [path, routesOfPath] of routesByPath(partnerApiRoutes)) {
      const resource = api.root.resourceForPath(API_BASE_PATH + path);
      for (const route of routesOfPath)
        routeFunctions.set(route.id, this.addPartnerRoute(resource, route, props));
      const allow = [...new Set(routesOfPath.flatMap((route) => answeredMethods(route)))];
      addMethodNotAllowed(resource, allow, API_BASE_PATH + path);
    }
    for (const route of publicApiRoutes) routeFunctions.set(route.id, this.addPublicRoute(route, props));
    this.routeFunctions = routeFunctions;

    this.usagePlan = api.addUsagePlan('UsagePlan', {
      name: `partner-api-${props.api.stageName}`,
      description: 'Per-key throttle of partner keys; each partner key has an API Gateway key in this plan',
      throttle: props.usagePlanThrottle,
      apiStages: [{ api, stage: api.deploymentStage }],
    });
    this.baseUrl = this.restApi.baseUrl + API_BASE_PATH;
  }

  /** The REST API, its usage-plan keys from the authorizer, behind a web ACL with the per-IP limit. */
  private partnerRestApi(props: PartnerApiProps): ServiceRestApi {
    return new ServiceRestApi(this, 'RestApi', {
      ...props.api,
      restApiName: `partner-api-${props.api.stageName}`,
      description: 'Partner data API (read-only, API key per partner)',
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // Large lists come gzip-compressed and base64-encoded from the handler (Lambda's 6 MB limit
      // applies before compression); API Gateway decodes them to bytes for any Accept value. The
      // API is GET-only, so no request body is affected.
      binaryMediaTypes: ['*/*'],
      firewall: {
        requestsPerIp: props.requestsPerIp,
        throttledResponse: {
          contentType: 'APPLICATION_JSON',
          body: firewallThrottledProblem(props.requestsPerIp),
          headers: { 'Retry-After': String(props.requestsPerIp.windowSeconds), 'Cache-Control': 'no-store' },
        },
        // Partners' HTTP clients need not send a User-Agent; the API is GET-only (no body rules apply).
        commonRulesThatCount: ['NoUserAgent_HEADER'],
      },
    });
  }

  private authorizerFunctionOf(props: PartnerApiProps): ServiceFunction {
    const authorizerFunction = new ServiceFunction(this, 'AuthorizerFunction', {
      ...props.functionSettings,
      name: AUTHORIZER.id,
      entry: AUTHORIZER.entry,
      description: 'Partner API key authorizer',
    });
    authorizerFunction.grantAccess(AUTHORIZER.access, props.resources);
    acknowledgeLambdaPermissionsOfApiGateway(authorizerFunction);
    return authorizerFunction;
  }

  private requestAuthorizer(stageName: string, authorizerFunction: ServiceFunction): RequestAuthorizer {
    const authorizer = new RequestAuthorizer(this, 'Authorizer', {
      authorizerName: `partner-api-key-${stageName}`,
      handler: authorizerFunction.live,
      // No result caching, and so no identity source: with caching on, API Gateway refuses (401)
      // any request lacking one of the identity sources before the authorizer runs, but a key may
      // come in Authorization OR X-Enterprise-Key. The authorizer caches key records itself
      // (25 s, inside the 30 s revocation bound).
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    const cfnAuthorizer = authorizer.node.defaultChild;
    // CDK writes an empty IdentitySource; the property is optional when caching is off.
    if (cfnAuthorizer instanceof CfnAuthorizer) cfnAuthorizer.addPropertyDeletionOverride('IdentitySource');
    return authorizer;
  }

  /** A route's function, and its GET and HEAD behind the authorizer and the usage-plan key. */
  private addPartnerRoute(
    resource: IResource,
    route: PartnerApiRoute,
    props: PartnerApiProps,
  ): ServiceFunction {
    const routeFunction = new ServiceFunction(this, `${pascalCase(route.id)}Function`, {
      ...props.functionSettings,
      name: route.id,
      entry: route.entry,
      description: `${route.method} ${API_BASE_PATH}${route.path}: ${route.summary}`,
    });
    // Reads of its own partitions; the one write is the rate window of the calling key.
    routeFunction.grantAccess(route.access, props.resources);
    // GET and HEAD: the same function behind the same authorizer and usage-plan key.
    const integration = new LambdaIntegration(routeFunction.live, { allowTestInvoke: false });
    for (const httpMethod of answeredMethods(route)) {
      const method = resource.addMethod(httpMethod, integration, {
        authorizer: this.authorizer,
        apiKeyRequired: true,
        operationName: operationName(route.id, httpMethod),
        requestValidator: this.restApi.parameterValidator,
        requestParameters: {
          ...Object.fromEntries(
            pathParameterNames(route.path).map((name) => [`method.request.path.${name}`, true]),
          ),
          // Declared, not required: API Gateway can only check presence; the handler checks the range.
          ...Object.fromEntries(
            route.queryParameters.map((parameter) => [`method.request.querystring.${parameter.name}`, false]),
          ),
        },
      });
      acknowledgeNagFinding(
        method,
        'COG4',
        'Partners are machines holding API keys, not Cognito users: the Lambda REQUEST authorizer checks the key ' +
          '(digest, expiry, revocation) and API Gateway requires its usage-plan key.',
      );
    }
    return routeFunction;
  }

  /** A route without a key (the OpenAPI document): its resource, function, GET, HEAD and 405s. */
  private addPublicRoute(route: PublicApiRoute, props: PartnerApiProps): ServiceFunction {
    const resource = this.restApi.api.root.resourceForPath(API_BASE_PATH + route.path);
    const publicFunction = new ServiceFunction(this, `${pascalCase(route.id)}Function`, {
      ...props.functionSettings,
      name: route.id,
      entry: route.entry,
      description: `${route.method} ${API_BASE_PATH}${route.path}: ${route.summary}`,
    });
    const integration = new LambdaIntegration(publicFunction.live, { allowTestInvoke: false });
    const reason =
      "The API's own OpenAPI description: public by design (partners read it before they have a key), no data.";
    for (const httpMethod of answeredMethods(route)) {
      const method = resource.addMethod(httpMethod, integration, {
        operationName: operationName(route.id, httpMethod),
      });
      acknowledgeNagFinding(method, 'APIG4', reason);
      acknowledgeNagFinding(method, 'COG4', reason);
    }
    addMethodNotAllowed(resource, answeredMethods(route), API_BASE_PATH + route.path);
    return publicFunction;
  }
}

/** The method's operation name: the route id for GET, `<id>Head` for HEAD. */
function operationName(routeId: string, httpMethod: string): string {
  return httpMethod === 'GET' ? routeId : `${routeId}${pascalCase(httpMethod.toLowerCase())}`;
}
