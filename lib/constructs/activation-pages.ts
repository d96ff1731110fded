import { LambdaIntegration } from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { PageRoute } from '../../lambdas/routes';
import { pageRoutes } from '../../lambdas/routes';
import type { FunctionSettings } from './partner-api';
import { pascalCase, pathParameterNames } from './partner-api';
import { addMethodNotAllowed, routesByPath } from './rest-api-responses';
import { ServiceFunction } from './service-function';
import type { ServiceRestApiProps } from './service-rest-api';
import { ServiceRestApi } from './service-rest-api';

export interface ActivationPagesProps {
  readonly table: ITableV2;
  /** Name of the global secondary index the pages query. */
  readonly indexName: string;
  /** The service secret (master key of the sealing and session keys). */
  readonly serviceSecret: ISecret;
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
          entry: route.entry,
          description: `${route.methods.join(', ')} ${route.path} (page)`,
        });
        // Pages create sponsored hosts and consume reveals and nonces: reads and writes.
        pageFunction.bindTable({ table: props.table, accessMode: 'RW', indexNames: [props.indexName] });
        pageFunction.bindServiceSecret(props.serviceSecret);
        const integration = new LambdaIntegration(pageFunction.function, { allowTestInvoke: false });
        for (const method of route.methods) {
          resource.addMethod(method, integration, {
            operationName: `${route.id}${pascalCase(method.toLowerCase())}`,
            requestValidator: this.restApi.parameterValidator,
            requestParameters: Object.fromEntries(
              pathParameterNames(route.path).map((name) => [`method.request.path.${name}`, true]),
            ),
          });
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
