import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../core/contract/table-definition';
import { DEAD_LETTER_RETENTION_DAYS } from '../../core/event-delivery';
import {
  FORWARDING_PATTERN,
  OUTBOUND_BATCH_SIZE,
  OUTBOUND_BATCHING_WINDOW_SECONDS,
  OUTBOUND_LAG_METRIC,
  OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS,
  OUTBOUND_MAXIMUM_RETRY_ATTEMPTS,
  OUTBOUND_TARGET,
  OUTBOX_FILTER,
  OUTBOX_RETENTION_DAYS,
  SERVICE_EVENT_SOURCE,
  STREAM_VIEW,
} from '../../core/outbound-delivery';
import { EVENT_CONSUMER, OUTBOUND_ENRICHMENT } from '../../core/routes';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { POWERTOOLS_SERVICE_NAME } from '../../lib/function-defaults';
import { addServiceStacks } from '../../lib/partner-api-stack';
import type { DeploymentSettings } from '../../lib/stage-config';
import { STACK_OUTPUTS, stackName, stageConfig } from '../../lib/stage-config';
import { attachTemplateChecks } from '../../lib/template-checks';
import { ACCOUNT, decision, rolePolicyOf } from '../support/iam';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp, TEST_DEPLOYMENT } from './synthesized-app';

/**
 * This service's own events on AWS's own engines: the table's keys-only stream, the EventBridge Pipe
 * that keeps the outbox's inserts, reads them with the enrichment and puts them on the outbound bus,
 * its role (evaluated as AWS evaluates it), its dead-letter queue and logs; the forwarding rule to the
 * platform's bus when a deployment names one; the alarms and dashboard widgets an operator needs.
 */
type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };
type TemplateJson = { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizedApp();
});

const PLATFORM_BUS = 'arn:aws:events:eu-west-1:210987654321:event-bus/host-platform';
const REGION = 'eu-west-1';

const byType = (template: TemplateJson, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
function only<T>(values: readonly T[], what: string): T {
  expect(values, what).toHaveLength(1);
  const [value] = values;
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
}
const idStartingWith = (template: TemplateJson, type: string, prefix: string) =>
  only(
    byType(template, type)
      .map(([id]) => id)
      .filter((id) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id)),
    `${type} ${prefix}`,
  );
/** The `live` alias of a function, by its route-table name. */
const liveAliasIdOf = (template: TemplateJson, name: string) =>
  only(
    byType(template, 'AWS::Lambda::Alias')
      .filter(
        ([, alias]) =>
          (alias.Properties.FunctionName as { Ref: string }).Ref === functionIdOf(template, name),
      )
      .map(([id]) => id),
    `alias of ${name}`,
  );
const functionIdOf = (template: TemplateJson, name: string) =>
  only(
    byType(template, 'AWS::Lambda::Function')
      .filter(([, fn]) =>
        (fn.Properties.Tags as { Key: string; Value: string }[]).some(
          (tag) => tag.Key === 'service-function' && tag.Value === name,
        ),
      )
      .map(([id]) => id),
    `function ${name}`,
  );
const alarmNamed = (template: TemplateJson, name: string) =>
  only(
    byType(template, 'AWS::CloudWatch::Alarm')
      .map(([, alarm]) => alarm.Properties)
      .filter((alarm) => alarm.AlarmName === name),
    `alarm ${name}`,
  );
/** The metrics of a math-expression alarm, by id: namespace, name, dimensions and statistic. */
const alarmMetrics = (alarm: Record<string, unknown>) =>
  Object.fromEntries(
    (alarm.Metrics as { Id: string; MetricStat?: { Metric: Record<string, unknown>; Stat: string } }[])
      .filter((metric) => metric.MetricStat)
      .map((metric) => [metric.Id, { ...metric.MetricStat?.Metric, Stat: metric.MetricStat?.Stat }]),
  );

/** The stage's stack with a deployment's settings, synthesized without bundling; optionally checked. */
function synthesizeWith(stage: DeployedStage, deployment: Partial<DeploymentSettings>, checked = false) {
  const outdir = mkdtempSync(join(tmpdir(), 'partner-api-outbound-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const [stack] = addServiceStacks(app, [stageConfig(stage, { ...TEST_DEPLOYMENT[stage], ...deployment })]);
    if (!stack) throw new Error(`no ${stage} stack`);
    if (checked) attachTemplateChecks(app);
    const template = app.synth().getStackByName(stack.stackName).template as TemplateJson;
    return { template, assess: Template.fromJSON(template) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe.each(DEPLOYED_STAGES)('outbound events of PartnerApi-%s', (stage) => {
  const config = stageConfig(stage, TEST_DEPLOYMENT[stage]);
  const templateOf = () => synthesized.templates[stage].toJSON() as TemplateJson;

  it('gives the table a keys-only stream, and the outbound bus its name', () => {
    const template = templateOf();
    const [, table] = only(byType(template, 'AWS::DynamoDB::GlobalTable'), 'table');

    expect(STREAM_VIEW).toBe('KEYS_ONLY');
    expect(tableDefinition.streamView).toBe(STREAM_VIEW);
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    const bus = idStartingWith(template, 'AWS::Events::EventBus', 'OutboundEventsBus');
    expect(template.Resources[bus]?.Properties.Name).toBe(`partner-api-${stage}-service-events`);
  });

  it('pipes the outbox’s inserts from the stream through the enrichment to the outbound bus, as core/outbound-delivery.ts says', () => {
    const template = templateOf();
    const [tableId] = only(byType(template, 'AWS::DynamoDB::GlobalTable'), 'table');
    const [pipeId, pipe] = only(byType(template, 'AWS::Pipes::Pipe'), 'pipe');
    const deadLetters = idStartingWith(template, 'AWS::SQS::Queue', 'OutboundEventsDeadLetterQueue');
    const logs = idStartingWith(template, 'AWS::Logs::LogGroup', 'OutboundEventsPipeLogs');
    const role = idStartingWith(template, 'AWS::IAM::Role', 'OutboundEventsPipeRole');

    expect(pipe.Properties).toEqual({
      Name: `partner-api-${stage}-outbox`,
      Description: expect.any(String),
      RoleArn: { 'Fn::GetAtt': [role, 'Arn'] },
      Source: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      SourceParameters: {
        DynamoDBStreamParameters: {
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: OUTBOUND_BATCH_SIZE,
          MaximumBatchingWindowInSeconds: OUTBOUND_BATCHING_WINDOW_SECONDS,
          MaximumRetryAttempts: OUTBOUND_MAXIMUM_RETRY_ATTEMPTS,
          MaximumRecordAgeInSeconds: OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS,
          OnPartialBatchItemFailure: 'AUTOMATIC_BISECT',
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetters, 'Arn'] } },
        },
        FilterCriteria: { Filters: [{ Pattern: expect.any(String) }] },
      },
      // Its `live` alias, which CodeDeploy shifts (safe deployments).
      Enrichment: { Ref: liveAliasIdOf(template, OUTBOUND_ENRICHMENT.id) },
      Target: {
        'Fn::GetAtt': [idStartingWith(template, 'AWS::Events::EventBus', 'OutboundEventsBus'), 'Arn'],
      },
      TargetParameters: {
        EventBridgeEventBusParameters: {
          Source: OUTBOUND_TARGET.source,
          DetailType: OUTBOUND_TARGET.detailType,
          Time: OUTBOUND_TARGET.time,
        },
        InputTemplate: OUTBOUND_TARGET.inputTemplate,
      },
      // Errors only, without the events' details (no IncludeExecutionData).
      LogConfiguration: {
        Level: 'ERROR',
        CloudwatchLogsLogDestination: { LogGroupArn: { 'Fn::GetAtt': [logs, 'Arn'] } },
      },
      Tags: { service: 'partner-api', stage },
    });
    const filters = (
      pipe.Properties.SourceParameters as { FilterCriteria: { Filters: { Pattern: string }[] } }
    ).FilterCriteria.Filters;
    expect(JSON.parse(filters[0]?.Pattern ?? '')).toEqual(OUTBOX_FILTER);
    expect(OUTBOUND_TARGET.source).toBe(SERVICE_EVENT_SOURCE);
    // Created once its role, with its policy, exists.
    expect(template.Resources[pipeId]?.DependsOn).toEqual(
      expect.arrayContaining([
        role,
        idStartingWith(template, 'AWS::IAM::Policy', 'OutboundEventsPipeRoleDefaultPolicy'),
      ]),
    );
    // The pipe's log group is kept and removed as the functions' logs are.
    expect(template.Resources[logs]?.Properties.RetentionInDays).toBe(config.logRetentionDays);
  });

  it('keeps the pipe’s dead letters encrypted, TLS-only, as long as the outbox items they name, and out of any queue’s redrive', () => {
    const template = templateOf();
    const deadLetters = idStartingWith(template, 'AWS::SQS::Queue', 'OutboundEventsDeadLetterQueue');

    expect(template.Resources[deadLetters]?.Properties).toEqual({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: OUTBOX_RETENTION_DAYS * 86_400,
      RedriveAllowPolicy: { redrivePermission: 'denyAll' },
      Tags: expect.any(Array),
    });
    // SQS keeps a message 14 days at most.
    expect(OUTBOX_RETENTION_DAYS).toBeLessThanOrEqual(14);
    const [, policy] = only(
      byType(template, 'AWS::SQS::QueuePolicy').filter(
        ([, candidate]) =>
          JSON.stringify(candidate.Properties.Queues) === JSON.stringify([{ Ref: deadLetters }]),
      ),
      'queue policy',
    );
    // Only the TLS rule: the pipe sends with its role, nothing else is let in.
    expect((policy.Properties.PolicyDocument as { Statement: unknown[] }).Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  it('lets the pipe’s role do exactly what the pipe does, as AWS evaluates it', async () => {
    const template = templateOf();
    const role = idStartingWith(template, 'AWS::IAM::Role', 'OutboundEventsPipeRole');
    const { policy, arnOf, streamArnOf } = rolePolicyOf(template, role);
    const tableId = only(byType(template, 'AWS::DynamoDB::GlobalTable'), 'table')[0];
    const stream = streamArnOf(tableId);
    const enrichment = arnOf(liveAliasIdOf(template, OUTBOUND_ENRICHMENT.id));
    const bus = arnOf(idStartingWith(template, 'AWS::Events::EventBus', 'OutboundEventsBus'));
    const deadLetters = arnOf(idStartingWith(template, 'AWS::SQS::Queue', 'OutboundEventsDeadLetterQueue'));
    const logs = idStartingWith(template, 'AWS::Logs::LogGroup', 'OutboundEventsPipeLogs');
    const logStream = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logs}:log-stream:pipe`;
    const check = (action: string, resource: string) => decision(policy, { action, resource });

    // Trusted by Pipes alone, for this account's pipes.
    expect(template.Resources[role]?.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRole',
          Principal: { Service: 'pipes.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ],
    });
    for (const action of ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'])
      expect(await check(action, stream), action).toBe('Allowed');
    expect(await check('dynamodb:ListStreams', '*')).toBe('Allowed');
    expect(await check('lambda:InvokeFunction', enrichment)).toBe('Allowed');
    expect(await check('events:PutEvents', bus)).toBe('Allowed');
    expect(await check('sqs:SendMessage', deadLetters)).toBe('Allowed');
    expect(await check('logs:CreateLogStream', logStream)).toBe('Allowed');
    expect(await check('logs:PutLogEvents', logStream)).toBe('Allowed');

    // Nothing else: no item of the table, no other function, bus, queue, stream or log group.
    const table = arnOf(tableId);
    const otherStream = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/Other/stream/2026-01-01T00:00:00.000`;
    expect(await check('dynamodb:GetRecords', otherStream)).not.toBe('Allowed');
    for (const action of ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'])
      expect(await decision(policy, { action, resource: table, leadingKeys: ['OUTBOX#1'] }), action).not.toBe(
        'Allowed',
      );
    expect(await check('dynamodb:Scan', table)).not.toBe('Allowed');
    expect(await check('lambda:InvokeFunction', arnOf(functionIdOf(template, EVENT_CONSUMER.id)))).not.toBe(
      'Allowed',
    );
    // Only the alias: not the unqualified function (its $LATEST), not a version.
    const enrichmentFunction = arnOf(functionIdOf(template, OUTBOUND_ENRICHMENT.id));
    expect(await check('lambda:InvokeFunction', enrichmentFunction)).not.toBe('Allowed');
    expect(await check('lambda:InvokeFunction', `${enrichmentFunction}:1`)).not.toBe('Allowed');
    const platformBus = arnOf(idStartingWith(template, 'AWS::Events::EventBus', 'PlatformEventsBus'));
    expect(await check('events:PutEvents', platformBus)).not.toBe('Allowed');
    expect(await check('events:PutEvents', PLATFORM_BUS)).not.toBe('Allowed');
    const platformDeadLetters = arnOf(
      idStartingWith(template, 'AWS::SQS::Queue', 'PlatformEventsDeadLetterQueue'),
    );
    expect(await check('sqs:SendMessage', platformDeadLetters)).not.toBe('Allowed');
    expect(await check('sqs:ReceiveMessage', deadLetters)).not.toBe('Allowed');
    expect(
      await check('logs:PutLogEvents', `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:other:log-stream:x`),
    ).not.toBe('Allowed');
    // Statement by statement: ListStreams alone on "*" (it has no resource type).
    const statements = (policy as { Statement: { Action: string | string[]; Resource: string }[] }).Statement;
    expect(statements.map((statement) => [[statement.Action].flat().sort(), statement.Resource])).toEqual([
      [['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], stream],
      [['dynamodb:ListStreams'], '*'],
      [['lambda:InvokeFunction'], enrichment],
      [['events:PutEvents'], bus],
      [['sqs:SendMessage'], deadLetters],
      [['logs:CreateLogStream', 'logs:PutLogEvents'], arnOf(logs)],
    ]);
  });

  it('tells the enrichment its table and the namespace of its lag metric', () => {
    const template = templateOf();
    const fn = template.Resources[functionIdOf(template, OUTBOUND_ENRICHMENT.id)];
    const variables = (fn?.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables;

    expect(variables).toMatchObject({
      TABLE_NAME: { Ref: expect.stringMatching(/^DataTable/) },
      POWERTOOLS_METRICS_NAMESPACE: stackName(stage),
      POWERTOOLS_SERVICE_NAME,
    });
  });

  it('alarms on the pipe’s failures, its dead letters, old deliveries and the enrichment’s errors; no forwarding without a platform bus', () => {
    const template = templateOf();
    const pipeName = `partner-api-${stage}-outbox`;
    const pipeMetric = (metricName: string) => ({
      Namespace: 'AWS/EventBridge/Pipes',
      MetricName: metricName,
      Dimensions: [{ Name: 'PipeName', Value: pipeName }],
      Stat: 'Sum',
    });

    const failed = alarmNamed(template, `${stackName(stage)}-outbound-delivery-failed`);
    expect(alarmMetrics(failed)).toEqual({
      execution: pipeMetric('ExecutionFailed'),
      enrichment: pipeMetric('EnrichmentStageFailed'),
      target: pipeMetric('TargetStageFailed'),
    });
    expect(failed.Threshold).toBe(config.alarms.outboundDeliveryFailures);
    expect(alarmNamed(template, `${stackName(stage)}-outbound-dead-lettered`)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: {
            'Fn::GetAtt': [
              idStartingWith(template, 'AWS::SQS::Queue', 'OutboundEventsDeadLetterQueue'),
              'QueueName',
            ],
          },
        },
      ],
      Threshold: 1,
    });
    expect(alarmNamed(template, `${stackName(stage)}-outbound-lag`)).toMatchObject({
      Namespace: stackName(stage),
      MetricName: OUTBOUND_LAG_METRIC,
      Dimensions: [{ Name: 'service', Value: POWERTOOLS_SERVICE_NAME }],
      ExtendedStatistic: 'p99',
      Threshold: config.alarms.outboundLagSeconds,
    });
    expect(alarmNamed(template, `${stackName(stage)}-${OUTBOUND_ENRICHMENT.id}-errors`).Threshold).toBe(
      config.alarms.lambdaErrors,
    );
    // Production learns within 5 minutes that deliveries are late.
    if (stage === 'production') expect(config.alarms.outboundLagSeconds).toBeLessThanOrEqual(300);
    // The platform's events' rule alone (production's failed-backup rule reads AWS Backup's events).
    expect(
      byType(template, 'AWS::Events::Rule').filter(
        ([, rule]) => !JSON.stringify(rule.Properties.EventPattern).includes('aws.backup'),
      ),
    ).toHaveLength(1);
    expect(
      byType(template, 'AWS::CloudWatch::Alarm').filter(([, alarm]) =>
        String(alarm.Properties.AlarmName).includes('forwarding'),
      ),
    ).toEqual([]);
  });

  it('shows the pipe, the lag and its dead letters on the dashboard', () => {
    // The body is JSON inside a JSON string: its quotes read back plain.
    const body = JSON.stringify(
      Object.values(synthesized.templates[stage].findResources('AWS::CloudWatch::Dashboard'))[0]?.Properties
        .DashboardBody,
    ).replaceAll('\\"', '"');

    for (const text of [
      'Outbound events: pipe invocations, events and failures',
      'Outbound events: commit-to-delivery lag (s)',
      'Outbound events: dead-lettered',
      `"AWS/EventBridge/Pipes","ExecutionFailed","PipeName","partner-api-${stage}-outbox"`,
      `"AWS/EventBridge/Pipes","Invocations","PipeName","partner-api-${stage}-outbox"`,
      `"${stackName(stage)}","${OUTBOUND_LAG_METRIC}","service","${POWERTOOLS_SERVICE_NAME}"`,
      '"stat":"p99"',
    ])
      expect(body).toContain(text);
    expect(body).not.toContain("forwarding to the platform's bus");
  });

  it('outputs the outbound bus for the platform’s side', () => {
    const template = templateOf();
    const bus = idStartingWith(template, 'AWS::Events::EventBus', 'OutboundEventsBus');

    expect(template.Outputs[STACK_OUTPUTS.outboundEventBusName]?.Value).toEqual({ Ref: bus });
    expect(template.Outputs[STACK_OUTPUTS.outboundEventBusArn]?.Value).toEqual({
      'Fn::GetAtt': [bus, 'Arn'],
    });
  });
});

describe('forwarding to the platform’s bus (platformEventBus)', () => {
  let forwarded: ReturnType<typeof synthesizeWith>;
  beforeAll(() => {
    // Production, with cdk-nag and cfn-guard as `cdk synth` runs them: a finding fails the synthesis.
    forwarded = synthesizeWith('production', { platformEventBus: PLATFORM_BUS }, true);
  });

  it('forwards exactly the contract’s events from the outbound bus to the platform’s, as a role, with a dead-letter queue', () => {
    const { template } = forwarded;
    const [ruleId, rule] = only(
      byType(template, 'AWS::Events::Rule').filter(([id]) => id.startsWith('OutboundEventsToPlatform')),
      'forwarding rule',
    );
    const role = idStartingWith(template, 'AWS::IAM::Role', 'OutboundEventsForwardingRole');
    const deadLetters = idStartingWith(
      template,
      'AWS::SQS::Queue',
      'OutboundEventsForwardingDeadLetterQueue',
    );

    expect(rule.Properties).toMatchObject({
      EventBusName: { Ref: idStartingWith(template, 'AWS::Events::EventBus', 'OutboundEventsBus') },
      EventPattern: FORWARDING_PATTERN,
      Targets: [
        {
          Id: expect.any(String),
          Arn: PLATFORM_BUS,
          RoleArn: { 'Fn::GetAtt': [role, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetters, 'Arn'] } },
        },
      ],
    });
    expect(template.Resources[role]?.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [
        { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'events.amazonaws.com' } },
      ],
    });
    expect(template.Resources[deadLetters]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: DEAD_LETTER_RETENTION_DAYS * 86_400,
      RedriveAllowPolicy: { redrivePermission: 'denyAll' },
    });
    // EventBridge may send this rule's failures there, over TLS only.
    const [, queuePolicy] = only(
      byType(template, 'AWS::SQS::QueuePolicy').filter(
        ([, candidate]) =>
          JSON.stringify(candidate.Properties.Queues) === JSON.stringify([{ Ref: deadLetters }]),
      ),
      'queue policy',
    );
    expect((queuePolicy.Properties.PolicyDocument as { Statement: unknown[] }).Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Principal: { Service: 'events.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      }),
    ]);
  });

  it('lets the forwarding role put events on the platform’s bus and nowhere else', async () => {
    const { template } = forwarded;
    const role = idStartingWith(template, 'AWS::IAM::Role', 'OutboundEventsForwardingRole');
    const { policy, arnOf } = rolePolicyOf(template, role);

    expect(await decision(policy, { action: 'events:PutEvents', resource: PLATFORM_BUS })).toBe('Allowed');
    const outbound = arnOf(idStartingWith(template, 'AWS::Events::EventBus', 'OutboundEventsBus'));
    for (const resource of [outbound, 'arn:aws:events:eu-west-1:210987654321:event-bus/default'])
      expect(await decision(policy, { action: 'events:PutEvents', resource })).not.toBe('Allowed');
    expect((policy as { Statement: unknown[] }).Statement).toEqual([
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: PLATFORM_BUS },
    ]);
  });

  it('alarms on what the rule could not deliver and on its dead letters, and shows its deliveries', () => {
    const { template } = forwarded;
    const ruleId = only(
      byType(template, 'AWS::Events::Rule')
        .map(([id]) => id)
        .filter((id) => id.startsWith('OutboundEventsToPlatform')),
      'rule',
    );
    const bus = idStartingWith(template, 'AWS::Events::EventBus', 'OutboundEventsBus');
    // A rule of a custom bus: RuleName and EventBusName.
    const ruleMetric = (metricName: string) => ({
      Namespace: 'AWS/Events',
      MetricName: metricName,
      Dimensions: [
        { Name: 'EventBusName', Value: { Ref: bus } },
        { Name: 'RuleName', Value: { Ref: ruleId } },
      ],
      Stat: 'Sum',
    });

    expect(alarmMetrics(alarmNamed(template, 'PartnerApi-production-outbound-forwarding-failed'))).toEqual({
      failed: ruleMetric('FailedInvocations'),
      sentToDlq: ruleMetric('InvocationsSentToDlq'),
      lost: ruleMetric('InvocationsFailedToBeSentToDlq'),
    });
    expect(alarmNamed(template, 'PartnerApi-production-outbound-forwarding-dead-lettered')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      AlarmActions: [TEST_DEPLOYMENT.production.alarmTopicArn],
    });
    const body = JSON.stringify(
      Object.values(forwarded.assess.findResources('AWS::CloudWatch::Dashboard'))[0],
    );
    expect(body).toContain("Outbound events: forwarding to the platform's bus");
    expect(body).toContain('InvocationsFailedToBeSentToDlq');
  });
});
