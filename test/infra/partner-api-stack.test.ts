import { Match } from 'aws-cdk-lib/assertions';
import { expect, it } from 'vitest';
import { EVENT_CONSUMER_TIMEOUT_SECONDS } from '../../core/event-delivery';
import {
  API_BASE_PATH,
  EVENT_CONSUMER,
  pageRoutes,
  partnerApiRoutes,
  publicApiRoutes,
  serviceFunctions,
} from '../../core/routes';
import { runtimeEnvironment, runtimeSettingsOf } from '../../core/runtime-settings';
import { SERVICE_SECRET_NAMES } from '../../core/service-secrets';
import { FUNCTION_TIMEOUT_SECONDS } from '../../lib/function-defaults';
import { senderAddress } from '../../lib/stage-config';
import {
  AUTHORIZER,
  describeEachStack,
  FUNCTION_COUNT,
  functionId,
  functionIdOf,
  getRouteDescription,
  liveAliasId,
  only,
  pageDescription,
  pagePaths,
  partnerPaths,
  resources,
  template,
} from '../support/stack-template';

describeEachStack((stage, config) => {
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
});
