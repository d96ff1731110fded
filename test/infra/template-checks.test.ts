import { readdirSync, readFileSync } from 'node:fs';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { attachTemplateChecks, GUARD_RULES_DIRECTORY } from '../../lib/template-checks';

/**
 * Each of our Guard rules (lib/guard-rules/) fed a template that breaks it, through the same
 * plugin `cdk synth` runs: the synthesis must fail naming the rule, and the same template with the
 * one fault fixed must pass. Templates are built from raw CloudFormation resources, so nothing
 * else (bundling, the service's constructs) is in the way.
 */

type Resources = Record<
  string,
  { type: string; properties?: Record<string, unknown>; dependsOn?: string[]; updatePolicy?: unknown }
>;

/** Synthesizes a stack of raw resources with our Guard rules only; the error text, or undefined. */
function guardFindings(resources: Resources): string | undefined {
  const app = new App();
  const stack = new Stack(app, 'Checked');
  const created = new Map<string, CfnResource>();
  for (const [id, resource] of Object.entries(resources)) {
    const cfn = new CfnResource(stack, id, {
      type: resource.type,
      ...(resource.properties ? { properties: resource.properties } : {}),
    });
    cfn.overrideLogicalId(id);
    if (resource.updatePolicy) cfn.addOverride('UpdatePolicy', resource.updatePolicy);
    created.set(id, cfn);
  }
  for (const [id, resource] of Object.entries(resources))
    for (const dependency of resource.dependsOn ?? []) {
      const target = created.get(dependency);
      if (target) created.get(id)?.addResourceDependency(target);
    }
  Validations.of(app).addPlugins(
    new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: [GUARD_RULES_DIRECTORY] }),
  );
  try {
    app.synth();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A queue whose redrive policy names a dead-letter queue of the template, with the retentions given (seconds). */
const queueWithDeadLetters = (source: number | undefined, deadLetters: number | undefined): Resources => ({
  DeadLetters: {
    type: 'AWS::SQS::Queue',
    ...(deadLetters === undefined ? {} : { properties: { MessageRetentionPeriod: deadLetters } }),
  },
  Source: {
    type: 'AWS::SQS::Queue',
    properties: {
      ...(source === undefined ? {} : { MessageRetentionPeriod: source }),
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['DeadLetters', 'Arn'] }, maxReceiveCount: 5 },
    },
  },
});

/** `arn:…:apigateway:…:lambda:path/2015-03-31/functions/<target>/invocations`, as CDK writes it. */
const invocationUri = (target: unknown) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':apigateway:',
      { Ref: 'AWS::Region' },
      ':lambda:path/2015-03-31/functions/',
      target,
      '/invocations',
    ],
  ],
});
/** CloudFormation's Fn::Sub of a function's ARN (its `${…}` is CloudFormation's, not a template literal's). */
const SUB_OF_FUNCTION_ARN = ['$', '{Handler.Arn}'].join('');

/** What an integration invokes, or a Uri written some other way than CDK's Fn::Join (`{ uri }`). */
type Invoked = 'function' | 'alias' | 'shifted alias' | { readonly uri: unknown };

/** A function, its `live` alias (shifted by CodeDeploy or not), and an API method and authorizer invoking one of them. */
const apiInvoking = (method: Invoked, authorizer: Invoked): Resources => {
  const uriOf = (invoked: Invoked) =>
    typeof invoked === 'object' ? invoked.uri : invocationUri(target(invoked));
  const target = (invoked: Exclude<Invoked, object>) =>
    invoked === 'function'
      ? { 'Fn::GetAtt': ['Handler', 'Arn'] }
      : { Ref: invoked === 'alias' ? 'Plain' : 'Live' };
  const alias = (updatePolicy?: unknown) => ({
    type: 'AWS::Lambda::Alias',
    properties: { FunctionName: { Ref: 'Handler' }, FunctionVersion: '1', Name: 'live' },
    ...(updatePolicy ? { updatePolicy } : {}),
  });
  return {
    Handler: {
      type: 'AWS::Lambda::Function',
      properties: { Role: 'arn:aws:iam::123456789012:role/r', Code: {}, Runtime: 'nodejs24.x' },
    },
    Plain: alias(),
    Live: alias({ CodeDeployLambdaAliasUpdate: { ApplicationName: 'app', DeploymentGroupName: 'group' } }),
    Api: { type: 'AWS::ApiGateway::RestApi', properties: { Name: 'api' } },
    Authorizer: {
      type: 'AWS::ApiGateway::Authorizer',
      properties: {
        RestApiId: { Ref: 'Api' },
        Name: 'keys',
        Type: 'REQUEST',
        AuthorizerUri: uriOf(authorizer),
      },
    },
    Method: {
      type: 'AWS::ApiGateway::Method',
      properties: {
        RestApiId: { Ref: 'Api' },
        ResourceId: { 'Fn::GetAtt': ['Api', 'RootResourceId'] },
        HttpMethod: 'GET',
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: 'Authorizer' },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST', Uri: uriOf(method) },
      },
    },
  };
};

const header = (name: string, value: string) => ({ Name: name, Value: value });
const blockRule = (headers: unknown[]) => ({
  Name: 'requests-per-ip',
  Priority: 0,
  Action: {
    Block: {
      CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'throttled', ResponseHeaders: headers },
    },
  },
  Statement: { RateBasedStatement: { Limit: 100, AggregateKeyType: 'IP' } },
  VisibilityConfig: { CloudWatchMetricsEnabled: true, MetricName: 'per-ip', SampledRequestsEnabled: true },
});
const webAcl = (
  options: { headers?: unknown[]; bodies?: Record<string, unknown>; defaultHeaders?: unknown[] } = {},
): Resources => ({
  Acl: {
    type: 'AWS::WAFv2::WebACL',
    properties: {
      Scope: 'REGIONAL',
      DefaultAction: options.defaultHeaders
        ? { Block: { CustomResponse: { ResponseCode: 403, ResponseHeaders: options.defaultHeaders } } }
        : { Allow: {} },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, MetricName: 'all', SampledRequestsEnabled: true },
      CustomResponseBodies: options.bodies ?? {
        throttled: { ContentType: 'TEXT_PLAIN', Content: 'Slow down.' },
      },
      Rules: [blockRule(options.headers ?? [header('Retry-After', '60')])],
    },
  },
});
const body = (content: string) => ({ ContentType: 'TEXT_PLAIN', Content: content });

const restApisAndAccount = (dependsOn: string[], policy = false): Resources => ({
  ApiA: { type: 'AWS::ApiGateway::RestApi', properties: { Name: 'a' } },
  ApiB: { type: 'AWS::ApiGateway::RestApi', properties: { Name: 'b' } },
  LogsRole: {
    type: 'AWS::IAM::Role',
    properties: {
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ],
      },
    },
  },
  ...(policy
    ? {
        LogsPolicy: {
          type: 'AWS::IAM::Policy',
          properties: {
            PolicyName: 'logs',
            Roles: [{ Ref: 'LogsRole' }],
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [{ Effect: 'Allow', Action: 'logs:PutLogEvents', Resource: '*' }],
            },
          },
        },
      }
    : {}),
  Account: {
    type: 'AWS::ApiGateway::Account',
    properties: { CloudWatchRoleArn: { 'Fn::GetAtt': ['LogsRole', 'Arn'] } },
    dependsOn,
  },
});

const logGroup = (retention?: number): Resources => ({
  Logs: {
    type: 'AWS::Logs::LogGroup',
    ...(retention === undefined ? {} : { properties: { RetentionInDays: retention } }),
  },
});

const lambdaFunction = (runtime: string): Resources => ({
  Fn: {
    type: 'AWS::Lambda::Function',
    properties: {
      Runtime: runtime,
      Handler: 'index.handler',
      Role: 'arn:aws:iam::123456789012:role/fn',
      Code: { ZipFile: 'exports.handler = async () => ({});' },
    },
  },
});

/** A global table as TableV2 synthesizes it; `replicas` overrides the one replica's settings. */
const globalTable = (
  options: { replicas?: Record<string, unknown>[]; sse?: Record<string, unknown> | null } = {},
): Resources => ({
  Table: {
    type: 'AWS::DynamoDB::GlobalTable',
    properties: {
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      ...(options.sse === null
        ? {}
        : { SSESpecification: options.sse ?? { SSEEnabled: true, SSEType: 'KMS' } }),
      Replicas: options.replicas ?? [protectedReplica('eu-west-1')],
    },
  },
});
const protectedReplica = (region: string) => ({
  Region: region,
  PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  DeletionProtectionEnabled: true,
});
const { PointInTimeRecoverySpecification: _pitr, ...replicaWithoutPitr } = protectedReplica('eu-central-1');
const { DeletionProtectionEnabled: _protection, ...replicaWithoutProtection } =
  protectedReplica('eu-central-1');

const samplingRule = (overrides: Record<string, unknown> = {}): Resources => ({
  Rule: {
    type: 'AWS::XRay::SamplingRule',
    properties: {
      SamplingRule: {
        RuleName: 'partner-api-production',
        Priority: 100,
        FixedRate: 0.01,
        ReservoirSize: 0,
        ServiceName: 'partner-api-production/production',
        ServiceType: 'AWS::ApiGateway::Stage',
        ResourceARN: 'arn:aws:apigateway:eu-west-1::/restapis/abc123/stages/production',
        Host: '*',
        HTTPMethod: '*',
        URLPath: '*',
        Version: 1,
        ...overrides,
      },
    },
  },
});

/**
 * A pipe from a table's stream as the stack builds it: `source` overrides its stream parameters,
 * `target` its target (the Arn of the template's bus unless given).
 */
const streamPipe = (
  source: Record<string, unknown> = {},
  target: unknown = { 'Fn::GetAtt': ['Bus', 'Arn'] },
) => {
  // A parameter given as undefined is left out.
  const parameters = Object.fromEntries(
    Object.entries({ BatchSize: 10, ...source }).filter(([, value]) => value !== undefined),
  );
  return {
    Bus: { type: 'AWS::Events::EventBus', properties: { Name: 'outbound' } },
    Pipe: {
      type: 'AWS::Pipes::Pipe',
      properties: {
        RoleArn: 'arn:aws:iam::123456789012:role/pipe',
        Source: 'arn:aws:dynamodb:eu-west-1:123456789012:table/t/stream/2026-01-01T00:00:00.000',
        SourceParameters: {
          DynamoDBStreamParameters: {
            StartingPosition: 'TRIM_HORIZON',
            MaximumRetryAttempts: -1,
            MaximumRecordAgeInSeconds: 86_400,
            ...parameters,
          },
          FilterCriteria: { Filters: [{ Pattern: '{"eventName":["INSERT"]}' }] },
        },
        Target: target,
      },
    },
  } satisfies Resources;
};

const COPY_VAULT = 'arn:aws:backup:eu-central-1:123456789012:backup-vault:partner-api-copies';
/**
 * A backup plan of `stage` with one daily rule kept 35 days, as the stack builds it; `copies` are
 * the rule's CopyActions (none when undefined).
 */
const backupPlan = (stage: string, copies?: Record<string, unknown>[]): Resources => ({
  Vault: { type: 'AWS::Backup::BackupVault', properties: { BackupVaultName: 'table' } },
  Plan: {
    type: 'AWS::Backup::BackupPlan',
    properties: {
      BackupPlan: {
        BackupPlanName: 'table',
        BackupPlanRule: [
          {
            RuleName: 'daily',
            ScheduleExpression: 'cron(0 3 * * ? *)',
            TargetBackupVault: { 'Fn::GetAtt': ['Vault', 'BackupVaultName'] },
            Lifecycle: { DeleteAfterDays: 35 },
            ...(copies ? { CopyActions: copies } : {}),
          },
        ],
      },
      BackupPlanTags: { service: 'partner-api', stage },
    },
  },
});
/** A resource of production's stack (the `stage` tag every resource of it carries), with what else is given. */
const inProduction = (resources: Resources = {}): Resources => ({
  Queue: {
    type: 'AWS::SQS::Queue',
    properties: { MessageRetentionPeriod: 345_600, Tags: [{ Key: 'stage', Value: 'production' }] },
  },
  ...resources,
});
const copyTo = (destination: unknown, days = 35) => ({
  DestinationBackupVaultArn: destination,
  Lifecycle: { DeleteAfterDays: days },
});

const cases: readonly {
  readonly rule: string;
  readonly breaks: string;
  readonly broken: Resources;
  readonly fixed: Resources;
}[] = [
  {
    rule: 'waf_custom_response_headers',
    breaks: 'a header value of 256 characters',
    broken: webAcl({ headers: [header('Content-Security-Policy', 'x'.repeat(256))] }),
    fixed: webAcl({ headers: [header('Content-Security-Policy', 'x'.repeat(255))] }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: '11 headers in one custom response',
    broken: webAcl({ headers: Array.from({ length: 11 }, (_, index) => header(`X-Header-${index}`, 'v')) }),
    fixed: webAcl({ headers: Array.from({ length: 10 }, (_, index) => header(`X-Header-${index}`, 'v')) }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: 'a header name of 65 characters',
    broken: webAcl({ headers: [header('X'.repeat(65), 'v')] }),
    fixed: webAcl({ headers: [header('X'.repeat(64), 'v')] }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: 'a header name with a space',
    broken: webAcl({ headers: [header('Retry After', '60')] }),
    fixed: webAcl({ headers: [header('Retry-After', '60')] }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: "a too long header in the web ACL's default action",
    broken: webAcl({ defaultHeaders: [header('X-Reason', 'x'.repeat(300))] }),
    fixed: webAcl({ defaultHeaders: [header('X-Reason', 'blocked')] }),
  },
  {
    rule: 'waf_custom_response_bodies',
    breaks: 'a body of 4,097 characters',
    broken: webAcl({ bodies: { throttled: body('x'.repeat(4_097)) } }),
    fixed: webAcl({ bodies: { throttled: body('x'.repeat(4_096)) } }),
  },
  {
    rule: 'waf_custom_response_bodies',
    breaks: '51 bodies in one web ACL',
    broken: webAcl({
      bodies: {
        throttled: body('x'),
        ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`b${i}`, body('x')])),
      },
    }),
    fixed: webAcl({
      bodies: {
        throttled: body('x'),
        ...Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`b${i}`, body('x')])),
      },
    }),
  },
  {
    rule: 'apigateway_account_after_rest_apis',
    breaks: 'an account setting that does not wait for one of the REST APIs',
    broken: restApisAndAccount(['ApiA', 'LogsRole']),
    fixed: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole']),
  },
  {
    rule: 'apigateway_account_role_in_template',
    breaks: 'an account setting that does not name its role in DependsOn',
    broken: restApisAndAccount(['ApiA', 'ApiB']),
    fixed: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole']),
  },
  {
    rule: 'apigateway_account_after_role_policies',
    breaks: "an account setting that does not wait for its role's policy",
    broken: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole'], true),
    fixed: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole', 'LogsPolicy'], true),
  },
  {
    rule: 'log_group_retention_allowed',
    breaks: 'a retention CloudWatch Logs does not accept (42 days)',
    broken: logGroup(42),
    fixed: logGroup(30),
  },
  {
    rule: 'log_group_retention_allowed',
    breaks: 'a log group without retention',
    broken: logGroup(),
    fixed: logGroup(365),
  },
  {
    rule: 'lambda_runtime_supported',
    breaks: 'a function on nodejs20.x (deprecated)',
    broken: lambdaFunction('nodejs20.x'),
    fixed: lambdaFunction('nodejs24.x'),
  },
  {
    rule: 'dynamodb_global_table_pitr_enabled',
    breaks: 'a global table whose replica has no point-in-time recovery',
    broken: globalTable({ replicas: [replicaWithoutPitr] }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_pitr_enabled',
    breaks: 'a second replica with point-in-time recovery turned off',
    broken: globalTable({
      replicas: [
        protectedReplica('eu-west-1'),
        {
          ...protectedReplica('eu-central-1'),
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
        },
      ],
    }),
    fixed: globalTable({ replicas: [protectedReplica('eu-west-1'), protectedReplica('eu-central-1')] }),
  },
  {
    rule: 'dynamodb_global_table_deletion_protection_enabled',
    breaks: 'a global table whose replica has no deletion protection',
    broken: globalTable({ replicas: [replicaWithoutProtection] }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_deletion_protection_enabled',
    breaks: 'a replica with deletion protection turned off',
    broken: globalTable({
      replicas: [{ ...protectedReplica('eu-west-1'), DeletionProtectionEnabled: false }],
    }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_encrypted_kms',
    breaks: 'a global table with its encryption removed (no SSESpecification: an AWS owned key)',
    broken: globalTable({ sse: null }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_encrypted_kms',
    breaks: 'a global table with KMS encryption disabled',
    broken: globalTable({ sse: { SSEEnabled: false } }),
    fixed: globalTable({ sse: { SSEEnabled: true, SSEType: 'KMS' } }),
  },
  {
    rule: 'pipe_event_bus_target_batch_size',
    breaks: 'a batch of 11 from a table’s stream to the template’s event bus',
    broken: streamPipe({ BatchSize: 11 }),
    fixed: streamPipe({ BatchSize: 10 }),
  },
  {
    rule: 'pipe_event_bus_target_batch_size',
    breaks: 'no batch size (the source’s default of 100) to an event bus named by ARN',
    broken: streamPipe({ BatchSize: undefined }, 'arn:aws:events:eu-west-1:123456789012:event-bus/outbound'),
    fixed: streamPipe({ BatchSize: 1 }, 'arn:aws:events:eu-west-1:123456789012:event-bus/outbound'),
  },
  {
    rule: 'pipe_event_bus_target_batch_size',
    breaks: 'a batch of 0',
    broken: streamPipe({ BatchSize: 0 }),
    fixed: streamPipe({ BatchSize: 1 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRetryAttempts of -2',
    broken: streamPipe({ MaximumRetryAttempts: -2 }),
    fixed: streamPipe({ MaximumRetryAttempts: -1 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRetryAttempts of 10,001',
    broken: streamPipe({ MaximumRetryAttempts: 10_001 }),
    fixed: streamPipe({ MaximumRetryAttempts: 10_000 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRecordAgeInSeconds of -2',
    broken: streamPipe({ MaximumRecordAgeInSeconds: -2 }),
    fixed: streamPipe({ MaximumRecordAgeInSeconds: -1 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRecordAgeInSeconds of 604,801 (over a week)',
    broken: streamPipe({ MaximumRecordAgeInSeconds: 604_801 }),
    fixed: streamPipe({ MaximumRecordAgeInSeconds: 604_800 }),
  },
  {
    rule: 'xray_sampling_rule_limits',
    breaks: 'a rule name of 33 characters',
    broken: samplingRule({ RuleName: 'partner-pages-production-extended' }),
    fixed: samplingRule({ RuleName: 'partner-pages-production' }),
  },
  {
    rule: 'xray_sampling_rule_limits',
    breaks: 'a fixed rate given as a percentage (5 for 5 %)',
    broken: samplingRule({ FixedRate: 5 }),
    fixed: samplingRule({ FixedRate: 0.05 }),
  },
  {
    rule: 'xray_sampling_rule_limits',
    breaks: 'priority 10000 (the default rule’s, outside 1–9999)',
    broken: samplingRule({ Priority: 10_000 }),
    fixed: samplingRule({ Priority: 9_999 }),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a production backup plan whose rule copies nothing',
    broken: backupPlan('production'),
    fixed: backupPlan('production', [copyTo(COPY_VAULT)]),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a copy of production’s backups kept 7 days, its source 35',
    broken: backupPlan('production', [copyTo(COPY_VAULT, 7)]),
    fixed: backupPlan('production', [copyTo(COPY_VAULT, 35)]),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a copy into a vault of the template itself (the stage’s own account and region)',
    broken: backupPlan('production', [copyTo({ 'Fn::GetAtt': ['Vault', 'BackupVaultArn'] })]),
    fixed: backupPlan('production', [copyTo(COPY_VAULT)]),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a plan without the stage tag, copying nothing, in production’s template',
    broken: inProduction(backupPlan('untagged')),
    fixed: inProduction(backupPlan('untagged', [copyTo(COPY_VAULT)])),
  },
  {
    rule: 'backup_plan_in_production',
    breaks: 'production’s template without a backup plan',
    broken: inProduction(),
    fixed: inProduction(backupPlan('production', [copyTo(COPY_VAULT)])),
  },
  {
    rule: 'sqs_dead_letter_retention_longer',
    breaks: 'a dead-letter queue that keeps messages 14 days, as long as its source',
    broken: queueWithDeadLetters(1_209_600, 1_209_600),
    fixed: queueWithDeadLetters(345_600, 1_209_600),
  },
  {
    rule: 'sqs_dead_letter_retention_longer',
    breaks: 'a dead-letter queue that leaves its retention to the default (4 days)',
    broken: queueWithDeadLetters(345_600, undefined),
    fixed: queueWithDeadLetters(345_600, 1_209_600),
  },
  {
    rule: 'sqs_dead_letter_retention_longer',
    breaks: 'a source queue that leaves its retention to the default',
    broken: queueWithDeadLetters(undefined, 1_209_600),
    fixed: queueWithDeadLetters(345_600, 1_209_600),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method that invokes the function itself (all traffic on each new version at once)',
    broken: apiInvoking('function', 'shifted alias'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method that invokes an alias CodeDeploy does not shift',
    broken: apiInvoking('alias', 'shifted alias'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method whose Uri names the function in an Fn::Sub',
    broken: apiInvoking(
      {
        uri: {
          'Fn::Sub': `arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/${SUB_OF_FUNCTION_ARN}/invocations`,
        },
      },
      'shifted alias',
    ),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method whose Uri is a literal ARN',
    broken: apiInvoking(
      {
        uri: 'arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:x/invocations',
      },
      'shifted alias',
    ),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method whose Fn::Join hides the function in a nested Fn::Sub',
    broken: apiInvoking({ uri: invocationUri({ 'Fn::Sub': SUB_OF_FUNCTION_ARN }) }, 'shifted alias'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_authorizer_invokes_shifted_alias',
    breaks: 'an authorizer that invokes the function itself',
    broken: apiInvoking('shifted alias', 'function'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
];

describe('our Guard rules (lib/guard-rules/)', () => {
  it.each(cases)('$rule fails the synthesis on $breaks, and passes once fixed', ({ rule, broken, fixed }) => {
    const findings = guardFindings(broken);

    expect(findings).toContain(rule);
    expect(guardFindings(fixed)).toBeUndefined();
  });

  it('has a failing case for every rule it defines', () => {
    const defined = readdirSync(GUARD_RULES_DIRECTORY)
      .filter((file) => file.endsWith('.guard'))
      .flatMap((file) =>
        [...readFileSync(`${GUARD_RULES_DIRECTORY}/${file}`, 'utf8').matchAll(/^rule (\w+) when/gm)].map(
          (match) => match[1],
        ),
      );

    expect(new Set(defined)).toEqual(new Set(cases.map((testCase) => testCase.rule)));
  });

  it('cites AWS’s documentation in every rule file, and has a row for every rule in docs/deploying.md', () => {
    const files = readdirSync(GUARD_RULES_DIRECTORY).filter((file) => file.endsWith('.guard'));
    const deploying = readFileSync('docs/deploying.md', 'utf8');
    for (const file of files) {
      const text = readFileSync(`${GUARD_RULES_DIRECTORY}/${file}`, 'utf8');
      expect(text, file).toMatch(/^#.*https:\/\/docs\.aws\.amazon\.com\//m);
      for (const [, rule] of text.matchAll(/^rule (\w+) when/gm))
        expect(deploying, `docs/deploying.md's row of ${rule}`).toMatch(
          new RegExp(`^\\s*\\| \`${rule}\` \\|`, 'm'),
        );
    }
  });
});

describe('the backup copy rule (backup-copy-production.guard)', () => {
  it('judges production’s plans only: a sandbox plan, or one without the stage tag, may keep its backups at home', () => {
    expect(guardFindings(backupPlan('sandbox'))).toBeUndefined();
    const { Plan: plan, ...rest } = backupPlan('production');
    if (!plan?.properties) throw new Error('no plan');
    const { BackupPlanTags: _tags, ...untagged } = plan.properties;
    expect(guardFindings({ ...rest, Plan: { ...plan, properties: untagged } })).toBeUndefined();
  });
});

describe('our DynamoDB rules beside the Control Tower controls', () => {
  it('check the global table that CT.DYNAMODB.PR.1 and PR.2 never select', () => {
    // The same broken table with Control Tower's rules alone passes: they select AWS::DynamoDB::Table.
    const app = new App();
    const stack = new Stack(app, 'Checked');
    const { Table: table } = globalTable({ sse: null, replicas: [{ Region: 'eu-west-1' }] });
    if (!table) throw new Error('no table');
    new CfnResource(stack, 'Table', {
      type: table.type,
      ...(table.properties ? { properties: table.properties } : {}),
    });
    Validations.of(app).addPlugins(new CfnGuardValidator({ controlTowerRulesEnabled: true }));
    expect(() => app.synth()).not.toThrow();

    const findings = guardFindings(globalTable({ sse: null, replicas: [{ Region: 'eu-west-1' }] }));
    for (const rule of [
      'dynamodb_global_table_pitr_enabled',
      'dynamodb_global_table_deletion_protection_enabled',
      'dynamodb_global_table_encrypted_kms',
    ])
      expect(findings).toContain(rule);
  });
});

describe('the checks of the app (lib/template-checks.ts)', () => {
  it('fail the synthesis on a violation, with both plugins attached as bin/app.ts attaches them', () => {
    const app = new App();
    const stack = new Stack(app, 'Checked');
    new CfnResource(stack, 'Logs', { type: 'AWS::Logs::LogGroup', properties: { RetentionInDays: 42 } });
    attachTemplateChecks(app);

    expect(() => app.synth()).toThrow(/log_group_retention_allowed/);
  });
});
