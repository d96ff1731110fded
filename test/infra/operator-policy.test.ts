import { beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_SUMMARY_ATTRIBUTES } from '../../core/outbound-delivery';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { STACK_OUTPUTS } from '../../lib/stage-config';
import { ACCOUNT, decision } from '../support/iam';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp } from './synthesized-app';

/** What the reads of `events sent` may return: the outbox's summary attributes, named one by one. */
const SUMMARY_ONLY = {
  'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...OUTBOX_SUMMARY_ATTRIBUTES] },
  StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
};

/**
 * The operator policy: what `npm run admin -- traffic` needs on a deployed stage (Logs Insights
 * over the partner API's access log), asserted statement by statement and then evaluated the way
 * AWS evaluates it (@cloud-copilot/iam-simulate, with the Service Authorization Reference's
 * resource types of each action).
 */
const REGION = 'eu-west-1';

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}
interface TemplateJson {
  readonly Resources: Record<string, Resource>;
  readonly Outputs: Record<string, { Value: unknown }>;
}

let synthesized: SynthesizedApp;

beforeAll(async () => {
  // The run's one synthesis of the app (see test/infra/synthesized-app.ts).
  synthesized = await synthesizedApp();
});

const templateOf = (stage: DeployedStage) => synthesized.templates[stage].toJSON() as TemplateJson;
const byType = (template: TemplateJson, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The log group the partner API's stage writes its access log to. */
function partnerApiAccessLogGroup(template: TemplateJson): string {
  const [apiId] = byType(template, 'AWS::ApiGateway::RestApi').find(([, api]) =>
    String(api.Properties?.Name).startsWith('partner-api-'),
  ) ?? [''];
  const [, stage] = byType(template, 'AWS::ApiGateway::Stage').find(
    ([, candidate]) => JSON.stringify(candidate.Properties?.RestApiId) === JSON.stringify({ Ref: apiId }),
  ) ?? ['', undefined];
  const destination = (stage?.Properties?.AccessLogSetting as { DestinationArn?: { 'Fn::GetAtt': string[] } })
    ?.DestinationArn?.['Fn::GetAtt'];
  expect(destination?.[1]).toBe('Arn');
  return destination?.[0] ?? '';
}

function operatorPolicy(template: TemplateJson): [string, Resource] {
  const policies = byType(template, 'AWS::IAM::ManagedPolicy');
  expect(policies).toHaveLength(1);
  return policies[0] as [string, Resource];
}

const stackArn = (name: string) => `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${name}/0f1e2d3c-4b5a`;
const THIS_STACK_ARN = stackArn('this-stack');
const tableArn = (id: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${id}`;
const tableOf = (template: TemplateJson) => byType(template, 'AWS::DynamoDB::GlobalTable')[0]?.[0] ?? '';
const queueArn = (id: string) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${id}`;
const deadLetterQueueOf = (template: TemplateJson) =>
  byType(template, 'AWS::SQS::Queue').find(([id]) => id.startsWith('PlatformEventsDeadLetterQueue'))?.[0] ??
  '';

/** The policy document with concrete ARNs: log group ids stand for their names. */
function resolvedDocument(template: TemplateJson, document: unknown): unknown {
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': REGION,
    'AWS::AccountId': ACCOUNT,
    'AWS::StackId': THIS_STACK_ARN,
  };
  const resolve = (value: unknown): unknown => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(resolve);
    const expression = value as Record<string, unknown>;
    if (typeof expression.Ref === 'string') {
      if (pseudo[expression.Ref]) return pseudo[expression.Ref];
      if (template.Resources[expression.Ref]?.Type === 'AWS::Logs::LogGroup') return expression.Ref;
      throw new Error(`Unexpected reference ${expression.Ref}`);
    }
    const getAtt = expression['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt?.[1] === 'Arn' && template.Resources[getAtt[0]]?.Type === 'AWS::Logs::LogGroup')
      return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${getAtt[0]}:*`;
    if (getAtt?.[1] === 'Arn' && template.Resources[getAtt[0]]?.Type === 'AWS::DynamoDB::GlobalTable')
      return tableArn(getAtt[0]);
    if (getAtt?.[1] === 'Arn' && template.Resources[getAtt[0]]?.Type === 'AWS::SQS::Queue')
      return queueArn(getAtt[0]);
    const join = expression['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(resolve).join(join[0]);
    if (Object.keys(expression).some((key) => key.startsWith('Fn::')))
      throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
    return Object.fromEntries(Object.entries(expression).map(([key, entry]) => [key, resolve(entry)]));
  };
  return resolve(document);
}

describe.each(DEPLOYED_STAGES)('operator policy (%s)', (stage) => {
  it('grants Logs Insights on the access log group, StopQuery, the audit trail reads, a look at failed events and the events sent, nothing else', () => {
    const template = templateOf(stage);
    const logGroup = partnerApiAccessLogGroup(template);
    const [, policy] = operatorPolicy(template);

    expect((policy.Properties?.PolicyDocument as { Statement?: unknown[] } | undefined)?.Statement).toEqual([
      {
        Sid: 'QueryApiAccessLog',
        Effect: 'Allow',
        Action: ['logs:StartQuery', 'logs:GetQueryResults'],
        Resource: [
          {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':logs:',
                { Ref: 'AWS::Region' },
                ':',
                { Ref: 'AWS::AccountId' },
                ':log-group:',
                { Ref: logGroup },
              ],
            ],
          },
          { 'Fn::GetAtt': [logGroup, 'Arn'] },
        ],
      },
      {
        Sid: 'ReadStackOutputs',
        Effect: 'Allow',
        Action: 'cloudformation:DescribeStacks',
        Resource: { Ref: 'AWS::StackId' },
      },
      // StopQuery has no resource type in the Service Authorization Reference.
      { Sid: 'StopOwnLogsInsightsQuery', Effect: 'Allow', Action: 'logs:StopQuery', Resource: '*' },
      expect.objectContaining({
        Sid: 'ReadAuditTrail',
        Action: 'dynamodb:Query',
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*', 'AUDIT', 'PARTNERS'] },
        },
      }),
      {
        Sid: 'ReadFailedEvents',
        Effect: 'Allow',
        Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
        Resource: { 'Fn::GetAtt': [deadLetterQueueOf(template), 'Arn'] },
      },
      // `events sent`: one host's outbox on the table, one day's on the index, the summary attributes only.
      {
        Sid: 'ReadEventsSentOfHost',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::GetAtt': [tableOf(template), 'Arn'] },
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OUTBOX#*'] },
          ...SUMMARY_ONLY,
        },
      },
      {
        Sid: 'ReadEventsSentByDay',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableOf(template), 'Arn'] }, '/index/GSI1']] },
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OUTBOX_DAY#*'] },
          ...SUMMARY_ONLY,
        },
      },
      expect.objectContaining({
        Sid: 'FindPartner',
        Action: 'dynamodb:GetItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PARTNERSLUG#*', 'PARTNER#*'] } },
      }),
    ]);
  });

  it('outputs the access log group the CLI queries and the policy operators attach', () => {
    const template = templateOf(stage);
    const [policyId] = operatorPolicy(template);

    expect(template.Outputs[STACK_OUTPUTS.accessLogGroupName]?.Value).toEqual({
      Ref: partnerApiAccessLogGroup(template),
    });
    expect(template.Outputs[STACK_OUTPUTS.operatorPolicyArn]?.Value).toEqual({ Ref: policyId });
  });

  it('lets AWS allow the queries of traffic and deny other log groups and raw log reads', async () => {
    const template = templateOf(stage);
    const logGroup = partnerApiAccessLogGroup(template);
    const [, policy] = operatorPolicy(template);
    const document = resolvedDocument(template, policy.Properties?.PolicyDocument);
    const arn = (name: string) => `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}`;
    const pagesLog = byType(template, 'AWS::Logs::LogGroup')
      .map(([id]) => id)
      .find((id) => id.startsWith('PagesRestApiAccessLogs'));
    const check = (action: string, resource: string) => decision(document, { action, resource });

    // The request's resource is the log group's ARN in the reference's format (no `:*`).
    expect(await check('logs:StartQuery', arn(logGroup))).toBe('Allowed');
    expect(await check('logs:GetQueryResults', arn(logGroup))).toBe('Allowed');
    expect(await check('logs:StopQuery', '*')).toBe('Allowed');
    expect(await check('cloudformation:DescribeStacks', THIS_STACK_ARN)).toBe('Allowed');
    expect(await check('cloudformation:DescribeStacks', stackArn('SomeOtherStack'))).not.toBe('Allowed');

    expect(pagesLog).toBeDefined();
    expect(await check('logs:StartQuery', arn(pagesLog ?? ''))).not.toBe('Allowed');
    expect(await check('logs:StartQuery', arn('/aws/lambda/any-function'))).not.toBe('Allowed');
    expect(await check('logs:GetQueryResults', arn(pagesLog ?? ''))).not.toBe('Allowed');
    expect(await check('logs:FilterLogEvents', arn(logGroup))).not.toBe('Allowed');
    expect(await check('logs:GetLogEvents', `${arn(logGroup)}:log-stream:any`)).not.toBe('Allowed');
    expect(await check('logs:DeleteLogGroup', arn(logGroup))).not.toBe('Allowed');
  });

  it('lets AWS allow the reads of audit list and deny any change to the trail or other data', async () => {
    const template = templateOf(stage);
    const [, policy] = operatorPolicy(template);
    const document = resolvedDocument(template, policy.Properties?.PolicyDocument);
    const table = tableArn(tableOf(template));
    const check = (action: string, leadingKey: string, resource = table) =>
      decision(document, { action: `dynamodb:${action}`, resource, leadingKeys: [leadingKey] });

    expect(await check('Query', 'AUDIT#12')).toBe('Allowed');
    expect(await check('Query', 'AUDIT', `${table}/index/GSI1`)).toBe('Allowed');
    expect(await check('Query', 'PARTNERS', `${table}/index/GSI1`)).toBe('Allowed');
    expect(await check('GetItem', 'PARTNERSLUG#acme')).toBe('Allowed');
    expect(await check('GetItem', 'PARTNER#12')).toBe('Allowed');

    for (const action of ['PutItem', 'UpdateItem', 'DeleteItem'])
      expect(await check(action, 'AUDIT#12')).not.toBe('Allowed');
    expect(await check('GetItem', 'APIKEY#svc_AbCdEfGh')).not.toBe('Allowed');
    expect(await check('GetItem', 'SIGNING_SECRET#12')).not.toBe('Allowed');
    // `events failed` looks at the dead-letter queue; it never deletes, sends or redrives.
    const deadLetters = queueArn(deadLetterQueueOf(template));
    expect(await decision(document, { action: 'sqs:ReceiveMessage', resource: deadLetters })).toBe('Allowed');
    for (const action of [
      'sqs:DeleteMessage',
      'sqs:SendMessage',
      'sqs:StartMessageMoveTask',
      'sqs:PurgeQueue',
    ])
      expect(await decision(document, { action, resource: deadLetters })).not.toBe('Allowed');
    expect(await check('Query', 'PARTNER#12')).not.toBe('Allowed');
    expect(await check('Query', 'PRODUCTS', `${table}/index/GSI1`)).not.toBe('Allowed');
    expect(await decision(document, { action: 'dynamodb:Scan', resource: table })).not.toBe('Allowed');
  });

  it('lets AWS allow the reads of events sent, by host and by day, of no detail, and nothing else of the outbox', async () => {
    const template = templateOf(stage);
    const [, policy] = operatorPolicy(template);
    const document = resolvedDocument(template, policy.Properties?.PolicyDocument);
    const table = tableArn(tableOf(template));
    const index = `${table}/index/GSI1`;
    type Read = { attributes: readonly string[]; select: string };
    const summary: Read = { attributes: [...OUTBOX_SUMMARY_ATTRIBUTES], select: 'SPECIFIC_ATTRIBUTES' };
    // What a read asks for is a read's context: a write is judged on its keys alone, as AWS does.
    const check = (action: string, leadingKey: string, resource = table, read: Read = summary) =>
      decision(document, {
        action: `dynamodb:${action}`,
        resource,
        leadingKeys: [leadingKey],
        ...(['Query', 'GetItem'].includes(action) ? read : {}),
      });

    expect(await check('Query', 'OUTBOX#7')).toBe('Allowed');
    expect(await check('Query', 'OUTBOX_DAY#2026-11-28', index)).toBe('Allowed');
    // The detail (the e-mail address, names, answers) is not the read-only policy's to read.
    const withDetail = {
      attributes: [...OUTBOX_SUMMARY_ATTRIBUTES, 'detail'],
      select: 'SPECIFIC_ATTRIBUTES',
    };
    expect(await check('Query', 'OUTBOX#7', table, withDetail)).not.toBe('Allowed');
    expect(await check('Query', 'OUTBOX_DAY#2026-11-28', index, withDetail)).not.toBe('Allowed');
    expect(await check('Query', 'OUTBOX#7', table, { attributes: [], select: 'ALL_ATTRIBUTES' })).not.toBe(
      'Allowed',
    );

    // The day partitions live on the index only, the hosts' on the table only.
    expect(await check('Query', 'OUTBOX_DAY#2026-11-28')).not.toBe('Allowed');
    expect(await check('Query', 'OUTBOX#7', index)).not.toBe('Allowed');
    for (const action of ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'])
      expect(await check(action, 'OUTBOX#7')).not.toBe('Allowed');
    expect(await check('Query', 'HOST#7')).not.toBe('Allowed');
  });

  it('acknowledges the "*" of StopQuery with a reason, on the operator policy only', () => {
    const report = synthesized.report.pluginReports.find((plugin) => plugin.pluginName === 'AwsSolutions');
    const findings = (report?.suppressedViolations ?? []).filter((finding) =>
      finding.violatingConstructs.some((construct) =>
        construct.constructPath.startsWith(`PartnerApi-${stage}/OperatorPolicy/`),
      ),
    );

    expect(findings.map((finding) => finding.ruleName)).toEqual(['AwsSolutions-IAM5[Resource::*]']);
    expect(findings[0]?.reason).toMatch(/StopQuery supports no resource type/);
  });
});
