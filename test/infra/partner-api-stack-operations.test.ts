import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { gatewayResponses } from '../../core/contract/gateway-responses';
import { EVENT_CONSUMER_CONCURRENCY } from '../../core/event-delivery';
import {
  API_BASE_PATH,
  EVENT_CONSUMER,
  OUTBOUND_ENRICHMENT,
  pageFunctionName,
  pageRoutes,
  partnerApiRoutes,
  serviceFunctions,
} from '../../core/routes';
import { matchesPattern } from '../../emulator/event-patterns';
import { STACK_OUTPUTS } from '../../lib/stage-config';
import { partnerApiDocument } from '../../openapi/document';
import {
  AUTHORIZER,
  configOf,
  describeEachStack,
  FUNCTION_COUNT,
  functionId,
  functionIdOf,
  only,
  resources,
  template,
} from '../support/stack-template';

describeEachStack((stage, config) => {
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
  const config = configOf('production');

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
    const config = configOf('production');
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
