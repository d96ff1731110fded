import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { EventBus as EventBusTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
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
} from '../../core/outbound-delivery';
import { OUTBOUND_ENRICHMENT } from '../../core/routes';
import { METRIC_PERIOD, publishedMetric } from './access-log-metrics';
import {
  acknowledgeGuardFinding,
  acknowledgeLogGroupEncryption,
  acknowledgeNagFinding,
  acknowledgeShortLogRetention,
} from './nag';
import type { AccessResources, FunctionSettings } from './service-function';
import { ServiceFunction } from './service-function';

export interface OutboundEventsProps {
  /** The table (its stream is the pipe's source), index and secrets the enrichment's grants refer to. */
  readonly resources: AccessResources;
  readonly functionSettings: FunctionSettings;
  /** Names the bus (`partner-api-<stage>-service-events`) and the pipe (`partner-api-<stage>-outbox`). */
  readonly stage: string;
  /** The CloudWatch namespace of the enrichment's lag metric (the stack's name, as its log-derived metrics). */
  readonly metricsNamespace: string;
  /**
   * The platform's event bus (an ARN, another account allowed) that a rule forwards every event of
   * the outbound bus to. @default - none: the events stay on the outbound bus
   */
  readonly platformEventBus?: string;
}

/** What forwards the outbound bus's events to the platform's bus. */
export interface Forwarding {
  readonly rule: Rule;
  /** What EventBridge assumes to put the events on the platform's bus. */
  readonly role: Role;
  /** Events the rule could not put on the platform's bus after EventBridge's own retries. */
  readonly deadLetterQueue: Queue;
}

/** An encrypted (SSE-SQS), TLS-only queue that only takes what could not be delivered. */
function deadLetterQueueOf(scope: Construct, id: string, retentionDays: number, whose: string): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(retentionDays),
    // No SQS queue dead-letters here: only the pipe or the rule sends to it.
    redriveAllowPolicy: { redrivePermission: RedrivePermission.DENY_ALL },
  });
  const reason =
    `This queue is the dead-letter queue of ${whose} (its DeadLetterConfig): the end of the line, where an alarm ` +
    'fires on the first message; a dead-letter queue of its own would only move what waits here elsewhere.';
  acknowledgeNagFinding(
    queue,
    'SQS3',
    `${reason} cdk-nag only counts queues named by a queue's or function's DLQ.`,
  );
  acknowledgeGuardFinding(
    queue,
    'sqs_dlq_check',
    `${reason} CT.SQS.PR.1 knows a dead-letter queue only by a RedriveAllowPolicy that lets source queues use it, ` +
      'and none may (denyAll): only the pipe or the rule sends here.',
  );
  return queue;
}

/**
 * The events this service sends, on AWS's own engines (docs/design/events.md): the table's
 * keys-only stream is the source of an EventBridge Pipe that keeps the outbox items' inserts
 * (`OUTBOX_FILTER`), reads each with the enrichment function and puts what it returns on the
 * stage's outbound bus; with `platformEventBus`, a rule on that bus forwards the events there.
 *
 * A pipe's event bus target must be in the pipe's own account and Region
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-event-target.html): the
 * platform's bus, in another account, is reached by a rule, whose bus target may be in another
 * account when the receiving bus's resource policy allows it
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-cross-account.html).
 */
export class OutboundEvents extends Construct {
  public readonly bus: EventBus;
  public readonly enrichment: ServiceFunction;
  public readonly pipe: CfnPipe;
  /** The pipe's name: the `PipeName` dimension of its metrics. */
  public readonly pipeName: string;
  /** What the pipe runs as: the stream, the enrichment, the bus, its dead-letter queue and log group. */
  public readonly pipeRole: Role;
  /** The pipe's own log lines: its errors, without the events' payload. */
  public readonly pipeLogGroup: LogGroup;
  /** The batches the pipe gave up on (stream metadata, not the events: the outbox items keep those). */
  public readonly deadLetterQueue: Queue;
  public readonly forwarding?: Forwarding;
  private readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: OutboundEventsProps) {
    super(scope, id);
    this.metricsNamespace = props.metricsNamespace;
    this.bus = new EventBus(this, 'Bus', {
      eventBusName: `partner-api-${props.stage}-service-events`,
      description: 'The events this service sends the platform, from its outbox (docs/design/events.md)',
    });
    this.enrichment = new ServiceFunction(this, 'Enrichment', {
      ...props.functionSettings,
      name: OUTBOUND_ENRICHMENT.id,
      entry: OUTBOUND_ENRICHMENT.entry,
      description: "Reads the outbox items the table's stream names, for the pipe that sends them",
    });
    this.enrichment.grantAccess(OUTBOUND_ENRICHMENT.access, props.resources);
    // The lag metric's namespace (embedded metric format); its `service` dimension is POWERTOOLS_SERVICE_NAME.
    this.enrichment.function.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', props.metricsNamespace);
    // Kept as long as the outbox items the dead-lettered batches name, which an operator sends again.
    this.deadLetterQueue = deadLetterQueueOf(
      this,
      'DeadLetterQueue',
      OUTBOX_RETENTION_DAYS,
      'the outbound pipe',
    );
    // Kept and removed as the functions' logs are.
    const logRetention = props.functionSettings.logRetention ?? RetentionDays.ONE_MONTH;
    this.pipeLogGroup = new LogGroup(this, 'PipeLogs', {
      retention: logRetention,
      removalPolicy: props.functionSettings.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    acknowledgeLogGroupEncryption(this.pipeLogGroup);
    acknowledgeShortLogRetention(this.pipeLogGroup, logRetention);
    this.pipeName = `partner-api-${props.stage}-outbox`;
    const streamArn = props.resources.table.tableStreamArn;
    if (!streamArn) throw new Error('The outbound pipe reads the table’s stream: the table has none.');
    this.pipeRole = this.pipeRoleOf(streamArn);
    this.pipe = this.pipeOf(streamArn);
    if (props.platformEventBus) this.forwarding = this.forwardingTo(props.platformEventBus);
  }

  /**
   * Only what the pipe does (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-permissions.html):
   * read the table's stream, invoke the enrichment, put on the outbound bus, send a failed batch's
   * record to its dead-letter queue, and write its log lines.
   */
  private pipeRoleOf(streamArn: string): Role {
    const role = new Role(this, 'PipeRole', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `Runs the outbound pipe ${this.pipeName}: stream, enrichment, outbound bus, dead-letter queue`,
    });
    const allow = (actions: string[], resources: string[]) =>
      role.addToPrincipalPolicy(new PolicyStatement({ actions, resources }));
    allow(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], [streamArn]);
    // ListStreams has no resource type (Service Authorization Reference): on a stream's ARN it would allow nothing.
    allow(['dynamodb:ListStreams'], ['*']);
    // The `live` alias, the ARN the pipe invokes (a qualified ARN: the grant names it exactly).
    allow(['lambda:InvokeFunction'], [this.enrichment.live.functionArn]);
    allow(['events:PutEvents'], [this.bus.eventBusArn]);
    allow(['sqs:SendMessage'], [this.deadLetterQueue.queueArn]);
    // As CDK's own Pipes construct grants a CloudWatch Logs destination (CloudwatchLogsLogDestination.grantPush).
    allow(['logs:CreateLogStream', 'logs:PutLogEvents'], [this.pipeLogGroup.logGroupArn]);
    acknowledgeNagFinding(
      role,
      'IAM5[Resource::*]',
      'dynamodb:ListStreams supports no resource type (Service Authorization Reference), so "*" is the only way ' +
        'to grant it; it lists stream ARNs and reads no record. Every other action of the pipe role names its resource.',
    );
    return role;
  }

  /**
   * The pipe, settings from core/outbound-delivery.ts. An event bus target takes batches of at most 10
   * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html);
   * the stream source's retry and age limits:
   * https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeSourceDynamoDBStreamParameters.html
   */
  private pipeOf(streamArn: string): CfnPipe {
    const pipe = new CfnPipe(this, 'Pipe', {
      name: this.pipeName,
      description: "The outbox's events, from the table's stream to the stage's outbound bus",
      roleArn: this.pipeRole.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: OUTBOUND_BATCH_SIZE,
          maximumBatchingWindowInSeconds: OUTBOUND_BATCHING_WINDOW_SECONDS,
          maximumRetryAttempts: OUTBOUND_MAXIMUM_RETRY_ATTEMPTS,
          maximumRecordAgeInSeconds: OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS,
          onPartialBatchItemFailure: 'AUTOMATIC_BISECT',
          deadLetterConfig: { arn: this.deadLetterQueue.queueArn },
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(OUTBOX_FILTER) }] },
      },
      enrichment: this.enrichment.live.functionArn,
      target: this.bus.eventBusArn,
      targetParameters: {
        eventBridgeEventBusParameters: {
          source: OUTBOUND_TARGET.source,
          detailType: OUTBOUND_TARGET.detailType,
          time: OUTBOUND_TARGET.time,
        },
        inputTemplate: OUTBOUND_TARGET.inputTemplate,
      },
      // Errors only, and never the execution data (the events' details name hosts).
      logConfiguration: {
        level: 'ERROR',
        cloudwatchLogsLogDestination: { logGroupArn: this.pipeLogGroup.logGroupArn },
      },
    });
    // Created once its role may read the stream: Pipes checks the source when it creates the pipe.
    pipe.node.addDependency(this.pipeRole);
    return pipe;
  }

  /**
   * A rule on the outbound bus that sends every event of the contract (`FORWARDING_PATTERN`) to the
   * platform's bus, as a role EventBridge assumes (AWS recommends a role whenever a rule's target is
   * an event bus: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-bus-perms.html),
   * with a dead-letter queue for what it still cannot deliver after EventBridge's retries.
   */
  private forwardingTo(platformEventBusArn: string): Forwarding {
    // As long as SQS keeps anything: the platform's side may take days to fix its bus policy.
    const deadLetterQueue = deadLetterQueueOf(
      this,
      'ForwardingDeadLetterQueue',
      DEAD_LETTER_RETENTION_DAYS,
      'the rule that forwards to the platform',
    );
    const role = new Role(this, 'ForwardingRole', {
      // Only EventBridge acting for this account (its rules), as the pipe's role.
      assumedBy: new ServicePrincipal('events.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description:
        "Puts this service's events on the platform's event bus (the outbound bus's forwarding rule)",
    });
    const rule = new Rule(this, 'ToPlatform', {
      eventBus: this.bus,
      description: "Every event this service sends, to the platform's event bus",
      eventPattern: {
        source: [...FORWARDING_PATTERN.source],
        detailType: [...FORWARDING_PATTERN['detail-type']],
      },
      targets: [
        new EventBusTarget(EventBus.fromEventBusArn(this, 'PlatformBus', platformEventBusArn), {
          role,
          deadLetterQueue,
        }),
      ],
    });
    return { rule, role, deadLetterQueue };
  }

  /**
   * A metric of the pipe (namespace AWS/EventBridge/Pipes, by its name:
   * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-monitoring.html).
   */
  metricPipe(metricName: string, options: MetricOptions = {}): Metric {
    return new Metric({
      namespace: 'AWS/EventBridge/Pipes',
      metricName,
      dimensionsMap: { PipeName: this.pipeName },
      statistic: Stats.SUM,
      period: METRIC_PERIOD,
      ...options,
    });
  }

  /**
   * A metric of the forwarding rule (namespace AWS/Events; a rule on a custom bus has the
   * dimensions RuleName and EventBusName:
   * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-monitoring.html), if there is one.
   */
  metricForwarding(metricName: string, options: MetricOptions = {}): Metric | undefined {
    if (!this.forwarding) return undefined;
    return new Metric({
      namespace: 'AWS/Events',
      metricName,
      dimensionsMap: { RuleName: this.forwarding.rule.ruleName, EventBusName: this.bus.eventBusName },
      statistic: Stats.SUM,
      period: METRIC_PERIOD,
      ...options,
    });
  }

  /** Seconds from each event's commit to its delivery, as the enrichment publishes it. */
  metricLag(statistic: string, period: Duration = METRIC_PERIOD, label?: string): Metric {
    return publishedMetric(this.metricsNamespace, OUTBOUND_LAG_METRIC, statistic, period, label);
  }
}
