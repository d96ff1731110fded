import { Duration } from 'aws-cdk-lib';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { IPrincipal } from 'aws-cdk-lib/aws-iam';
import { AccountPrincipal, ArnPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  CONSUMER_EVENT_PATTERN,
  PLATFORM_EVENT_SOURCE,
  PLATFORM_EVENT_TYPES,
} from '../../core/contract/platform-events';
import {
  DEAD_LETTER_RETENTION_DAYS,
  EVENT_BATCH_SIZE,
  EVENT_BATCHING_WINDOW_SECONDS,
  EVENT_CONSUMER_CONCURRENCY,
  EVENT_CONSUMER_TIMEOUT_SECONDS,
  EVENT_DELIVERY_ATTEMPTS,
  EVENT_QUEUE_RETENTION_DAYS,
  EVENT_VISIBILITY_TIMEOUT_SECONDS,
  PLATFORM_EVENT_LAG_METRIC,
} from '../../core/event-delivery';
import { EVENT_CONSUMER } from '../../core/routes';
import { isEventPublisher } from '../stage-config';
import { METRIC_PERIOD, publishedMetric } from './access-log-metrics';
import type { AccessResources, FunctionSettings } from './service-function';
import { ServiceFunction } from './service-function';

export interface PlatformEventsProps {
  /** The table, index and secrets the consumer's grants refer to. */
  readonly resources: AccessResources;
  readonly functionSettings: FunctionSettings;
  /** Names the bus: `partner-api-<stage>-platform-events`. */
  readonly stage: string;
  /**
   * Who else may put events on the bus: AWS account ids (12 digits) or IAM role ARNs of the
   * platform. Principals of this stack's own account need only an IAM policy, as always.
   * @default - none
   */
  readonly publishers?: readonly string[];
  /** The CloudWatch namespace of the consumer's lag metric (the stack's name, as its log-derived metrics). */
  readonly metricsNamespace: string;
}

/** A publisher of the stage configuration as an IAM principal: an account, or a role. */
function publisherPrincipal(publisher: string): IPrincipal {
  if (!isEventPublisher(publisher))
    throw new Error(
      `A platform event publisher must be an AWS account id (12 digits) or an IAM role ARN; got "${publisher}".`,
    );
  return /^\d{12}$/.test(publisher) ? new AccountPrincipal(publisher) : new ArnPrincipal(publisher);
}

/**
 * The platform's events, on AWS's own engines (docs/design/events.md#delivery): an EventBridge
 * bus whose resource policy lets the platform put the contract's events; a rule that sends them
 * to an SQS queue with a dead-letter queue; the consumer function on the queue with partial batch
 * responses (`ReportBatchItemFailures`), so one event that fails never fails or delays the others.
 * Both queues are encrypted with SQS-managed keys (which EventBridge can send to, unlike the AWS
 * managed KMS key) and refuse anything but TLS.
 */
export class PlatformEvents extends Construct {
  public readonly bus: EventBus;
  public readonly rule: Rule;
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly consumer: ServiceFunction;
  private readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: PlatformEventsProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', {
      eventBusName: `partner-api-${props.stage}-platform-events`,
      description: "The host platform's events about hosts after onboarding (docs/design/events.md)",
    });
    for (const [index, publisher] of (props.publishers ?? []).entries()) {
      this.bus.addToResourcePolicy(
        new PolicyStatement({
          sid: `PlatformPublisher${index + 1}`,
          principals: [publisherPrincipal(publisher)],
          actions: ['events:PutEvents'],
          resources: [this.bus.eventBusArn],
          // Only the contract's events, from the platform's source.
          conditions: {
            StringEquals: {
              'events:source': [PLATFORM_EVENT_SOURCE],
              'events:detail-type': PLATFORM_EVENT_TYPES,
            },
          },
        }),
      );
    }

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(DEAD_LETTER_RETENTION_DAYS),
      // `events redrive` moves its messages back to the consumer's queue (a message move task).
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(EVENT_VISIBILITY_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(EVENT_QUEUE_RETENTION_DAYS),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: EVENT_DELIVERY_ATTEMPTS },
    });

    this.rule = new Rule(this, 'ToQueue', {
      eventBus: this.bus,
      description: "The contract's events (the platform's, and the operators' own), to the consumer's queue",
      eventPattern: {
        source: [...CONSUMER_EVENT_PATTERN.source],
        detailType: [...CONSUMER_EVENT_PATTERN['detail-type']],
      },
      // What EventBridge cannot deliver to the queue, after its own retries, waits with the rest.
      targets: [new SqsQueue(this.queue, { deadLetterQueue: this.deadLetterQueue })],
    });

    this.consumer = new ServiceFunction(this, 'Consumer', {
      ...props.functionSettings,
      name: EVENT_CONSUMER.id,
      entry: EVENT_CONSUMER.entry,
      description: "Applies the platform's events (seats, properties, sponsorships, reservations, erasures)",
      timeout: Duration.seconds(EVENT_CONSUMER_TIMEOUT_SECONDS),
    });
    this.consumer.function.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', props.metricsNamespace);
    this.metricsNamespace = props.metricsNamespace;
    this.consumer.grantAccess(EVENT_CONSUMER.access, {
      ...props.resources,
      queues: { platformEvents: this.queue, platformEventsDeadLetter: this.deadLetterQueue },
    });
    // On the `live` alias, so CodeDeploy shifts the events with the rest (docs/deploying.md#safe-deployments).
    this.consumer.live.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: EVENT_BATCH_SIZE,
        maxBatchingWindow: Duration.seconds(EVENT_BATCHING_WINDOW_SECONDS),
        reportBatchItemFailures: true,
        maxConcurrency: EVENT_CONSUMER_CONCURRENCY,
      }),
    );
  }

  /**
   * The consumer's lag of each applied event from the platform's publish (seconds; embedded metric
   * format, so percentiles and percentile ranks apply): the event-lag objective's measure.
   */
  metricLag(statistic: string, period: Duration = METRIC_PERIOD, label?: string): Metric {
    return publishedMetric(this.metricsNamespace, PLATFORM_EVENT_LAG_METRIC, statistic, period, label);
  }
}
