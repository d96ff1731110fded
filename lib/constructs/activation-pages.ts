import { LambdaIntegration } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { pageFunctionName, pageRoutes, SECRET_SCANNING_PATH } from '../../core/routes';
import { firewallThrottledPage } from '../../lambdas/pages/firewall-page';
import type { FirewallLimit } from '../stage-config';
import { acknowledgeNagFinding } from './nag';
import { addMethodNotAllowed, pascalCase, pathParameterNames, routesByPath } from './rest-api-routing';
import type { AccessResources, FunctionSettings } from './service-function';
import { ServiceFunction } from './service-function';
import type { ServiceRestApiProps } from './service-rest-api';
import { ServiceRestApi } from './service-rest-api';
import type { FirewallResponse } from './web-firewall';

export interface ActivationPagesProps {
  /** The table, index and secrets the functions' grants refer to. */
  readonly resources: AccessResources;
  readonly functionSettings: FunctionSettings;
  readonly api: Omit<ServiceRestApiProps, 'apiKeySourceType' | 'restApiName' | 'description' | 'firewall'>;
  /** Per-IP limit of the web ACL in front of the pages: tight, as the stage throttle is shared by every host. */
  readonly requestsPerIp: FirewallLimit;
  /** Where GitHub's secret scanning keys are published (the stage setting `secretScanningKeysUrl`). */
  readonly secretScanningKeysUrl: string;
  /** The namespace of the functions' own metrics (the leaked-key reports'). */
  readonly metricsNamespace: string;
}

/**
 * The secret scanning reports' own throttle. A stage's throttle applies "at the API method level",
 * each method with its own bucket, so the hosts' pages keep theirs whatever comes here
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html). It bounds what a flood of
 * unsigned reports costs; it is not tight, because every request in the bucket counts, signed or not:
 * the per-IP rule of the web ACL holds each address to the pages' rate, and it takes many addresses
 * at that rate to fill 10 a second and delay GitHub's own (docs/design/api-keys.md#when-a-key-leaks).
 */
const SECRET_SCANNING_THROTTLE = { rateLimit: 10, burstLimit: 50 } as const;

/** The firewall's 429 as the page a host reads (same headers as every page, no Content-Type: WAF sets it). */
function firewallThrottledResponse(limit: FirewallLimit): FirewallResponse {
  const { headers, body } = firewallThrottledPage(limit.windowSeconds);
  const { 'Content-Type': _contentType, ...rest } = headers;
  return { contentType: 'TEXT_HTML', body, headers: rest };
}

/**
 * The browser pages on their own base URL (`{activation_base}`): key reveal and activation. One
 * Lambda per page route with each of its methods, no API key (a page authenticates its own
 * link), throttled for the whole stage.
 */
export class ActivationPages extends Construct {
  public readonly restApi: ServiceRestApi;
  /** One function per page route, by route id. */
  public readonly pageFunctions: ReadonlyMap<string, ServiceFunction>;
  /** The pages' base URL, without a trailing slash. */
  public readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: ActivationPagesProps) {
    super(scope, id);
    const routes = pageRoutes;
    this.restApi = new ServiceRestApi(this, 'RestApi', {
      ...props.api,
      restApiName: `partner-pages-${props.api.stageName}`,
      description: 'Partner key reveal and host activation pages',
      firewall: {
        requestsPerIp: props.requestsPerIp,
        throttledResponse: firewallThrottledResponse(props.requestsPerIp),
        // Legitimate here: wizard forms over 8 KB, activation tokens up to 4 KB in the query, and text
        // a host types with angle brackets (every page escapes what it prints).
        commonRulesThatCount: [
          'SizeRestrictions_BODY',
          'SizeRestrictions_QUERYSTRING',
          'CrossSiteScripting_BODY',
        ],
      },
      methodThrottles: { [`${SECRET_SCANNING_PATH}/POST`]: SECRET_SCANNING_THROTTLE },
    });
    const { api } = this.restApi;
    const pageFunctions = new Map<string, ServiceFunction>();
    for (const [path, routesOfPath] of routesByPath(routes)) {
      const resource = api.root.resourceForPath(path);
      for (const route of routesOfPath) {
        const pageFunction = new ServiceFunction(this, `${pascalCase(route.id)}PageFunction`, {
          ...props.functionSettings,
          name: pageFunctionName(route.id),
          entry: route.entry,
          description: `${route.methods.join(', ')} ${route.path} (page)`,
        });
        // Each page reaches exactly the partitions and secrets the route table names for it.
        pageFunction.grantAccess(route.access, props.resources);
        const integration = new LambdaIntegration(pageFunction.live, { allowTestInvoke: false });
        for (const method of route.methods) {
          const pageMethod = resource.addMethod(method, integration, {
            operationName: `${route.id}${pascalCase(method.toLowerCase())}`,
            requestValidator: this.restApi.parameterValidator,
            requestParameters: Object.fromEntries(
              pathParameterNames(route.path).map((name) => [`method.request.path.${name}`, true]),
            ),
          });
          const reason =
            'A browser page reached from a link in an e-mail or a partner UI: it cannot carry an API key or a ' +
            'Cognito token. It authenticates the link itself (reveal secret digest, HMAC-signed activation token ' +
            'with single-use nonce) and the stage is throttled.';
          acknowledgeNagFinding(pageMethod, 'APIG4', reason);
          acknowledgeNagFinding(pageMethod, 'COG4', reason);
        }
        pageFunctions.set(route.id, pageFunction);
        if (route.id === 'secretScanning') {
          pageFunction.function.addEnvironment('SECRET_SCANNING_KEYS_URL', props.secretScanningKeysUrl);
          pageFunction.function.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', props.metricsNamespace);
        }
      }
      const allow = [...new Set(routesOfPath.flatMap((route) => route.methods))];
      addMethodNotAllowed(resource, allow, path);
    }
    this.pageFunctions = pageFunctions;
    this.baseUrl = this.restApi.baseUrl;
  }
}
