import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  OPERATOR_EVENT_SOURCE,
  PLATFORM_EVENT_SOURCE,
  PLATFORM_EVENT_TYPES,
} from '../../core/contract/platform-events';
import {
  DEAD_LETTER_MIN_DAYS,
  EVENT_BATCH_SIZE,
  EVENT_BATCHING_WINDOW_SECONDS,
  EVENT_CONSUMER_CONCURRENCY,
  EVENT_CONSUMER_TIMEOUT_SECONDS,
  EVENT_DELIVERY_ATTEMPTS,
  EVENT_VISIBILITY_TIMEOUT_SECONDS,
  queueUrlVariable,
} from '../../core/event-delivery';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { addServiceStacks } from '../../lib/partner-api-stack';
import { stageConfig } from '../../lib/stage-config';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp, TEST_DEPLOYMENT, TEST_MAIL_FROM } from './synthesized-app';

/**
 * The platform's events on AWS's own engines (docs/design/events.md#delivery): the bus and its
 * policy, the rule to an encrypted queue with a dead-letter queue, the consumer on the queue with
 * partial batch responses, and the alarms and dashboard an operator needs.
 */
let synthesized: SynthesizedApp;

beforeAll(() => {
  synthesized = synthesizedApp();
});

type Resources = Record<string, { Properties: Record<string, unknown> }>;
const template = (stage: DeployedStage): Template => synthesized.templates[stage];
const resources = (stage: DeployedStage, type: string) => template(stage).findResources(type) as Resources;
const idOf = (found: Resources, prefix: string) => {
  const ids = Object.keys(found).filter((id) => id.startsWith(prefix));
  expect(ids, prefix).toHaveLength(1);
  return ids[0] ?? '';
};

describe.each(DEPLOYED_STAGES)('platform events of PartnerApi-%s', (stage) => {
  const config = stageConfig(stage, TEST_DEPLOYMENT[stage]);

  it('has a bus per stage, and a rule that sends exactly the contract’s events, the platform’s and the operators’, to the queue', () => {
    const assess = template(stage);

    // The platform's bus, and the outbound bus of this service's own events (outbound-events.test.ts).
    assess.resourceCountIs('AWS::Events::EventBus', 2);
    assess.hasResourceProperties('AWS::Events::EventBus', { Name: `partner-api-${stage}-platform-events` });
    const queues = resources(stage, 'AWS::SQS::Queue');
    const queue = idOf(queues, 'PlatformEventsQueue');
    const deadLetters = idOf(queues, 'PlatformEventsDeadLetterQueue');
    assess.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('^PlatformEventsBus') },
      EventPattern: {
        source: [PLATFORM_EVENT_SOURCE, OPERATOR_EVENT_SOURCE],
        'detail-type': [...PLATFORM_EVENT_TYPES],
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [queue, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetters, 'Arn'] } },
        }),
      ],
    });
    // EventBridge may send to the queue, and only for this rule.
    assess.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Condition: {
              ArnEquals: {
                'aws:SourceArn': { 'Fn::GetAtt': [Match.stringLikeRegexp('^PlatformEventsToQueue'), 'Arn'] },
              },
            },
          }),
        ]),
      },
    });
  });

  it('keeps both queues encrypted (SQS-managed keys), TLS-only, and gives up after the delivery attempts', () => {
    const queues = resources(stage, 'AWS::SQS::Queue');
    const deadLetters = idOf(queues, 'PlatformEventsDeadLetterQueue');
    const queue = queues[idOf(queues, 'PlatformEventsQueue')]?.Properties;

    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: EVENT_VISIBILITY_TIMEOUT_SECONDS,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters, 'Arn'] },
        maxReceiveCount: EVENT_DELIVERY_ATTEMPTS,
      },
    });
    expect(queues[deadLetters]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
    // SQS keeps an event's first enqueue time when it dead-letters it: the queue keeps events 4 days,
    // so one dead-lettered at its latest still has 10 days for an operator.
    expect(queue?.MessageRetentionPeriod).toBe(4 * 86_400);
    expect(DEAD_LETTER_MIN_DAYS).toBe(10);
    // No AWS managed KMS key: EventBridge cannot send to a queue encrypted with alias/aws/sqs.
    for (const { Properties } of Object.values(queues)) expect(Properties.KmsMasterKeyId).toBeUndefined();
    for (const policy of Object.values(resources(stage, 'AWS::SQS::QueuePolicy')))
      expect(policy.Properties.PolicyDocument).toMatchObject({
        Statement: expect.arrayContaining([
          expect.objectContaining({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      });
    // AWS: a visibility timeout of at least six times the function's timeout.
    expect(EVENT_VISIBILITY_TIMEOUT_SECONDS).toBeGreaterThanOrEqual(6 * EVENT_CONSUMER_TIMEOUT_SECONDS);
  });

  it('runs the consumer on the queue with partial batch responses, bounded concurrency and the dead-letter queue in its environment', () => {
    const assess = template(stage);
    const functions = resources(stage, 'AWS::Lambda::Function');
    const consumer = Object.entries(functions).find(([, fn]) =>
      (fn.Properties.Tags as { Key: string; Value: string }[]).some((tag) => tag.Value === 'platformEvents'),
    );

    assess.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      // The consumer's `live` alias (`<function name>:live`), which CodeDeploy shifts.
      FunctionName: {
        'Fn::Join': [
          '',
          [
            { 'Fn::Select': [6, { 'Fn::Split': [':', { Ref: Match.stringLikeRegexp('ConsumerLive') }] }] },
            ':live',
          ],
        ],
      },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PlatformEventsQueue'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: EVENT_BATCH_SIZE,
      MaximumBatchingWindowInSeconds: EVENT_BATCHING_WINDOW_SECONDS,
      ScalingConfig: { MaximumConcurrency: EVENT_CONSUMER_CONCURRENCY },
    });
    expect(consumer?.[1].Properties).toMatchObject({
      Timeout: EVENT_CONSUMER_TIMEOUT_SECONDS,
      Environment: {
        Variables: {
          [queueUrlVariable('platformEventsDeadLetter')]: {
            Ref: expect.stringMatching(/^PlatformEventsDeadLetterQueue/),
          },
        },
      },
    });
  });

  it('alarms on any dead-lettered event and on the age of the oldest waiting, and shows both on the dashboard', () => {
    const assess = template(stage);

    assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `PartnerApi-${stage}-events-dead-lettered`,
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PlatformEventsDeadLetterQueue'), 'QueueName'] },
        },
      ],
      Threshold: 1,
    });
    assess.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `PartnerApi-${stage}-events-oldest-age`,
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: config.alarms.oldestEventSeconds,
    });
    const body = JSON.stringify(
      Object.values(resources(stage, 'AWS::CloudWatch::Dashboard'))[0]?.Properties.DashboardBody,
    );
    for (const metric of ['ApproximateNumberOfMessagesVisible', 'ApproximateAgeOfOldestMessage'])
      expect(body).toContain(metric);
  });

  it('outputs the bus and both queues for the operator CLI', () => {
    const outputs = template(stage).findOutputs('*');

    expect(outputs.EventBusName?.Value).toEqual({ Ref: expect.stringMatching(/^PlatformEventsBus/) });
    expect(outputs.PlatformEventsDeadLetterQueueUrl?.Value).toEqual({
      Ref: expect.stringMatching(/^PlatformEventsDeadLetterQueue/),
    });
  });
});

describe('who may publish', () => {
  const synthesizeWith = (publishers: string[]) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const [stack] = addServiceStacks(app, [
      stageConfig('sandbox', { mailFrom: TEST_MAIL_FROM.sandbox, platformEventPublishers: publishers }),
    ]);
    if (!stack) throw new Error('no sandbox stack');
    return Template.fromStack(stack);
  };

  it('lets the platform’s accounts and roles put only the contract’s events on the bus, from host-platform alone (never the operators’ source)', () => {
    const role = 'arn:aws:iam::210987654321:role/host-platform-publisher';
    const assess = synthesizeWith(['210987654321', role]);

    for (const principal of [
      { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::210987654321:root']] },
      role,
    ])
      assess.hasResourceProperties('AWS::Events::EventBusPolicy', {
        Statement: {
          Effect: 'Allow',
          Action: 'events:PutEvents',
          Principal: { AWS: principal },
          Condition: {
            StringEquals: {
              'events:source': [PLATFORM_EVENT_SOURCE],
              'events:detail-type': [...PLATFORM_EVENT_TYPES],
            },
          },
        },
      });
  });

  it('has no bus policy without publishers (the stack’s own account uses IAM), and refuses a publisher that is not an account or a role', () => {
    synthesizeWith([]).resourceCountIs('AWS::Events::EventBusPolicy', 0);
    // Refused with the stage's other settings, before any construct is built.
    expect(() => synthesizeWith(['*'])).toThrow(
      'platformEventPublishers of sandbox must be AWS account ids (12 digits) or IAM role ARNs: "*"',
    );
  });
});
