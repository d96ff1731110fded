import { LambdaIntegration } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import type { PageRoute } from '../../lambdas/routes';
import { pageFunctionName, pageRoutes } from '../../lambdas/routes';
import { acknowledgeNagFinding } from './nag';
import { addMethodNotAllowed, pascalCase, pathParameterNames, routesByPath } from './rest-api-routing';
import type { AccessResources, FunctionSettings } from './service-function';
import { ServiceFunction } from './service-function';
import type { ServiceRestApiProps } from './service-rest-api';
import { ServiceRestApi } from './service-rest-api';

export interface ActivationPagesProps {
  /** The table, index and secrets the functions' grants refer to. */
  readonly resources: AccessResources;
  readonly functionSettings: FunctionSettings;
  readonly api: Omit<ServiceRestApiProps, 'apiKeySourceType' | 'restApiName' | 'description'>;
  /** @default pageRoutes (lambdas/routes.ts) */
  readonly routes?: readonly PageRoute[];
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
    const routes = props.routes ?? pageRoutes;
    this.restApi = new ServiceRestApi(this, 'RestApi', {
      ...props.api,
      restApiName: `partner-pages-${props.api.stageName}`,
      description: 'Partner key reveal and host activation pages',
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
        const integration = new LambdaIntegration(pageFunction.function, { allowTestInvoke: false });
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
      }
      const allow = [...new Set(routesOfPath.flatMap((route) => route.methods))];
      addMethodNotAllowed(resource, allow, path);
    }
    this.pageFunctions = pageFunctions;
    this.baseUrl = this.restApi.stageUrl;
  }
}
