import { describe, expect, it } from 'vitest';
import { coldStartChart, costChart, limiterChart } from '../../bench/lib/charts';
import type { Template } from '../../bench/lib/cost-model';
import {
  backupCopiesKept,
  billedMilliseconds,
  DEFAULT_SAMPLING_RULE,
  dollars,
  logEventBytes,
  monthlyItems,
  perSecond,
  platformLines,
  renderAccessLogLine,
  samplingRuleFor,
  stackSettings,
  tracedShare,
} from '../../bench/lib/cost-model';
import { PRICES } from '../../bench/lib/prices';
import type { SectionResult } from '../../bench/lib/report';

/** A stage of the stack as the bench reads it: one function, its log group, the REST API and a rule. */
function template(extra: { systemLogLevel?: string; samplingRule?: Record<string, unknown> } = {}): Template {
  return {
    Resources: {
      Logs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 365 } },
      Usage: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          MemorySize: 512,
          Architectures: ['arm64'],
          TracingConfig: { Mode: 'Active' },
          LoggingConfig: {
            LogFormat: 'JSON',
            LogGroup: { Ref: 'Logs' },
            ...(extra.systemLogLevel ? { SystemLogLevel: extra.systemLogLevel } : {}),
          },
          Environment: { Variables: { POWERTOOLS_LOG_LEVEL: 'INFO' } },
          Tags: [{ Key: 'service-function', Value: 'usage' }],
        },
      },
      Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'partner-api-production' } },
      AccessLogs: {
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: 30, LogGroupClass: 'STANDARD' },
      },
      Stage: {
        Type: 'AWS::ApiGateway::Stage',
        Properties: {
          RestApiId: { Ref: 'Api' },
          StageName: 'production',
          TracingEnabled: true,
          AccessLogSetting: {
            DestinationArn: { 'Fn::GetAtt': ['AccessLogs', 'Arn'] },
            Format: '{"requestId":"$context.requestId","path":"$context.path","status":$context.status}',
          },
          MethodSettings: [{ LoggingLevel: 'ERROR', HttpMethod: '*', ResourcePath: '/*' }],
        },
      },
      Acl: { Type: 'AWS::WAFv2::WebACL', Properties: { Rules: [{}, {}, {}, {}] } },
      Association: {
        Type: 'AWS::WAFv2::WebACLAssociation',
        Properties: {
          ResourceArn: {
            'Fn::Join': [
              '',
              ['arn:aws:apigateway:::/restapis/', { Ref: 'Api' }, '/stages/', { Ref: 'Stage' }],
            ],
          },
        },
      },
      Authorizer: { Type: 'AWS::ApiGateway::Authorizer', Properties: { AuthorizerResultTtlInSeconds: 0 } },
      ...(extra.samplingRule
        ? { Rule: { Type: 'AWS::XRay::SamplingRule', Properties: { SamplingRule: extra.samplingRule } } }
        : {}),
    },
  };
}

describe('what a call costs: the settings a template gives a stage', () => {
  it('reads memory, log levels (INFO where Lambda defaults), tracing, log groups, firewall and authorizer cache', () => {
    const settings = stackSettings(template());

    expect(settings.functions).toEqual([
      expect.objectContaining({
        name: 'usage',
        memoryMb: 512,
        architecture: 'arm64',
        systemLogLevel: 'INFO',
        applicationLogLevel: 'INFO',
        codeLogLevel: 'INFO',
        activeTracing: true,
        logGroup: { retentionDays: 365, logClass: 'STANDARD' },
      }),
    ]);
    expect(settings.stages).toEqual([
      expect.objectContaining({
        restApiName: 'partner-api-production',
        stageName: 'production',
        tracing: true,
        firewall: true,
        executionLogLevel: 'ERROR',
        accessLogGroup: { retentionDays: 30, logClass: 'STANDARD' },
      }),
    ]);
    expect(settings.authorizerTtlSeconds).toBe(0);
    expect(stackSettings(template({ systemLogLevel: 'WARN' })).functions[0]?.systemLogLevel).toBe('WARN');
  });

  it('applies the stack’s sampling rule to the API when it matches, X-Ray’s default otherwise', () => {
    const request = {
      serviceName: 'partner-api-production/production',
      httpMethod: 'GET',
      urlPath: '/production/partner-api/v1/usage',
    };
    const rule = {
      RuleName: 'partner-api',
      Priority: 100,
      ReservoirSize: 0,
      FixedRate: 0.05,
      ServiceName: 'partner-api-*',
      ServiceType: 'AWS::ApiGateway::Stage',
      Host: '*',
      HTTPMethod: '*',
      URLPath: '*',
      ResourceARN: '*',
      Version: 1,
    };

    expect(
      samplingRuleFor(stackSettings(template({ samplingRule: rule })).samplingRules, request),
    ).toMatchObject({
      name: 'partner-api',
      reservoirPerSecond: 0,
      fixedRate: 0.05,
    });
    const elsewhere = { ...rule, ServiceName: 'some-other-service' };
    expect(samplingRuleFor(stackSettings(template({ samplingRule: elsewhere })).samplingRules, request)).toBe(
      DEFAULT_SAMPLING_RULE,
    );
  });
});

describe('what a call costs: the arithmetic', () => {
  it('traces most calls at a million a month under the default rule, and the fixed share without a reservoir', () => {
    const million = perSecond(1_000_000);

    // One a second and 5 % of the rest, calls at random at 0.38 a second: 1 − e^−λ of the seconds have one.
    expect(tracedShare(DEFAULT_SAMPLING_RULE, million)).toBeCloseTo(0.84, 2);
    expect(tracedShare(DEFAULT_SAMPLING_RULE, perSecond(100_000_000))).toBeLessThan(0.1);
    for (const rate of [0.01, million, 10, 1_000])
      expect(tracedShare({ reservoirPerSecond: 0, fixedRate: 0.05 }, rate)).toBeCloseTo(0.05, 10);
  });

  it('rounds each invocation up to the millisecond', () => {
    expect([0.2, 1, 1.01, 23.5].map(billedMilliseconds)).toEqual([1, 1, 2, 24]);
  });

  it('writes no platform line at WARN, start and report at INFO, the INIT lines on a cold start', () => {
    const invocation = {
      tracing: true,
      functionName: 'usage',
      memoryMb: 512,
      durationMs: 12.3,
      initDurationMs: 140,
    };
    const types = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { type: string }).type);

    expect(platformLines({ ...invocation, systemLogLevel: 'WARN', coldStart: true })).toEqual([]);
    expect(types(platformLines({ ...invocation, systemLogLevel: 'INFO', coldStart: false }))).toEqual([
      'platform.start',
      'platform.report',
    ]);
    expect(types(platformLines({ ...invocation, systemLogLevel: 'INFO', coldStart: true }))).toEqual([
      'platform.initStart',
      'platform.initReport',
      'platform.start',
      'platform.report',
    ]);
    expect(types(platformLines({ ...invocation, systemLogLevel: 'DEBUG', coldStart: false }))).toContain(
      'platform.runtimeDone',
    );
    // CloudWatch counts 26 bytes per event besides its message.
    expect(logEventBytes(['{}', 'abc'])).toBe(2 + 3 + 2 * 26);
  });

  it('renders an access-log line from the stage’s format, longest variable first, "-" where there is none', () => {
    const line = renderAccessLogLine(
      '{"path":"$context.path","parameters":"$context.pathParameters","ip":"$context.identity.sourceIp","status":$context.status}',
      { '$context.path': '/production/partner-api/v1/usage', '$context.status': 200 },
    );

    expect(JSON.parse(line)).toEqual({
      path: '/production/partner-api/v1/usage',
      parameters: '-',
      ip: '-',
      status: 200,
    });
  });

  it('prices the outbound pipe’s reads of the table’s stream as a fixed cost, four reads a second per shard', () => {
    const pipe = (sourceParameters: Record<string, unknown>) =>
      monthlyItems(
        {
          Resources: {
            Pipe: { Type: 'AWS::Pipes::Pipe', Properties: { SourceParameters: sourceParameters } },
          },
        },
        1,
      ).find((entry) => entry.resource.startsWith('DynamoDB stream reads'));

    const fromStream = pipe({ DynamoDBStreamParameters: { StartingPosition: 'TRIM_HORIZON' } });

    // 4 reads a second for a month of 30.4375 days, at the price per 100,000 reads: about $2.10.
    expect(fromStream?.dollars).toBeCloseTo(
      (4 * 30.4375 * 86_400 * PRICES.dynamoDbStreamReads.dollars) / 100_000,
      6,
    );
    expect(fromStream?.dollars).toBeGreaterThan(2);
    expect(pipe({ SqsQueueParameters: {} })).toBeUndefined();
  });

  it('prices the month of a stage from its template: web ACLs, alarm metrics, secrets, backups', () => {
    const items = monthlyItems(
      {
        Resources: {
          ...template().Resources,
          Simple: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors' } },
          Ratio: {
            Type: 'AWS::CloudWatch::Alarm',
            Properties: {
              Metrics: [
                { Id: 'a', MetricStat: {} },
                { Id: 'b', MetricStat: {} },
                { Id: 'r', Expression: 'a/b' },
              ],
            },
          },
          Secret: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
          Plan: {
            Type: 'AWS::Backup::BackupPlan',
            Properties: {
              BackupPlan: {
                BackupPlanRule: [
                  { ScheduleExpression: 'cron(0 5 ? * * *)', Lifecycle: { DeleteAfterDays: 35 } },
                ],
              },
            },
          },
        },
      },
      1,
    );
    const item = (resource: string) => items.find((entry) => entry.resource.startsWith(resource));

    expect(item('WAF')?.dollars).toBe(PRICES.wafWebAcl.dollars + 4 * PRICES.wafRule.dollars);
    expect(item('CloudWatch alarms')?.dollars).toBeCloseTo(3 * PRICES.alarmMetric.dollars, 10);
    expect(item('Secrets')?.dollars).toBe(PRICES.secret.dollars);
    expect(item('AWS Backup')?.quantity).toBe('35 kept at once');
    expect(backupCopiesKept('cron(0 5 ? * SUN *)', 35)).toBe(5);
    expect(backupCopiesKept('rate(12 hours)', 2)).toBe(4);
    expect(dollars(3.5)).toBe('$3.50');
    expect(dollars(-0.25)).toBe('−$0.250');
  });

  it('keeps each price with its source page and the day it was read', () => {
    for (const [name, price] of Object.entries(PRICES)) {
      expect(price.source, name).toMatch(/^https:\/\/aws\.amazon\.com\//);
      expect(price.read, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(price.dollars, name).toBeGreaterThan(0);
      if (!price.confirmed) expect(price.note, name).toBeTruthy();
    }
  });
});

describe('the bench’s charts', () => {
  const section = (id: string, data: unknown): SectionResult => ({
    id,
    title: id,
    method: '',
    tables: [],
    budgets: [],
    notes: [],
    data,
  });

  it('draw titled, labelled SVG from each section’s data, and nothing without it', () => {
    const row = (instances: number, p99Ms: number, failedUnits: number) => ({
      instances,
      p99Ms,
      admitted: 100,
      writes: { admittedUnits: 100, failedUnits },
    });
    const charts = [
      limiterChart(
        section('limiter', {
          modes: ['paced', 'back-to-back', 'uncontended'].map((mode) => ({
            mode,
            rows: [row(1, 10, 1), row(5, 30, 20), row(20, 120, 50), row(50, 700, 95)],
          })),
        }),
      ),
      coldStartChart(
        section('bundles', {
          budgetMs: 10,
          bundles: [
            {
              name: 'GET /usage: usage',
              kind: 'function',
              addedMs: 6,
              threadCpuDeltaConfidenceInterval: [2, 9],
            },
            {
              name: 'activate <page>',
              kind: 'function',
              addedMs: 14,
              threadCpuDeltaConfidenceInterval: [-1, 20],
            },
            { name: 'hello', kind: 'baseline', addedMs: -20 },
          ],
        }),
      ),
      costChart(
        section('cost', {
          budgetDollarsPerMillion: 7,
          stages: [
            {
              stage: 'production',
              routes: [
                {
                  label: 'GET /usage',
                  components: { 'API Gateway requests': 3.5, 'X-Ray traces': 0.25 },
                  total: 3.75,
                },
              ],
              mix: { 'API Gateway requests': 3.5, 'X-Ray traces': 0.25 },
              mixTotal: 3.75,
            },
          ],
        }),
      ),
    ];

    for (const chart of charts) {
      expect(chart?.svg).toMatch(
        /^<svg xmlns='http:\/\/www\.w3\.org\/2000\/svg'[^>]*>\n<title>[^<]+<\/title>/,
      );
      expect(chart?.svg).not.toMatch(/NaN|undefined/);
    }
    expect(charts[0]?.svg).toContain('independent instances (processes)');
    expect(charts[1]?.svg).toContain('budget 10 ms');
    expect(charts[1]?.svg).toContain('activate &lt;page&gt;');
    expect(charts[2]?.svg).toContain('production budget $7.00');
    expect(limiterChart(section('limiter', null))).toBeUndefined();
    expect(costChart(section('cost', { stages: [] }))).toBeUndefined();
  });
});
