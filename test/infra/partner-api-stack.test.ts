import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { problemSchema } from '../../core/contract/api-schemas';
import { gatewayResponses } from '../../core/contract/gateway-responses';
import { PROBLEM_CONTENT_TYPE, problemTypeUri } from '../../core/contract/problems';
import { createTableInput, tableDefinition } from '../../core/contract/table-definition';
import { RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS } from '../../core/domain/rate-limit';
import { EVENT_CONSUMER_CONCURRENCY, EVENT_CONSUMER_TIMEOUT_SECONDS } from '../../core/event-delivery';
import {
  API_BASE_PATH,
  EVENT_CONSUMER,
  OUTBOUND_ENRICHMENT,
  pageFunctionName,
  pageRoutes,
  partnerApiRoutes,
  publicApiRoutes,
  SECRET_SCANNING_PATH,
  serviceFunctions,
} from '../../core/routes';
import { runtimeEnvironment, runtimeSettingsOf } from '../../core/runtime-settings';
import { SERVICE_SECRET_NAMES } from '../../core/service-secrets';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { matchesPattern } from '../../emulator/event-patterns';
import { API_GATEWAY_ACCOUNT_STACK } from '../../lib/api-gateway-account-stack';
import { MANAGED_RULE_GROUPS } from '../../lib/constructs/web-firewall';
import { FUNCTION_TIMEOUT_SECONDS } from '../../lib/function-defaults';
import { STACK_OUTPUTS, senderAddress, stackName, stageConfig } from '../../lib/stage-config';
import { partnerApiDocument } from '../../openapi/document';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp, TEST_DEPLOYMENT } from './synthesized-app';

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
}

let synthesized: SynthesizedApp;

beforeAll(() => {
  synthesized = synthesizedApp();
});

const template = (stage: DeployedStage): Template => synthesized.templates[stage];

function resources(stage: DeployedStage, type: string): Record<string, CfnResource> {
  return template(stage).findResources(type) as Record<string, CfnResource>;
}

function only<T>(values: readonly T[], what: string): T {
  expect(values, what).toHaveLength(1);
  const [value] = values;
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
}

/** Logical id of the Lambda function the route table names `name` (its `service-function` tag). */
function functionIdOf(stage: DeployedStage, name: string): string {
  const ids = Object.entries(resources(stage, 'AWS::Lambda::Function'))
    .filter(([, resource]) =>
      (resource.Properties.Tags as { Key: string; Value: string }[] | undefined)?.some(
        (tag) => tag.Key === 'service-function' && tag.Value === name,
      ),
    )
    .map(([id]) => id);
  return only(ids, `function ${name}`);
}

/** Logical id of the Lambda function whose description starts with `description`. */
function functionId(stage: DeployedStage, description: string): string {
  const ids = Object.entries(resources(stage, 'AWS::Lambda::Function'))
    .filter(([, resource]) => String(resource.Properties.Description).startsWith(description))
    .map(([id]) => id);
  return only(ids, `function "${description}"`);
}

/** The `live` alias of a function (by its logical id): what API Gateway, event sources and the pipe invoke. */
function liveAliasId(stage: DeployedStage, functionLogicalId: string): string {
  const ids = Object.entries(resources(stage, 'AWS::Lambda::Alias'))
    .filter(([, alias]) => (alias.Properties.FunctionName as { Ref?: string }).Ref === functionLogicalId)
    .map(([id]) => id);
  return only(ids, `alias of ${functionLogicalId}`);
}

/** Every statement granted to a function's role (its role has no other policy), by its route-table name. */
function statementsOf(stage: DeployedStage, name: string): Statement[] {
  const fn = resources(stage, 'AWS::Lambda::Function')[functionIdOf(stage, name)];
  const role = fn?.Properties.Role as { 'Fn::GetAtt': [string, string] };
  const roleId = role['Fn::GetAtt'][0];
  expect(
    resources(stage, 'AWS::IAM::Role')[roleId]?.Properties.ManagedPolicyArns,
    'managed policies',
  ).toBeUndefined();
  return Object.values(resources(stage, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

const getRouteDescription = (route: (typeof partnerApiRoutes)[number]) =>
  `GET ${API_BASE_PATH}${route.path}:`;
const AUTHORIZER = 'Partner API key authorizer';
const pageDescription = (route: (typeof pageRoutes)[number]) =>
  `${route.methods.join(', ')} ${route.path} (page)`;

const partnerPaths = [...new Set([...partnerApiRoutes, ...publicApiRoutes].map((route) => route.path))];
/**
 * Route functions of the API (partner routes and public routes), the authorizer, the pages, the event
 * consumer and the outbound pipe's enrichment.
 */
const FUNCTION_COUNT = partnerApiRoutes.length + publicApiRoutes.length + 1 + pageRoutes.length + 1 + 1;
const pagePaths = [...new Set(pageRoutes.map((route) => route.path))];

describe.each(DEPLOYED_STAGES)('stack PartnerApi-%s', (stage) => {
  const config = stageConfig(stage, TEST_DEPLOYMENT[stage]);

  it('creates one function per route, the authorizer, one per page, the event consumer and the outbound enrichment', () => {
    const assess = template(stage);

    assess.resourceCountIs('AWS::Lambda::Function', FUNCTION_COUNT);
    assess.resourceCountIs('AWS::ApiGateway::RestApi', 2);
    assess.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    assess.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
    assess.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    // One per service secret: session, sealing, cursor; and the canary's key (partner-api-canary.test.ts).
    assess.resourceCountIs('AWS::SecretsManager::Secret', 4);
    const pageMethods = pageRoutes.reduce((count, route) => count + route.methods.length, 0);
    assess.resourceCountIs(
      'AWS::ApiGateway::Method',
      // GET and HEAD per API route, one 405 mock per path.
      2 * (partnerApiRoutes.length + publicApiRoutes.length) +
        partnerPaths.length +
        pageMethods +
        pagePaths.length,
    );
    for (const route of partnerApiRoutes) functionId(stage, getRouteDescription(route));
    for (const route of pageRoutes) functionId(stage, pageDescription(route));
    functionId(stage, AUTHORIZER);
  });

  it('runs every function on Node.js 24, ARM64, with tracing, a bundled ESM handler and its own log group', () => {
    const functions = Object.values(resources(stage, 'AWS::Lambda::Function'));

    for (const fn of functions) {
      const name = (fn.Properties.Tags as { Key: string; Value: string }[]).find(
        (tag) => tag.Key === 'service-function',
      )?.Value;
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        // The event consumer has time for an erasure; every other function answers a request.
        Timeout: name === EVENT_CONSUMER.id ? EVENT_CONSUMER_TIMEOUT_SECONDS : FUNCTION_TIMEOUT_SECONDS,
        // Lambda's own lines at the stage's level (WARN in production: no start and report line per call).
        LoggingConfig: {
          LogFormat: 'JSON',
          LogGroup: { Ref: expect.any(String) },
          SystemLogLevel: config.lambdaSystemLogLevel,
        },
      });
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables).toMatchObject({
        STAGE: stage,
        POWERTOOLS_SERVICE_NAME: 'partner-api',
        POWERTOOLS_LOG_LEVEL: config.logLevel,
        // Every runtime setting, at the stage's value.
        ...runtimeEnvironment(runtimeSettingsOf(config)),
      });
    }
    // Only functions that read the table know its name (the OpenAPI document and the pages' root do not).
    for (const spec of serviceFunctions) {
      const fn = resources(stage, 'AWS::Lambda::Function')[functionIdOf(stage, spec.name)];
      const environment = fn?.Properties.Environment as { Variables: Record<string, unknown> } | undefined;
      const variables = environment?.Variables ?? {};
      if (spec.access.table)
        expect(variables.TABLE_NAME, spec.name).toEqual({ Ref: expect.stringMatching(/^DataTable/) });
      else expect(variables.TABLE_NAME, spec.name).toBeUndefined();
    }
    // Each function's, each API's access and execution logs, and the outbound pipe's.
    template(stage).resourcePropertiesCountIs(
      'AWS::Logs::LogGroup',
      { RetentionInDays: config.logRetentionDays },
      functions.length + 2 * 2 + 1,
    );
  });

  it('puts no secret value and nothing local in any environment, and each secret ARN only where granted', () => {
    const secrets = resources(stage, 'AWS::SecretsManager::Secret');
    const secretId = (name: string) =>
      only(
        Object.keys(secrets).filter((id) =>
          id.startsWith(`${name.charAt(0).toUpperCase()}${name.slice(1)}Secret`),
        ),
        `${name} secret`,
      );

    for (const spec of serviceFunctions) {
      const fn = resources(stage, 'AWS::Lambda::Function')[functionIdOf(stage, spec.name)];
      const variables =
        (fn?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};
      expect(Object.keys(variables)).not.toContain('DYNAMODB_ENDPOINT');
      expect(Object.keys(variables)).not.toContain('AWS_ENDPOINT_URL_SECRETS_MANAGER');
      for (const [name, value] of Object.entries(variables)) {
        expect(JSON.stringify(value), name).not.toMatch(/masterKey|SecretString|[A-Za-z0-9_-]{40,}/);
      }
      for (const name of SERVICE_SECRET_NAMES) {
        const variable = variables[`${name.toUpperCase()}_SECRET_ARN`];
        if (spec.access.secrets?.includes(name)) expect(variable, spec.name).toEqual({ Ref: secretId(name) });
        else expect(variable, spec.name).toBeUndefined();
      }
    }
    for (const secret of SERVICE_SECRET_NAMES.map((name) => secrets[secretId(name)])) {
      expect(secret?.Properties).toMatchObject({
        GenerateSecretString: {
          SecretStringTemplate: '{}',
          GenerateStringKey: 'masterKey',
          PasswordLength: 64,
          ExcludePunctuation: true,
        },
      });
      expect(secret?.Properties.SecretString).toBeUndefined();
    }
  });

  it('tells the pages home page and the OpenAPI document where the API is: its base URL as partners reach it, nothing local', () => {
    const functions = resources(stage, 'AWS::Lambda::Function');
    const restApis = Object.keys(resources(stage, 'AWS::ApiGateway::RestApi'));
    const partnerApiId = only(
      restApis.filter((id) => id.startsWith('PartnerApiRestApi')),
      'partner API',
    );
    const withBaseUrl = Object.entries(functions).flatMap(([id, resource]) => {
      const variables = (
        resource.Properties.Environment as { Variables?: Record<string, unknown> } | undefined
      )?.Variables;
      return variables?.API_BASE_URL === undefined ? [] : [[id, variables.API_BASE_URL] as const];
    });

    expect(withBaseUrl.map(([id]) => id).sort()).toEqual(
      [functionIdOf(stage, 'homePage'), functionIdOf(stage, 'openapiDocument')].sort(),
    );
    for (const [, baseUrl] of withBaseUrl) {
      if (config.customDomain)
        expect(baseUrl).toBe(`https://${config.customDomain.apiDomain}${API_BASE_PATH}`);
      else {
        expect(JSON.stringify(baseUrl)).toContain(partnerApiId);
        expect(JSON.stringify(baseUrl)).toMatch(new RegExp(`/${stage}${API_BASE_PATH}"\\]\\]}$`));
      }
    }
  });

  it('serves both APIs on the stage’s own names when it has them', () => {
    const domains = Object.values(resources(stage, 'AWS::ApiGateway::DomainName'));
    const mappings = Object.values(resources(stage, 'AWS::ApiGateway::BasePathMapping'));
    const restApis = resources(stage, 'AWS::ApiGateway::RestApi');
    const { customDomain } = config;
    // The API's own policy is the one API Gateway negotiates TLS with, through a custom domain too.
    for (const api of Object.values(restApis))
      expect(api.Properties).toMatchObject({
        SecurityPolicy: 'SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09',
        EndpointAccessMode: 'STRICT',
      });
    if (!customDomain) {
      expect(domains).toEqual([]);
      expect(mappings).toEqual([]);
      for (const api of Object.values(restApis)) expect(api.Properties.DisableExecuteApiEndpoint).toBe(false);
      return;
    }
    expect(domains.map((domain) => domain.Properties.DomainName).sort()).toEqual(
      [customDomain.apiDomain, customDomain.pagesDomain].sort(),
    );
    for (const domain of domains)
      expect(domain.Properties).toMatchObject({
        RegionalCertificateArn: customDomain.certificateArn,
        EndpointConfiguration: { Types: ['REGIONAL'] },
        SecurityPolicy: 'SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09',
        EndpointAccessMode: 'STRICT',
      });
    // Each API on the whole of its name (no base path), at the stage's one stage.
    const domainIds = Object.keys(resources(stage, 'AWS::ApiGateway::DomainName'));
    expect(
      mappings.map((mapping) => [
        (mapping.Properties.DomainName as { Ref: string }).Ref,
        (mapping.Properties.RestApiId as { Ref: string }).Ref,
        mapping.Properties.BasePath,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [
          domainIds.find((id) => id.startsWith('PartnerApi')),
          expect.stringMatching(/^PartnerApiRestApi/),
          undefined,
        ],
        [domainIds.find((id) => id.startsWith('Pages')), expect.stringMatching(/^PagesRestApi/), undefined],
      ]),
    );
    // The execute-api addresses answer until a deployment turns them off (custom-domain.test.ts).
    for (const api of Object.values(restApis))
      expect(api.Properties.DisableExecuteApiEndpoint).toBe(customDomain.executeApi === 'off');
  });

  it('tells the reveal page and the OpenAPI document how partners reach us: the stage’s mail sender, and no other function', () => {
    const functions = resources(stage, 'AWS::Lambda::Function');
    const contactOf = (name: string) =>
      (
        functions[functionIdOf(stage, name)]?.Properties.Environment as {
          Variables?: Record<string, unknown>;
        }
      )?.Variables?.CONTACT_EMAIL;

    expect(contactOf('revealPage')).toBe(senderAddress(config.mailFrom));
    expect(contactOf('openapiDocument')).toBe(senderAddress(config.mailFrom));
    for (const spec of serviceFunctions.filter(
      (candidate) => !['revealPage', 'openapiDocument'].includes(candidate.name),
    ))
      expect(contactOf(spec.name), spec.name).toBeUndefined();
  });

  it('passes gzip-compressed (base64) handler bodies of the partner API to clients as bytes', () => {
    template(stage).hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: `partner-api-${stage}`,
      BinaryMediaTypes: ['*/*'],
    });
    template(stage).hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: `partner-pages-${stage}`,
      BinaryMediaTypes: Match.absent(),
    });
  });

  it('wires the REQUEST authorizer without caching or identity sources, and keys from the authorizer', () => {
    const assess = template(stage);

    assess.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
      AuthorizerUri: Match.objectLike({
        'Fn::Join': Match.arrayWith([
          Match.arrayWith([{ Ref: liveAliasId(stage, functionId(stage, AUTHORIZER)) }]),
        ]),
      }),
    });
    assess.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: `partner-api-${stage}`,
      ApiKeySourceType: 'AUTHORIZER',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    assess.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: `partner-pages-${stage}`,
      ApiKeySourceType: Match.absent(),
    });
  });

  it('has one authorized, key-requiring GET and HEAD per route of the table, proxied to its function', () => {
    const authorizerId = only(Object.keys(resources(stage, 'AWS::ApiGateway::Authorizer')), 'authorizer');

    for (const [route, httpMethod] of partnerApiRoutes.flatMap((route) =>
      (['GET', 'HEAD'] as const).map((httpMethod) => [route, httpMethod] as const),
    )) {
      const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map(
        (match) => `method.request.path.${match[1]}`,
      );
      template(stage).hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: httpMethod,
        OperationName: httpMethod === 'GET' ? route.id : `${route.id}Head`,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        ApiKeyRequired: true,
        RequestValidatorId: { Ref: Match.stringLikeRegexp('ParameterValidator') },
        RequestParameters: Object.fromEntries([
          ...pathParameters.map((name) => [name, true]),
          ...route.queryParameters.map((parameter) => [
            `method.request.querystring.${parameter.name}`,
            false,
          ]),
        ]),
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          Uri: Match.objectLike({
            'Fn::Join': Match.arrayWith([
              Match.arrayWith([{ Ref: liveAliasId(stage, functionId(stage, getRouteDescription(route))) }]),
            ]),
          }),
        },
      });
    }
    template(stage).hasResourceProperties('AWS::ApiGateway::Method', {
      OperationName: 'pricingSignals',
      RequestParameters: { 'method.request.querystring.lookback_days': false },
    });
    template(stage).hasResourceProperties('AWS::ApiGateway::RequestValidator', {
      ValidateRequestParameters: true,
      ValidateRequestBody: true,
    });
  });

  it('throttles each key in the usage plan at 2 per second with a bucket of 120', () => {
    template(stage).hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      UsagePlanName: `partner-api-${stage}`,
      Throttle: { RateLimit: 2, BurstLimit: 120 },
      ApiStages: [Match.objectLike({ ApiId: { Ref: Match.stringLikeRegexp('^PartnerApiRestApi') } })],
    });
  });

  it('logs access, traces and throttles both API stages from the stage configuration', () => {
    for (const [prefix, throttle] of [
      ['PartnerApiRestApi', config.apiThrottle],
      ['PagesRestApi', config.pagesThrottle],
    ] as const) {
      template(stage).hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: stage,
        RestApiId: { Ref: Match.stringLikeRegexp(`^${prefix}`) },
        TracingEnabled: true,
        AccessLogSetting: {
          DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}AccessLogs`), 'Arn'] },
          Format: Match.stringLikeRegexp('"status":\\$context.status'),
        },
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            DataTraceEnabled: false,
            LoggingLevel: 'ERROR',
            ThrottlingRateLimit: throttle.rateLimit,
            ThrottlingBurstLimit: throttle.burstLimit,
          }),
        ]),
      });
    }
    // The secret scanning reports: a throttle of their own, below the pages' (a method setting
    // names the path with each "/" as "~1" after an initial "/": "/~1resource~1subresource",
    // https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-apigateway-stage-methodsetting.html).
    template(stage).hasResourceProperties('AWS::ApiGateway::Stage', {
      RestApiId: { Ref: Match.stringLikeRegexp('^PagesRestApi') },
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: 'POST',
          ResourcePath: `/${SECRET_SCANNING_PATH.replaceAll('/', '~1')}`,
          ThrottlingRateLimit: Match.anyValue(),
        }),
      ]),
    });
    // API Gateway's logging role is the account's, in a stack of its own (below), never a stage's.
    template(stage).resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('creates each API stage’s execution log group with the stage’s retention, before the stage can log', () => {
    const groups = resources(stage, 'AWS::Logs::LogGroup');
    const stages = resources(stage, 'AWS::ApiGateway::Stage') as Record<
      string,
      CfnResource & { DependsOn?: string[] }
    >;
    for (const prefix of ['PartnerApiRestApi', 'PagesRestApi']) {
      const restApiId = only(
        Object.keys(resources(stage, 'AWS::ApiGateway::RestApi')).filter((id) => id.startsWith(prefix)),
        `${prefix} REST API`,
      );
      // The name API Gateway writes execution logs to (it creates the group itself when missing).
      const [groupId] = only(
        Object.entries(groups).filter(
          ([, group]) =>
            JSON.stringify(group.Properties.LogGroupName) ===
            JSON.stringify({
              'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: restApiId }, `/${stage}`]],
            }),
        ),
        `execution log group of ${prefix}`,
      );
      expect(groups[groupId]?.Properties.RetentionInDays).toBe(config.logRetentionDays);
      const [, apiStage] = only(
        Object.entries(stages).filter(
          ([, found]) => JSON.stringify(found.Properties.RestApiId) === JSON.stringify({ Ref: restApiId }),
        ),
        `${prefix} stage`,
      );
      expect(apiStage.DependsOn).toContain(groupId);
    }
  });

  it('samples traces of each API stage by a rule of its own in production, by X-Ray’s default in sandbox', () => {
    const rules = Object.values(resources(stage, 'AWS::XRay::SamplingRule'));
    if (config.traceSampling === 'account-default') {
      expect(rules).toEqual([]);
      return;
    }
    expect(rules).toHaveLength(2);
    for (const [prefix, apiName] of [
      ['PartnerApiRestApi', `partner-api-${stage}`],
      ['PagesRestApi', `partner-pages-${stage}`],
    ] as const) {
      const restApiId = only(
        Object.keys(resources(stage, 'AWS::ApiGateway::RestApi')).filter((id) => id.startsWith(prefix)),
        `${prefix} REST API`,
      );
      template(stage).hasResourceProperties('AWS::XRay::SamplingRule', {
        SamplingRule: {
          RuleName: apiName,
          FixedRate: config.traceSampling.fixedRate,
          ReservoirSize: config.traceSampling.reservoirPerSecond,
          // Account-wide rules: this one matches this API's stage only, by name and by ARN.
          ServiceName: `${apiName}/${stage}`,
          ServiceType: 'AWS::ApiGateway::Stage',
          ResourceARN: {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':apigateway:',
                { Ref: 'AWS::Region' },
                '::/restapis/',
                { Ref: restApiId },
                `/stages/${stage}`,
              ],
            ],
          },
          Host: '*',
          HTTPMethod: '*',
          URLPath: '*',
          Version: 1,
          Priority: Match.anyValue(),
        },
      });
    }
  });

  it('installs every gateway response as problem+json with the request id in the body, on both APIs', () => {
    template(stage).resourceCountIs('AWS::ApiGateway::GatewayResponse', 2 * gatewayResponses.length);

    for (const response of gatewayResponses) {
      template(stage).resourcePropertiesCountIs(
        'AWS::ApiGateway::GatewayResponse',
        {
          ResponseType: response.type,
          StatusCode: response.statusCode === undefined ? Match.absent() : String(response.statusCode),
          ResponseTemplates: { 'application/json': response.template },
          ResponseParameters: Match.objectLike({
            'gatewayresponse.header.Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
          }),
        },
        2,
      );
      expect(response.template).toContain('"request_id":"$context.requestId"');
    }
    // Header mappings take only what API Gateway documents for gateway responses: static values
    // and request parameters. Anything else (a context variable) could fail the whole deployment.
    for (const gatewayResponse of Object.values(resources(stage, 'AWS::ApiGateway::GatewayResponse'))) {
      for (const value of Object.values(
        gatewayResponse.Properties.ResponseParameters as Record<string, string>,
      ))
        expect(value).toMatch(/^'[^']*'$|^method\.request\./);
    }
    template(stage).hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
    });
    template(stage).hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'ACCESS_DENIED',
      StatusCode: '401',
    });
  });

  it('answers other methods of every route with a 405 problem from a MOCK integration', () => {
    const mocks = Object.values(resources(stage, 'AWS::ApiGateway::Method')).filter(
      (method) => method.Properties.HttpMethod === 'ANY',
    );
    expect(mocks).toHaveLength(partnerPaths.length + pagePaths.length);

    for (const [path, allow] of [
      ...partnerPaths.map((path) => [API_BASE_PATH + path, 'GET, HEAD'] as const),
      ...pageRoutes.map((route) => [route.path, route.methods.join(', ')] as const),
    ]) {
      const method = only(
        mocks.filter((mock) =>
          JSON.stringify(mock.Properties.Integration).includes(` ${path} is not available`),
        ),
        `405 method of ${path}`,
      );
      expect(method.Properties).toMatchObject({
        AuthorizationType: 'NONE',
        ApiKeyRequired: false,
        Integration: {
          Type: 'MOCK',
          PassthroughBehavior: 'WHEN_NO_TEMPLATES',
          ContentHandling: 'CONVERT_TO_TEXT',
          IntegrationResponses: [
            {
              StatusCode: '405',
              ContentHandling: 'CONVERT_TO_TEXT',
              ResponseParameters: {
                'method.response.header.Allow': `'${allow}'`,
                'method.response.header.Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
              },
            },
          ],
        },
      });
      const integration = method.Properties.Integration as {
        IntegrationResponses: { ResponseTemplates: Record<string, string> }[];
      };
      const vtl = integration.IntegrationResponses[0]?.ResponseTemplates['application/json'] ?? '';
      const [override, body = ''] = vtl.split('\n');
      expect(override).toBe('#set($context.responseOverride.header.X-Request-Id = $context.requestId)');
      const rendered = JSON.parse(
        body.replaceAll('$context.httpMethod', 'POST').replaceAll('$context.requestId', 'req-1'),
      );
      expect(rendered).toEqual({
        type: problemTypeUri('method-not-allowed'),
        title: 'Method not allowed',
        status: 405,
        detail: `POST ${path} is not available: this route answers ${allow} only. No write endpoints are live.`,
        request_id: 'req-1',
      });
    }
  });

  it.each(serviceFunctions)('grants $name exactly the table actions and secrets of its route', (spec) => {
    const statements = statementsOf(stage, spec.name);
    const secretArns = Object.fromEntries(
      Object.keys(resources(stage, 'AWS::SecretsManager::Secret')).map((id) => [id, { Ref: id }]),
    );
    const granted = statements
      .filter((statement) =>
        actionsOf(statement).some((action) => /^(dynamodb|secretsmanager):/.test(action)),
      )
      .map((statement) => ({
        action: actionsOf(statement).join(','),
        onIndex: JSON.stringify(statement.Resource).includes('/index/'),
        partitions: (
          statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined
        )
          ?.map((prefix) => prefix.replace(/\*$/, ''))
          .sort(),
        keyRequired: statement.Condition?.Null?.['dynamodb:LeadingKeys'] === 'false',
        secret: actionsOf(statement)[0]?.startsWith('secretsmanager:')
          ? Object.keys(secretArns).find(
              (id) => JSON.stringify(statement.Resource) === JSON.stringify({ Ref: id }),
            )
          : undefined,
      }));
    const table = spec.access.table ?? {};
    const expected = [
      ...(['getItem', 'query', 'updateItem', 'putItem', 'deleteItem', 'conditionCheckItem'] as const).flatMap(
        (kind) =>
          table[kind]
            ? [
                {
                  action: `dynamodb:${kind.charAt(0).toUpperCase()}${kind.slice(1)}`,
                  onIndex: false,
                  partitions: [...table[kind]].sort(),
                  keyRequired: true,
                  secret: undefined,
                },
              ]
            : [],
      ),
      ...(table.queryIndex
        ? [
            {
              action: 'dynamodb:Query',
              onIndex: true,
              partitions: [...table.queryIndex].sort(),
              keyRequired: true,
              secret: undefined,
            },
          ]
        : []),
      ...(spec.access.secrets ?? []).map((name) => ({
        action: 'secretsmanager:GetSecretValue',
        onIndex: false,
        partitions: undefined,
        keyRequired: false,
        secret: expect.stringMatching(new RegExp(`^${name.charAt(0).toUpperCase()}${name.slice(1)}Secret`)),
      })),
    ];

    expect(granted).toEqual(expected);
    // Beyond the table and secrets: sending to the queues it names, and (the event consumer) what
    // its event source mapping needs on its own queue.
    const queueStatements = statements.filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('sqs:')),
    );
    expect(
      queueStatements.map((statement) => ({
        actions: actionsOf(statement).sort(),
        queue: JSON.stringify(statement.Resource),
      })),
    ).toEqual([
      ...(spec.access.sendsTo ?? []).map((name) => ({
        actions: ['sqs:SendMessage'],
        queue: expect.stringContaining(
          name === 'platformEventsDeadLetter' ? 'PlatformEventsDeadLetterQueue' : 'PlatformEventsQueue',
        ),
      })),
      ...(spec.name === EVENT_CONSUMER.id
        ? [
            {
              actions: [
                'sqs:ChangeMessageVisibility',
                'sqs:DeleteMessage',
                'sqs:GetQueueAttributes',
                'sqs:GetQueueUrl',
                'sqs:ReceiveMessage',
              ],
              queue: expect.stringMatching(/"PlatformEventsQueue[0-9A-F]+"/),
            },
          ]
        : []),
    ]);
  });

  it('grants every resource ("*") to functions only for X-Ray, and to other roles only what has no resource type', () => {
    const functionRoles = new Set(
      Object.values(resources(stage, 'AWS::Lambda::Function')).map((fn) =>
        JSON.stringify({ Ref: (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0] }),
      ),
    );
    for (const policy of Object.values(resources(stage, 'AWS::IAM::Policy'))) {
      const ofFunction = (policy.Properties.Roles as unknown[]).some((role) =>
        functionRoles.has(JSON.stringify(role)),
      );
      for (const statement of (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement) {
        if (statement.Resource !== '*') continue;
        // The outbound pipe lists streams (dynamodb:ListStreams has no resource type: outbound-events.test.ts).
        const allowed = ofFunction ? /^xray:/ : /^(xray:|dynamodb:ListStreams$)/;
        expect(actionsOf(statement).every((action) => allowed.test(action))).toBe(true);
      }
    }
  });

  it('builds the table the local server creates (shared definition): on demand, PITR, TTL', () => {
    const local = createTableInput('local');

    template(stage).hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: local.BillingMode,
      KeySchema: local.KeySchema,
      GlobalSecondaryIndexes: local.GlobalSecondaryIndexes,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: config.retainData,
        }),
      ],
      // The AWS managed key of DynamoDB (no KMSMasterKeyId), which the encryption rule asks for.
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
    });
  });

  it('keeps every non-proxy integration of an API with binary media types as text (else its JSON is a 500)', () => {
    const restApis = resources(stage, 'AWS::ApiGateway::RestApi');
    const binaryApis = Object.keys(restApis).filter((id) => restApis[id]?.Properties.BinaryMediaTypes);
    expect(binaryApis).toHaveLength(1);
    const integrations = Object.values(resources(stage, 'AWS::ApiGateway::Method'))
      .filter((method) => binaryApis.includes((method.Properties.RestApiId as { Ref: string }).Ref))
      .map((method) => method.Properties.Integration as Record<string, unknown>)
      .filter((integration) => integration.Type !== 'AWS_PROXY');
    expect(integrations.length).toBeGreaterThan(0);

    for (const integration of integrations) {
      expect(integration.ContentHandling).toBe('CONVERT_TO_TEXT');
      for (const response of integration.IntegrationResponses as Record<string, unknown>[])
        expect(response.ContentHandling).toBe('CONVERT_TO_TEXT');
    }
  });

  describe('web firewall', () => {
    interface Rule {
      Name: string;
      Priority: number;
      Action?: { Block?: { CustomResponse: Record<string, unknown> } };
      OverrideAction?: Record<string, unknown>;
      Statement: {
        RateBasedStatement?: Record<string, unknown>;
        ManagedRuleGroupStatement?: {
          VendorName: string;
          Name: string;
          RuleActionOverrides?: { Name: string; ActionToUse: Record<string, unknown> }[];
        };
      };
    }
    const firewalls = [
      { api: 'PartnerApiRestApi', limit: () => config.firewall.api, counted: ['NoUserAgent_HEADER'] },
      {
        api: 'PagesRestApi',
        limit: () => config.firewall.pages,
        counted: ['SizeRestrictions_BODY', 'SizeRestrictions_QUERYSTRING', 'CrossSiteScripting_BODY'],
      },
    ] as const;
    const webAclOf = (api: string) => {
      const acls = resources(stage, 'AWS::WAFv2::WebACL');
      const id = only(
        Object.keys(acls).filter((candidate) => candidate.startsWith(api)),
        `web ACL of ${api}`,
      );
      return { id, properties: (acls[id] as CfnResource).Properties };
    };

    it('associates one regional web ACL with each API stage, after the stage exists', () => {
      template(stage).resourceCountIs('AWS::WAFv2::WebACL', 2);
      template(stage).resourceCountIs('AWS::WAFv2::WebACLAssociation', 2);
      const stages = Object.keys(resources(stage, 'AWS::ApiGateway::Stage'));
      const associations = Object.values(
        template(stage).findResources('AWS::WAFv2::WebACLAssociation') as Record<
          string,
          CfnResource & { DependsOn?: string[] }
        >,
      );

      for (const { api } of firewalls) {
        const acl = webAclOf(api);
        const stageId = only(
          stages.filter((id) => id.startsWith(api)),
          `stage of ${api}`,
        );
        const association = only(
          associations.filter(
            (candidate) =>
              JSON.stringify(candidate.Properties.WebACLArn) ===
              JSON.stringify({ 'Fn::GetAtt': [acl.id, 'Arn'] }),
          ),
          `association of ${api}`,
        );
        // The stage ARN of a REST API: arn:<partition>:apigateway:<region>::/restapis/<id>/stages/<stage>.
        const arn = JSON.stringify(association.Properties.ResourceArn);
        expect(arn).toContain(':apigateway:');
        expect(arn).toContain('::/restapis/');
        expect(arn).toContain(JSON.stringify({ Ref: stageId }));
        expect(association.DependsOn).toContain(stageId);
        expect(acl.properties.Scope).toBe('REGIONAL');
        expect(acl.properties.DefaultAction).toEqual({ Allow: {} });
      }
    });

    it('limits each client IP from the stage configuration first, then runs the AWS managed rule groups', () => {
      for (const { api, limit, counted } of firewalls) {
        const rules = [...(webAclOf(api).properties.Rules as Rule[])].sort((a, b) => a.Priority - b.Priority);

        expect(rules.map((rule) => rule.Name)).toEqual(['requests-per-ip', ...MANAGED_RULE_GROUPS]);
        const [perIp, ...managed] = rules;
        expect(perIp?.Statement.RateBasedStatement).toEqual({
          Limit: limit().requests,
          EvaluationWindowSec: limit().windowSeconds,
          AggregateKeyType: 'IP',
        });
        // WAF accepts only these windows, and no limit under 10.
        expect([60, 120, 300, 600]).toContain(limit().windowSeconds);
        expect(limit().requests).toBeGreaterThanOrEqual(10);
        expect(perIp?.Action?.Block?.CustomResponse).toMatchObject({
          ResponseCode: 429,
          CustomResponseBodyKey: 'throttled',
          ResponseHeaders: expect.arrayContaining([
            { Name: 'Retry-After', Value: String(limit().windowSeconds) },
          ]),
        });
        for (const rule of managed) {
          expect(rule.OverrideAction).toEqual({ None: {} });
          expect(rule.Statement.ManagedRuleGroupStatement?.VendorName).toBe('AWS');
          const overrides = rule.Statement.ManagedRuleGroupStatement?.RuleActionOverrides ?? [];
          if (rule.Name === 'AWSManagedRulesCommonRuleSet') {
            expect(overrides.map((override) => override.Name)).toEqual(counted);
            for (const override of overrides) expect(override.ActionToUse).toEqual({ Count: {} });
          } else expect(overrides).toEqual([]);
        }
      }
    });

    it('limits a page client far more tightly than an API client', () => {
      const perSecond = (limit: { requests: number; windowSeconds: number }) =>
        limit.requests / limit.windowSeconds;
      expect(perSecond(config.firewall.pages)).toBeLessThan(perSecond(config.firewall.api));
      // An address may carry several keys of a partner: its limit is above one key's exact limit.
      expect(perSecond(config.firewall.api)).toBeGreaterThan(RATE_LIMIT.limit / RATE_LIMIT_WINDOW_SECONDS);
    });

    it("answers the API's per-IP 429 with a rate-limited problem, and the pages' with a page", () => {
      const bodies = (api: string) =>
        webAclOf(api).properties.CustomResponseBodies as Record<
          string,
          { ContentType: string; Content: string }
        >;
      const headersOf = (api: string) =>
        (
          only(
            (webAclOf(api).properties.Rules as Rule[]).filter((rule) => rule.Name === 'requests-per-ip'),
            'per-IP rule',
          ).Action?.Block?.CustomResponse.ResponseHeaders as { Name: string; Value: string }[] | undefined
        )?.map((header) => header.Name.toLowerCase()) ?? [];

      const apiBody = bodies('PartnerApiRestApi').throttled;
      expect(apiBody?.ContentType).toBe('APPLICATION_JSON');
      // A static body: every field of a problem but the request id, which WAF cannot know.
      const body = JSON.parse(apiBody?.Content ?? '') as Record<string, unknown>;
      expect(body.request_id).toBeUndefined();
      const problem = problemSchema.parse({ ...body, request_id: '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0' });
      expect(problem.type).toBe(problemTypeUri('rate-limited'));
      expect(problem.status).toBe(429);
      expect(problem.detail).toContain(`more than ${config.firewall.api.requests} in`);
      const pageBody = bodies('PagesRestApi').throttled;
      expect(pageBody?.ContentType).toBe('TEXT_HTML');
      expect(pageBody?.Content).toMatch(/^<!doctype html>/);
      for (const api of ['PartnerApiRestApi', 'PagesRestApi']) {
        // WAF refuses a Content-Type header (it comes from ContentType) and bodies over 10,240 characters.
        expect(headersOf(api)).not.toContain('content-type');
        for (const body of Object.values(bodies(api)))
          expect(body.Content.length).toBeLessThanOrEqual(10_240);
      }
      expect(headersOf('PagesRestApi')).toEqual(
        expect.arrayContaining([
          'content-security-policy',
          'cache-control',
          'x-frame-options',
          'retry-after',
        ]),
      );
    });
  });

  it('raises alarms on 5xx rate, 429s, authorizer failures and errors of each function but the authorizer', () => {
    // The authorizer's 401s are Lambda errors ("Unauthorized"): its failures alarm from the access log.
    const functions = FUNCTION_COUNT - 1;
    const assess = template(stage);

    // Per API: API Gateway's 5xx rate, the 5xx rate clients received, 429s, the p99 latency
    // (test/infra/safe-deployments.test.ts); the platform's events:
    // dead letters and the oldest waiting (test/infra/platform-events.test.ts); this service's own:
    // the pipe's failures, its dead letters and the lag (test/infra/outbound-events.test.ts); keys
    // revoked as leaked and notices of it not sent; failed backups where the table is backed up; the
    // canary's failed runs (test/infra/partner-api-canary.test.ts).
    const backups = config.tableBackup === 'none' ? 0 : 1;
    // And where the stage alarms on its objectives, two windows of two burn alarms per objective
    // (test/infra/service-objectives.test.ts).
    const objectives = config.objectiveAlarms ? (partnerApiRoutes.length * 2 + 3) * 2 * 2 : 0;
    assess.resourceCountIs(
      'AWS::CloudWatch::Alarm',
      4 * 2 + 1 + functions + 2 + 3 + 2 + backups + 1 + objectives,
    );
    for (const name of ['leaked-key-revoked', 'leak-notice-failed'])
      assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `PartnerApi-${stage}-${name}`,
        Threshold: 1,
        Namespace: `PartnerApi-${stage}`,
      });
    for (const api of ['partnerApi', 'pages']) {
      assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `PartnerApi-${stage}-${api}-5xx-rate`,
        Threshold: config.alarms.serverErrorRatePercent,
      });
      assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `PartnerApi-${stage}-${api}-5xx-answered-rate`,
        Threshold: config.alarms.serverErrorRatePercent,
      });
    }
    // The pages' 429s are their stage throttle, which every host shares: counted.
    assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `PartnerApi-${stage}-pages-throttled`,
      Threshold: config.alarms.throttledRequests,
    });
    // The partner API's are an incident only when several partners meet them at once: one partner's
    // loop over its own limit never alarms. Contributor Insights counts the partners answered 429.
    assess.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      { AlarmName: `PartnerApi-${stage}-partnerApi-throttled` },
      0,
    );
    const ruleName = `PartnerApi-${stage}-partnerApi-throttled-partners`;
    const rules = Object.values(resources(stage, 'AWS::CloudWatch::InsightRule'));
    const rule = only(rules, 'insight rule');
    expect(rule.Properties).toMatchObject({ RuleName: ruleName, RuleState: 'ENABLED' });
    const body = JSON.stringify(rule.Properties.RuleBody);
    const stages = Object.entries(resources(stage, 'AWS::ApiGateway::Stage'));
    const [, partnerStage] = only(
      stages.filter(([id]) => id.startsWith('PartnerApi')),
      'partner API stage',
    );
    const accessLog = partnerStage.Properties.AccessLogSetting as {
      DestinationArn: { 'Fn::GetAtt': [string, string] };
    };
    const accessLogGroup = accessLog.DestinationArn['Fn::GetAtt'][0];
    expect(body).toContain(accessLogGroup);
    for (const part of [
      '\\"Keys\\":[\\"$.partnerId\\"]',
      '\\"Match\\":\\"$.status\\",\\"EqualTo\\":429',
      '\\"AggregateOn\\":\\"Count\\"',
    ])
      expect(body).toContain(part);
    assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `PartnerApi-${stage}-partnerApi-throttled-partners`,
      Threshold: config.alarms.throttledPartners,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Metrics: [Match.objectLike({ Expression: `INSIGHT_RULE_METRIC('${ruleName}', 'UniqueContributors')` })],
    });
    assess.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = 429 }',
    });
    assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `PartnerApi-${stage}-authorizer-failures`,
      Threshold: config.alarms.authorizerFailures,
    });
    assess.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      { MetricName: 'Errors', Namespace: 'AWS/Lambda', Threshold: config.alarms.lambdaErrors },
      functions,
    );
    assess.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      {
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(stage, AUTHORIZER) } }],
      },
      0,
    );
  });

  it('alarms on the 5xx rate clients received, counted from each access log, authorizer failures included', () => {
    const filters = Object.values(resources(stage, 'AWS::Logs::MetricFilter'));
    const logGroupOfApi = (prefix: string) =>
      only(
        Object.keys(resources(stage, 'AWS::Logs::LogGroup')).filter((id) =>
          id.startsWith(`${prefix}AccessLogs`),
        ),
        `access log of ${prefix}`,
      );
    const filterOf = (logGroupId: string, pattern: string) =>
      only(
        filters.filter(
          (filter) =>
            filter.Properties.FilterPattern === pattern &&
            JSON.stringify(filter.Properties.LogGroupName) === JSON.stringify({ Ref: logGroupId }),
        ),
        `${pattern} on ${logGroupId}`,
      ).Properties.MetricTransformations as {
        MetricNamespace: string;
        MetricName: string;
        DefaultValue?: number;
      }[];

    for (const [api, prefix] of [
      ['partnerApi', 'PartnerApiRestApi'],
      ['pages', 'PagesRestApi'],
    ] as const) {
      const logGroupId = logGroupOfApi(prefix);
      // Every status of 500 and above, whoever answered it: a Lambda error (502), the authorizer's
      // failure remapped to 503 by the gateway responses (API Gateway's own metric says 4XXError).
      const [serverErrors] = filterOf(logGroupId, '{ $.status >= 500 }');
      const [requests] = filterOf(logGroupId, '{ $.status > 0 }');
      expect(serverErrors).toMatchObject({ MetricNamespace: `PartnerApi-${stage}`, DefaultValue: 0 });
      const alarm = only(
        Object.values(resources(stage, 'AWS::CloudWatch::Alarm')).filter(
          (candidate) => candidate.Properties.AlarmName === `PartnerApi-${stage}-${api}-5xx-answered-rate`,
        ),
        `5xx answered alarm of ${api}`,
      );
      const metrics = alarm.Properties.Metrics as {
        Id: string;
        Expression?: string;
        MetricStat?: { Metric: { Namespace: string; MetricName: string } };
      }[];
      const metricOf = (id: string) => metrics.find((metric) => metric.Id === id)?.MetricStat?.Metric;
      expect(metricOf('errors')).toEqual({
        Namespace: serverErrors?.MetricNamespace,
        MetricName: serverErrors?.MetricName,
      });
      expect(metricOf('requests')).toEqual({
        Namespace: requests?.MetricNamespace,
        MetricName: requests?.MetricName,
      });
      expect(metrics.find((metric) => metric.Expression)?.Expression).toBe(
        `IF(requests >= ${config.alarms.serverErrorMinRequests}, 100 * errors / requests, 0)`,
      );
    }
    // The gateway responses that answer authorizer failures with 503: the access log shows that status.
    for (const type of ['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR'])
      expect(gatewayResponses.find((response) => response.type === type)?.statusCode).toBe(503);
  });

  it('outputs what the operator CLI reads, with both base URLs, and where a custom domain’s DNS records point', () => {
    const outputs = template(stage).findOutputs('*');
    const domainOutputs: string[] = [
      STACK_OUTPUTS.apiDomainTarget,
      STACK_OUTPUTS.apiDomainHostedZoneId,
      STACK_OUTPUTS.pagesDomainTarget,
      STACK_OUTPUTS.pagesDomainHostedZoneId,
    ];

    expect(Object.keys(outputs).sort()).toEqual(
      Object.values(STACK_OUTPUTS)
        .filter((name) => config.customDomain || !domainOutputs.includes(name))
        .filter((name) => config.tableBackup !== 'none' || name !== STACK_OUTPUTS.failedBackupJobsQueueUrl)
        .sort(),
    );
    const joined = (name: string) => JSON.stringify(outputs[name]?.Value);
    // Generated clients call the document's servers: one of them has this stage's base URL's form.
    const servers = (partnerApiDocument().servers as { url: string }[]).map((server) => server.url);
    if (config.customDomain) {
      // The links mailed to partners and shown to hosts are built from these: never execute-api.
      expect(outputs[STACK_OUTPUTS.apiBaseUrl]?.Value).toBe(
        `https://${config.customDomain.apiDomain}${API_BASE_PATH}`,
      );
      expect(outputs[STACK_OUTPUTS.activationBaseUrl]?.Value).toBe(
        `https://${config.customDomain.pagesDomain}`,
      );
      expect(servers).toContain(`https://{host}${API_BASE_PATH}`);
      expect(joined(STACK_OUTPUTS.apiDomainTarget)).toMatch(/"RegionalDomainName"/);
      expect(joined(STACK_OUTPUTS.pagesDomainHostedZoneId)).toMatch(/"RegionalHostedZoneId"/);
    } else {
      expect(joined(STACK_OUTPUTS.apiBaseUrl)).toMatch(new RegExp(`/${stage}${API_BASE_PATH}"\\]\\]}$`));
      expect(servers).toContain(`https://{host}/${stage}${API_BASE_PATH}`);
      expect(joined(STACK_OUTPUTS.activationBaseUrl)).toMatch(new RegExp(`/${stage}"\\]\\]}$`));
    }
    expect(outputs[STACK_OUTPUTS.mailFrom]?.Value).toBe(config.mailFrom);
  });
});

describe('production, watched', () => {
  const config = stageConfig('production', TEST_DEPLOYMENT.production);

  it('sends every alarm’s ALARM and OK to the alarm topic the deployment gives', () => {
    // But the windows of the objectives' burn alarms: their composite notifies (service-objectives.test.ts).
    const alarms = Object.values(resources('production', 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => !String(alarm.Properties.AlarmName).includes('-slo-'),
    );

    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions, String(alarm.Properties.AlarmName)).toEqual([
        config.alarmTopicArn,
      ]);
      expect(alarm.Properties.OKActions, String(alarm.Properties.AlarmName)).toEqual([config.alarmTopicArn]);
    }
  });

  it('backs the table up daily and monthly into a retained, locked vault, and alarms when a backup fails', () => {
    const assess = template('production');
    if (config.tableBackup === 'none') throw new Error('production keeps backups');
    const tableId = only(Object.keys(resources('production', 'AWS::DynamoDB::GlobalTable')), 'table');
    const [vaultId, vault] = only(
      Object.entries(resources('production', 'AWS::Backup::BackupVault')),
      'vault',
    );

    // Kept when the stack goes, and no recovery point deleted before point-in-time recovery's 35 days.
    expect(vault.DeletionPolicy).toBe('Retain');
    expect(vault.Properties.LockConfiguration).toEqual({ MinRetentionDays: 35 });
    const target = { 'Fn::GetAtt': [vaultId, 'BackupVaultName'] };
    assess.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanName: 'PartnerApi-production-table',
        BackupPlanRule: [
          Match.objectLike({
            RuleName: 'daily',
            ScheduleExpression: 'cron(0 3 * * ? *)',
            Lifecycle: { DeleteAfterDays: config.tableBackup.dailyRetentionDays },
            TargetBackupVault: target,
          }),
          // As long as the audit trail keeps an event: each stays recoverable for its whole retention.
          Match.objectLike({
            RuleName: 'monthly',
            ScheduleExpression: 'cron(0 5 1 * ? *)',
            Lifecycle: { DeleteAfterDays: config.auditRetentionDays },
            TargetBackupVault: target,
          }),
        ],
      },
    });
    expect(config.tableBackup.dailyRetentionDays).toBeGreaterThanOrEqual(35);
    assess.hasResourceProperties('AWS::Backup::BackupSelection', {
      BackupSelection: Match.objectLike({ Resources: [{ 'Fn::GetAtt': [tableId, 'Arn'] }] }),
    });
    // The alarm rests on AWS Backup's own event of a job that ended without a recovery point: a rule
    // on the default bus puts it on a queue of the stack, and the alarm counts what arrives there.
    const [ruleId, rule] = only(
      Object.entries(resources('production', 'AWS::Events::Rule')).filter(([, candidate]) =>
        JSON.stringify(candidate.Properties.EventPattern).includes('aws.backup'),
      ),
      'failed backup job rule',
    );
    expect(rule.Properties.EventBusName).toBeUndefined();
    const queues = resources('production', 'AWS::SQS::Queue');
    const queueId = only(
      Object.keys(queues).filter((id) => id.startsWith('BackupFailedJobs')),
      'failed jobs queue',
    );
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({ Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } }),
    ]);
    expect(queues[queueId]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    assess.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(['sqs:SendMessage']),
            Principal: { Service: 'events.amazonaws.com' },
            Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
          }),
        ]),
      },
    });
    // The vault's own name in the pattern; AWS's sample events match it, once named after our vault.
    const pattern = rule.Properties.EventPattern as { detail: { backupVaultName: unknown[] } };
    expect(pattern.detail.backupVaultName).toEqual([target]);
    const ours = {
      ...pattern,
      detail: { ...pattern.detail, backupVaultName: ['PartnerApi-production-vault'] },
    };
    const sample = (state: string, backupVaultName = 'PartnerApi-production-vault') => ({
      ...AWS_BACKUP_FAILED_JOB_SAMPLE,
      detail: { ...AWS_BACKUP_FAILED_JOB_SAMPLE.detail, state, backupVaultName },
    });
    for (const state of ['FAILED', 'ABORTED', 'EXPIRED'])
      expect(matchesPattern(ours, sample(state)), state).toBe(true);
    for (const state of ['COMPLETED', 'RUNNING', 'CREATED', 'PENDING'])
      expect(matchesPattern(ours, sample(state)), state).toBe(false);
    expect(matchesPattern(ours, sample('FAILED', 'another-vault'))).toBe(false);
    expect(matchesPattern(ours, { ...sample('FAILED'), 'detail-type': 'Copy Job State Change' })).toBe(false);
    assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'PartnerApi-production-backup-failed',
      Namespace: 'AWS/SQS',
      MetricName: 'NumberOfMessagesSent',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Statistic: 'Sum',
      Period: 3_600,
      Threshold: 1,
    });
  });
});

/**
 * AWS Backup's sample event of a failed backup job, as its documentation gives it
 * (https://docs.aws.amazon.com/aws-backup/latest/devguide/eventbridge.html, "State: FAILED").
 */
const AWS_BACKUP_FAILED_JOB_SAMPLE = {
  version: '0',
  id: '710b0398-d48e-f3c3-afca-cfeb2fdaa656',
  'detail-type': 'Backup Job State Change',
  source: 'aws.backup',
  account: '1112233445566',
  time: '2020-07-29T20:15:26Z',
  region: 'us-west-2',
  resources: [],
  detail: {
    backupJobId: '34176239-e96d-4e1d-9fad-529dbb3c3556',
    backupVaultArn:
      'arn:aws:backup:us-west-2:1112233445566:backup-vault:9ab3e749-82c6-4342-9320-5edbf4918b86',
    backupVaultName: '9ab3e749-82c6-4342-9320-5edbf4918b86',
    bytesTransferred: '0',
    creationDate: '2020-07-29T20:13:07.392Z',
    iamRoleArn: 'arn:aws:iam::1112233445566:role/MockRCBackupTestRole',
    resourceArn: 'arn:aws:service:us-west-2:1112233445566:resource-type/resource-id',
    resourceType: 'type',
    state: 'FAILED',
    statusMessage:
      '"Backup job failed because backup vault arn:aws:backup:us-west-2:1112233445566:backup-vault:9ab3e749-82c6-4342-9320-5edbf4918b86 does not exist."',
    startBy: '2020-07-30T04:13:07.392Z',
    percentDone: 0,
    retryCount: 3,
  },
};

describe('concurrency', () => {
  /** Lambda's default concurrency quota of an account and region, and the least it keeps unreserved. */
  const ACCOUNT_DEFAULT = 1_000;
  const UNRESERVED_MINIMUM = 100;

  it('caps the pages, the event consumer and the enrichment in production, so the partner API keeps the pool', () => {
    const config = stageConfig('production', TEST_DEPLOYMENT.production);
    if (config.concurrency === 'account-pool') throw new Error('production reserves concurrency');
    const functions = resources('production', 'AWS::Lambda::Function');
    const reservedOf = (name: string) =>
      functions[functionIdOf('production', name)]?.Properties.ReservedConcurrentExecutions;

    for (const route of pageRoutes)
      expect(reservedOf(pageFunctionName(route.id)), route.id).toBe(config.concurrency.pageFunction);
    expect(reservedOf(EVENT_CONSUMER.id)).toBe(config.concurrency.eventConsumer);
    // Never fewer than the event source mapping may run at once.
    expect(config.concurrency.eventConsumer).toBeGreaterThanOrEqual(EVENT_CONSUMER_CONCURRENCY);
    expect(reservedOf(OUTBOUND_ENRICHMENT.id)).toBe(config.concurrency.outboundEnrichment);
    // The authorizer and the routes are never capped: they share what is left.
    for (const spec of serviceFunctions.filter(
      (fn) => partnerApiRoutes.some((route) => route.id === fn.name) || fn.name === 'authorizer',
    ))
      expect(reservedOf(spec.name), spec.name).toBeUndefined();
    const reserved = Object.values(functions).reduce(
      (sum, fn) => sum + Number(fn.Properties.ReservedConcurrentExecutions ?? 0),
      0,
    );
    // In an account of the default quota, the partner API keeps at least 900 of 1,000, and Lambda its 100.
    expect(reserved).toBeLessThanOrEqual(100);
    expect(ACCOUNT_DEFAULT - reserved).toBeGreaterThanOrEqual(900);
    expect(ACCOUNT_DEFAULT - reserved).toBeGreaterThanOrEqual(UNRESERVED_MINIMUM);
  });

  it('reserves nothing in the sandbox, which may live in a new account with a small quota', () => {
    for (const fn of Object.values(resources('sandbox', 'AWS::Lambda::Function')))
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });
});

describe('API Gateway’s logging role (PartnerApi-apigateway-account)', () => {
  it('is one stack per account and region that both stages wait for, so neither overwrites the other’s role', () => {
    const account = synthesized.accountTemplate;
    const assembly = JSON.parse(
      readFileSync(join(inject('infraCloudAssembly'), 'cdk.out', 'manifest.json'), 'utf8'),
    ) as {
      artifacts: Record<string, { dependencies?: string[] }>;
    };

    account.resourceCountIs('AWS::ApiGateway::Account', 1);
    const [, setting] = only(
      Object.entries(
        account.findResources('AWS::ApiGateway::Account') as Record<
          string,
          CfnResource & { DependsOn?: string[] }
        >,
      ),
      'account setting',
    );
    const roleId = (setting.Properties.CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    // Set after its role (with the managed policy the role itself carries), and kept when the stack goes.
    expect(setting.DependsOn).toContain(roleId);
    expect(setting.DeletionPolicy).toBe('Retain');
    const role = (account.findResources('AWS::IAM::Role') as Record<string, CfnResource>)[roleId];
    expect(role?.DeletionPolicy).toBe('Retain');
    expect(role?.Properties.ManagedPolicyArns).toEqual([
      expect.objectContaining({
        'Fn::Join': [
          '',
          expect.arrayContaining([':iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs']),
        ],
      }),
    ]);
    // `cdk deploy PartnerApi-<stage>` deploys it first: each stage's stack depends on it.
    for (const stage of DEPLOYED_STAGES)
      expect(assembly.artifacts[stackName(stage)]?.dependencies).toContain(API_GATEWAY_ACCOUNT_STACK);
  });
});

describe('stage differences', () => {
  it('retains data and protects the table in production only', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup']) {
      for (const resource of Object.values(resources('production', type)))
        expect(resource.DeletionPolicy, type).toBe('Retain');
      for (const resource of Object.values(resources('sandbox', type)))
        expect(resource.DeletionPolicy, type).toBe('Delete');
    }
    template('production').hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
    template('sandbox').hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });

  it('gives both stages the same resources, but for production’s backups, sampling rules and custom domain', () => {
    const shape = (stage: DeployedStage) =>
      Object.values(template(stage).toJSON().Resources as Record<string, CfnResource>)
        .map((resource) => resource.Type)
        .sort();
    const productionOnly = [
      'AWS::Backup::BackupPlan',
      'AWS::Backup::BackupSelection',
      'AWS::Backup::BackupVault',
      // The failed-backup alarm, the rule and queue of AWS Backup's events it counts, and the role AWS
      // Backup works with.
      'AWS::CloudWatch::Alarm',
      'AWS::Events::Rule',
      'AWS::IAM::Role',
      'AWS::SQS::Queue',
      'AWS::SQS::QueuePolicy',
      'AWS::XRay::SamplingRule',
      'AWS::XRay::SamplingRule',
      // The API's and the pages' names (production requires them; the sandbox of the tests has none).
      'AWS::ApiGateway::BasePathMapping',
      'AWS::ApiGateway::BasePathMapping',
      'AWS::ApiGateway::DomainName',
      'AWS::ApiGateway::DomainName',
    ];
    // The objectives' burn alarms and the metric filters they count (test/infra/service-objectives.test.ts).
    const objectives = [
      ...Object.values(resources('production', 'AWS::CloudWatch::Alarm'))
        .filter((alarm) => String(alarm.Properties.AlarmName).includes('-slo-'))
        .map(() => 'AWS::CloudWatch::Alarm'),
      ...Object.keys(resources('production', 'AWS::CloudWatch::CompositeAlarm')).map(
        () => 'AWS::CloudWatch::CompositeAlarm',
      ),
      ...partnerApiRoutes.flatMap(() => ['AWS::Logs::MetricFilter', 'AWS::Logs::MetricFilter']),
    ];
    const production = shape('production');
    for (const type of [...productionOnly, ...objectives]) production.splice(production.indexOf(type), 1);

    expect(shape('sandbox')).toEqual(production);
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  const nag = () =>
    only(
      synthesized.report.pluginReports.filter((report) => report.pluginName === 'AwsSolutions'),
      'AwsSolutions report',
    );

  it('reports no unacknowledged finding, error or warning', () => {
    expect(nag().conclusion).toBe('success');
    expect(nag().violations).toEqual([]);
  });

  it('acknowledges only the expected rules, each with a written reason', () => {
    const acknowledged = nag().suppressedViolations ?? [];

    expect(new Set(acknowledged.map((finding) => finding.ruleName))).toEqual(
      new Set([
        'AwsSolutions-APIG4',
        'AwsSolutions-COG4',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        'AwsSolutions-IAM5[Resource::*]',
        // The canary's role: its artifacts bucket, and the log group of the function Synthetics names.
        expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<CanaryArtifacts[0-9A-F]{8}\.Arn>\/\*\]$/),
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/cwsyn-*]',
        // The canary's artifacts bucket.
        'AwsSolutions-S1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SQS3',
      ]),
    );
    for (const finding of acknowledged)
      expect(finding.reason?.length ?? 0, finding.ruleName).toBeGreaterThan(40);
  });

  it('acknowledges missing authorization only on 405 mocks, pages and public routes, never on a partner GET or HEAD', () => {
    const unauthorized = (nag().suppressedViolations ?? [])
      .filter((finding) => finding.ruleName === 'AwsSolutions-APIG4')
      .flatMap((finding) => finding.violatingConstructs.map((construct) => construct.constructPath));
    const publicMethods = publicApiRoutes.flatMap((route) =>
      ['GET', 'HEAD'].map((method) => `${API_BASE_PATH}${route.path}/${method}/Resource`),
    );

    for (const path of unauthorized) {
      const allowed =
        /\/ANY\/Resource$|^PartnerApi-\w+\/Pages\//.test(path) ||
        publicMethods.some((method) => path.endsWith(method));
      expect(allowed, path).toBe(true);
    }
    for (const route of partnerApiRoutes)
      for (const method of ['GET', 'HEAD'])
        expect(
          unauthorized.some((path) => path.endsWith(`${API_BASE_PATH}${route.path}/${method}/Resource`)),
        ).toBe(false);
  });
});

describe('cfn-guard (AWS Control Tower proactive controls and lib/guard-rules/)', () => {
  const guard = () =>
    only(
      synthesized.report.pluginReports.filter((report) => report.pluginName === 'cdk-validator-cfnguard'),
      'cfn-guard report',
    );

  it('reports no unacknowledged finding', () => {
    expect(guard().conclusion).toBe('success');
    expect(guard().violations).toEqual([]);
  });

  it('acknowledges only Control Tower controls that do not apply here and sandbox’s unprotected table, each with a written reason', () => {
    const acknowledged = guard().suppressedViolations ?? [];

    expect(new Set(acknowledged.map((finding) => finding.ruleName))).toEqual(
      new Set([
        'cloudwatch_alarm_action_check',
        'cloudwatch_log_group_encrypted_check',
        'cloudwatch_log_group_retention_period_check',
        'lambda_function_public_access_prohibited_check',
        'lambda_inside_vpc_check',
        // The outbound pipe's and its forwarding rule's dead-letter queues, which no queue may use.
        'sqs_dlq_check',
        // The custom domains' enhanced TLS policy, whose minimum is the TLS 1.2 the control asks for.
        'api_gw_domain_tls_check',
        // The canary's artifacts bucket: diagnostics its own role writes and the lifecycle deletes.
        's3_bucket_logging_enabled_check',
        's3_bucket_versioning_enabled_check',
        's3_bucket_object_lock_enabled_check',
        's3_event_notifications_enabled_check',
        // Ours (lib/guard-rules/), the one exception: the sandbox table goes with its stack.
        'dynamodb_global_table_deletion_protection_enabled',
      ]),
    );
    for (const finding of acknowledged)
      expect(finding.reason?.length ?? 0, finding.ruleName).toBeGreaterThan(40);
    // Production keeps its logs a year, gives an alarm topic and protects its table: these are
    // acknowledged for sandbox only.
    for (const rule of [
      'cloudwatch_log_group_retention_period_check',
      'cloudwatch_alarm_action_check',
      'dynamodb_global_table_deletion_protection_enabled',
    ]) {
      const paths = acknowledged
        .filter((finding) => finding.ruleName === rule)
        .flatMap((finding) => finding.violatingConstructs.map((construct) => construct.constructPath));
      expect(paths.length, rule).toBeGreaterThan(0);
      for (const path of paths)
        expect(path, rule).toMatch(
          // The windows of the objectives' burn alarms notify no one: their composite does.
          rule === 'cloudwatch_alarm_action_check'
            ? /^PartnerApi-sandbox\/|^PartnerApi-production\/Objectives\//
            : /^PartnerApi-sandbox\//,
        );
    }
  });

  it.each(DEPLOYED_STAGES)('keeps every WAF custom response body of %s within 4 KB as UTF-8', (stage) => {
    for (const acl of Object.values(resources(stage, 'AWS::WAFv2::WebACL')))
      for (const body of Object.values(
        acl.Properties.CustomResponseBodies as Record<string, { Content: string }>,
      ))
        expect(Buffer.byteLength(body.Content, 'utf8')).toBeLessThanOrEqual(4_096);
  });
});
