import { Match } from 'aws-cdk-lib/assertions';
import { expect, it } from 'vitest';
import { gatewayResponses } from '../../core/contract/gateway-responses';
import { PROBLEM_CONTENT_TYPE, problemTypeUri } from '../../core/contract/problems';
import { API_BASE_PATH, pageRoutes, SECRET_SCANNING_PATH } from '../../core/routes';
import { regionalArn } from '../support/cfn-arns';
import {
  type CfnResource,
  describeEachStack,
  only,
  pagePaths,
  partnerPaths,
  resources,
  template,
} from '../support/stack-template';

describeEachStack((stage, config) => {
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
          ResourceARN: regionalArn('apigateway', '::/restapis/', { Ref: restApiId }, `/stages/${stage}`),
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
});
