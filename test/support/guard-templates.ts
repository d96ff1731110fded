import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { GUARD_RULES_DIRECTORY } from '../../lib/template-checks';
import { regionalArn } from './cfn-arns';

/**
 * Templates of raw CloudFormation resources for our Guard rules (lib/guard-rules/), and their synthesis
 * through the same plugin `cdk synth` runs, so nothing else (bundling, the service's constructs) is in the way.
 */

export type Resources = Record<
  string,
  { type: string; properties?: Record<string, unknown>; dependsOn?: string[]; updatePolicy?: unknown }
>;

/** Synthesizes a stack of raw resources with our Guard rules only; the error text, or undefined. */
export function guardFindings(resources: Resources): string | undefined {
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
export const queueWithDeadLetters = (
  source: number | undefined,
  deadLetters: number | undefined,
): Resources => ({
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
export const invocationUri = (target: unknown) =>
  regionalArn('apigateway', ':lambda:path/2015-03-31/functions/', target, '/invocations');
/** CloudFormation's Fn::Sub of a function's ARN (its `${…}` is CloudFormation's, not a template literal's). */
export const SUB_OF_FUNCTION_ARN = ['$', '{Handler.Arn}'].join('');

/** What an integration invokes, or a Uri written some other way than CDK's Fn::Join (`{ uri }`). */
export type Invoked = 'function' | 'alias' | 'shifted alias' | { readonly uri: unknown };

/** A function, its `live` alias (shifted by CodeDeploy or not), and an API method and authorizer invoking one of them. */
export const apiInvoking = (method: Invoked, authorizer: Invoked): Resources => {
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

export const header = (name: string, value: string) => ({ Name: name, Value: value });
export const blockRule = (headers: unknown[]) => ({
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
export const webAcl = (
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
export const body = (content: string) => ({ ContentType: 'TEXT_PLAIN', Content: content });

export const restApisAndAccount = (dependsOn: string[], policy = false): Resources => ({
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

export const logGroup = (retention?: number): Resources => ({
  Logs: {
    type: 'AWS::Logs::LogGroup',
    ...(retention === undefined ? {} : { properties: { RetentionInDays: retention } }),
  },
});

export const lambdaFunction = (runtime: string): Resources => ({
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
export const globalTable = (
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
export const protectedReplica = (region: string) => ({
  Region: region,
  PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  DeletionProtectionEnabled: true,
});
const { PointInTimeRecoverySpecification: _pitr, ...replicaWithoutPitr } = protectedReplica('eu-central-1');
const { DeletionProtectionEnabled: _protection, ...replicaWithoutProtection } =
  protectedReplica('eu-central-1');

export { replicaWithoutPitr, replicaWithoutProtection };

export const samplingRule = (overrides: Record<string, unknown> = {}): Resources => ({
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
export const streamPipe = (
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

export const COPY_VAULT = 'arn:aws:backup:eu-central-1:123456789012:backup-vault:partner-api-copies';
/**
 * A backup plan of `stage` with one daily rule kept 35 days, as the stack builds it; `copies` are
 * the rule's CopyActions (none when undefined).
 */
export const backupPlan = (stage: string, copies?: Record<string, unknown>[]): Resources => ({
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
export const inProduction = (resources: Resources = {}): Resources => ({
  Queue: {
    type: 'AWS::SQS::Queue',
    properties: { MessageRetentionPeriod: 345_600, Tags: [{ Key: 'stage', Value: 'production' }] },
  },
  ...resources,
});
export const copyTo = (destination: unknown, days = 35) => ({
  DestinationBackupVaultArn: destination,
  Lifecycle: { DeleteAfterDays: days },
});
