import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { problemSchema } from '../../core/contract/api-schemas';
import { problemTypeUri } from '../../core/contract/problems';
import { createTableInput, tableDefinition } from '../../core/contract/table-definition';
import { RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS } from '../../core/domain/rate-limit';
import { EVENT_CONSUMER, serviceFunctions } from '../../core/routes';
import { MANAGED_RULE_GROUPS } from '../../lib/constructs/web-firewall';
import {
  actionsOf,
  type CfnResource,
  describeEachStack,
  only,
  resources,
  type Statement,
  statementsOf,
  template,
} from '../support/stack-template';

describeEachStack((stage, config) => {
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
});
