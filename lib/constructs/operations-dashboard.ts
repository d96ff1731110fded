import { Stack } from 'aws-cdk-lib';
import type { IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Dashboard,
  GraphWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  Metric,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { LEAK_NOTICES_FAILED_METRIC, LEAKED_KEYS_METRIC } from '../../core/contract/secret-scanning';
import type { AccessLogMetrics } from './access-log-metrics';
import { METRIC_PERIOD, publishedMetric } from './access-log-metrics';

import type { OutboundEvents } from './outbound-events';
import type { PartnerApiCanary } from './partner-api-canary';
import type { PlatformEvents } from './platform-events';
import type { ServiceObjectives } from './service-objectives';
import type { ServiceRestApi } from './service-rest-api';

/** The DynamoDB operations the functions and the CLI make (core/routes.ts `access`, transactions). */
const TABLE_OPERATIONS = [
  'GetItem',
  'Query',
  'UpdateItem',
  'PutItem',
  'DeleteItem',
  'TransactWriteItems',
] as const;

interface DashboardApi {
  readonly restApi: ServiceRestApi;
  readonly metrics: AccessLogMetrics;
}

export interface OperationsDashboardProps {
  /** The dashboard's name, e.g. `PartnerApi-sandbox`. */
  readonly name: string;
  /** The REST APIs by a short name, with their access-log metrics. */
  readonly apis: ReadonlyMap<string, DashboardApi>;
  /** The API whose access log carries the partner (authorizer context) of each request. */
  readonly authorizedApi: DashboardApi;
  readonly table: TableV2;
  /** The platform's events: queue depth and age, dead letters, the consumer. */
  readonly platformEvents: Pick<PlatformEvents, 'queue' | 'deadLetterQueue' | 'consumer'>;
  /** This service's own events: the pipe, the lag, both dead-letter queues, the forwarding rule. */
  readonly outboundEvents: Pick<
    OutboundEvents,
    'deadLetterQueue' | 'forwarding' | 'metricPipe' | 'metricForwarding' | 'metricLag'
  >;
  /** The objectives' hourly burn rates, on the stages that alarm on them. @default - no such row */
  readonly objectives?: Pick<ServiceObjectives, 'hourlyBurnRates'>;
  /** The stage's canary: its runs that passed, and how long they took. @default - no canary */
  readonly canary?: Pick<PartnerApiCanary, 'metricSuccessPercent' | 'metricDuration'>;
}

/**
 * The Logs Insights query of the answers of one API, by route and status: the access log's
 * `resourcePath` is the route template (`/partner-api/v1/properties/{propertyId}/pricing-signals`).
 */
export const ANSWERS_BY_ROUTE_QUERY = [
  'fields httpMethod, resourcePath, status',
  'stats count(*) as answers by httpMethod, resourcePath, status',
  'sort answers desc',
  'limit 100',
].join(' | ');

/** The partners (and their keys) that sent the most requests the authorizer let through. */
export const TOP_PARTNERS_QUERY = [
  'filter ispresent(partnerId) and partnerId != "-" and partnerId != ""',
  'stats count(*) as requests by partnerId, keyPrefix',
  'sort requests desc',
  'limit 20',
].join(' | ');

/**
 * The partners answered 429, most first: by the exact per-key limit (a function answered, so the
 * integration status is 200) or by the gateway's throttles (`-`). One partner here is its own loop.
 */
export const THROTTLED_PARTNERS_QUERY = [
  'filter status = 429',
  'stats count(*) as throttled by partnerId, keyPrefix, integrationStatus',
  'sort throttled desc',
  'limit 20',
].join(' | ');

/**
 * One CloudWatch dashboard per stage: what clients were answered (per API and per route),
 * latency, the authorizer and the exact limiter, DynamoDB, the firewall, the platform's events and
 * this service's own, leaked keys revoked, and the partners that send the most. Every widget reads a metric or log group this stack defines. Logs Insights
 * widgets are billed per GB scanned each time the dashboard loads them, so they cover the
 * dashboard's time range only when opened; the graphs are metrics and cost nothing to view.
 */
export class OperationsDashboard extends Construct {
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const widgets: IWidget[][] = [
      [titleWidget(props.name)],
      ...[...props.apis].map(([apiName, api]) => apiWidgets(apiName, api)),
      [
        authorizerWidget(props.authorizedApi.metrics),
        tableWidget(props.table),
        firewallWidget([...props.apis.values()], Stack.of(this).region),
      ],
      platformEventWidgets(props.platformEvents),
      ...outboundEventWidgets(props.outboundEvents),
      [leakedKeysWidget(props.name), ...(props.canary ? [canaryWidget(props.canary)] : [])],
      ...(props.objectives ? [[objectivesWidget(props.objectives)]] : []),
      topPartnersWidgets(props.authorizedApi),
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.name, widgets });
  }
}

/** Keys revoked because a scanner found them in public, and notices that did not go out. */
function leakedKeysWidget(namespace: string): IWidget {
  return new GraphWidget({
    title: 'Leaked keys revoked (secret scanning reports), and notices not sent',
    left: [
      publishedMetric(namespace, LEAKED_KEYS_METRIC).with({ label: 'keys revoked as leaked' }),
      publishedMetric(namespace, LEAK_NOTICES_FAILED_METRIC).with({ label: 'notices not sent' }),
    ],
    width: 8,
  });
}

/** Each objective's error-budget burn rate over the last hour: 1 spends the budget in exactly 30 days. */
function objectivesWidget(objectives: Pick<ServiceObjectives, 'hourlyBurnRates'>): IWidget {
  return new GraphWidget({
    title: 'Objectives: error-budget burn rate over the hour (1 = spends the 30-day budget in 30 days)',
    left: [...objectives.hourlyBurnRates.values()],
    leftAnnotations: [{ value: 1, label: 'on budget' }],
    width: 24,
  });
}

/** The canary's runs: the share that passed (every route as the contract says) and how long each took. */
function canaryWidget(canary: NonNullable<OperationsDashboardProps['canary']>): IWidget {
  return new GraphWidget({
    title: 'Canary: runs passed (%) and run duration (ms)',
    left: [canary.metricSuccessPercent().with({ label: 'runs passed (%)' })],
    right: [canary.metricDuration().with({ label: 'duration' })],
    width: 8,
  });
}

function titleWidget(name: string): IWidget {
  return new TextWidget({
    markdown: [
      `# ${name}`,
      "Answers are counted from the access logs: the status each client received (an authorizer failure is a 503 here, a 4XXError in API Gateway's own metrics). The Logs Insights tables are billed per GB scanned when the dashboard loads them.",
    ].join('\n\n'),
    width: 24,
    height: 2,
  });
}

/** One API's row: its answers as clients received them, by route and status, and its latency. */
function apiWidgets(apiName: string, { restApi, metrics }: DashboardApi): IWidget[] {
  return [
    new GraphWidget({
      title: `${apiName}: answers as clients received them`,
      left: [
        metrics.answers.requests.with({ label: 'requests' }),
        metrics.answers.clientErrors.with({ label: '4xx' }),
        metrics.answers.throttled.with({ label: '429' }),
        metrics.answers.serverErrors.with({ label: '5xx' }),
      ],
      width: 8,
    }),
    new LogQueryWidget({
      title: `${apiName}: answers by route and status`,
      logGroupNames: [restApi.accessLogGroup.logGroupName],
      queryString: ANSWERS_BY_ROUTE_QUERY,
      view: LogQueryVisualizationType.TABLE,
      width: 8,
    }),
    new GraphWidget({
      title: `${apiName}: latency (ms)`,
      left: [
        restApi.api.deploymentStage.metricLatency({
          statistic: Stats.p(50),
          period: METRIC_PERIOD,
          label: 'p50',
        }),
        restApi.api.deploymentStage.metricLatency({
          statistic: Stats.p(99),
          period: METRIC_PERIOD,
          label: 'p99',
        }),
      ],
      width: 8,
    }),
  ];
}

function authorizerWidget({ authorizerFailures, limiterRefusals }: AccessLogMetrics): IWidget {
  return new GraphWidget({
    title: 'Authorizer failures (503) and limiter refusals (429 of the exact per-key limit)',
    left: [
      ...(authorizerFailures ? [authorizerFailures.with({ label: 'authorizer failures' })] : []),
      ...(limiterRefusals ? [limiterRefusals.with({ label: 'limiter refusals' })] : []),
    ],
    width: 8,
  });
}

function tableWidget(table: TableV2): IWidget {
  const tableMetric = (metricName: string, statistic: string, dimensions: Record<string, string> = {}) =>
    new Metric({
      namespace: 'AWS/DynamoDB',
      metricName,
      dimensionsMap: { TableName: table.tableName, ...dimensions },
      statistic,
      period: METRIC_PERIOD,
      label: [metricName, ...Object.values(dimensions)].join(' '),
    });
  return new GraphWidget({
    title: 'DynamoDB: throttles and errors',
    left: [
      tableMetric('ReadThrottleEvents', Stats.SUM),
      tableMetric('WriteThrottleEvents', Stats.SUM),
      ...TABLE_OPERATIONS.map((operation) =>
        tableMetric('SystemErrors', Stats.SUM, { Operation: operation }),
      ),
    ],
    right: [tableMetric('TransactionConflict', Stats.SUM)],
    width: 8,
  });
}

/** Requests each API's web ACL blocked: by any rule, and by the per-IP limit. */
function firewallWidget(apis: readonly DashboardApi[], region: string): IWidget {
  const firewallMetrics = apis.flatMap(({ restApi }) =>
    ['ALL', restApi.firewall.perIpRuleMetricName].map(
      (rule) =>
        new Metric({
          namespace: 'AWS/WAFV2',
          metricName: 'BlockedRequests',
          dimensionsMap: { WebACL: restApi.firewall.webAclName, Region: region, Rule: rule },
          statistic: Stats.SUM,
          period: METRIC_PERIOD,
          label: `${restApi.firewall.webAclName} ${rule === 'ALL' ? 'all rules' : 'per-IP limit'}`,
        }),
    ),
  );
  return new GraphWidget({ title: 'WAF: blocked requests', left: firewallMetrics, width: 8 });
}

/** The platform's events: waiting and dead-lettered, the oldest's age, and the consumer. */
function platformEventWidgets({
  queue,
  deadLetterQueue,
  consumer,
}: OperationsDashboardProps['platformEvents']): IWidget[] {
  const queueMetric = { statistic: Stats.MAXIMUM, period: METRIC_PERIOD };
  return [
    new GraphWidget({
      title: "Platform's events: waiting and dead-lettered",
      left: [
        queue.metricApproximateNumberOfMessagesVisible({ ...queueMetric, label: 'waiting' }),
        queue.metricApproximateNumberOfMessagesNotVisible({ ...queueMetric, label: 'being applied' }),
        deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          ...queueMetric,
          label: 'dead-lettered',
        }),
      ],
      width: 8,
    }),
    new GraphWidget({
      title: "Platform's events: age of the oldest waiting (s)",
      left: [queue.metricApproximateAgeOfOldestMessage({ ...queueMetric, label: 'oldest event' })],
      width: 8,
    }),
    new GraphWidget({
      title: 'Event consumer: invocations, errors, duration (ms)',
      left: [
        consumer.function.metricInvocations({ statistic: Stats.SUM, period: METRIC_PERIOD }),
        consumer.function.metricErrors({ statistic: Stats.SUM, period: METRIC_PERIOD }),
      ],
      right: [
        consumer.function.metricDuration({ statistic: Stats.p(99), period: METRIC_PERIOD, label: 'p99' }),
      ],
      width: 8,
    }),
  ];
}

/**
 * This service's own events: the pipe's executions and failures, the commit-to-delivery lag, what
 * waits in either dead-letter queue, and the forwarding rule's deliveries when the stage has one.
 */
function outboundEventWidgets(outbound: OperationsDashboardProps['outboundEvents']): IWidget[][] {
  const queueMetric = { statistic: Stats.MAXIMUM, period: METRIC_PERIOD };
  const pipe = (metricName: string, label: string) => outbound.metricPipe(metricName, { label });
  const row: IWidget[] = [
    new GraphWidget({
      title: 'Outbound events: pipe invocations, events and failures',
      left: [pipe('Invocations', 'invocations'), pipe('EventCount', 'events')],
      right: [
        pipe('ExecutionFailed', 'failed executions'),
        pipe('EnrichmentStageFailed', 'failed enrichments'),
        pipe('TargetStageFailed', 'failed puts on the bus'),
      ],
      width: 8,
    }),
    new GraphWidget({
      title: 'Outbound events: commit-to-delivery lag (s)',
      left: [
        outbound.metricLag(Stats.p(50), METRIC_PERIOD, 'p50'),
        outbound.metricLag(Stats.p(99), METRIC_PERIOD, 'p99'),
        outbound.metricLag(Stats.MAXIMUM, METRIC_PERIOD, 'max'),
      ],
      width: 8,
    }),
    new GraphWidget({
      title: 'Outbound events: dead-lettered',
      left: [
        outbound.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          ...queueMetric,
          label: 'batches the pipe gave up on',
        }),
        ...(outbound.forwarding
          ? [
              outbound.forwarding.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
                ...queueMetric,
                label: 'events not forwarded to the platform',
              }),
            ]
          : []),
      ],
      width: 8,
    }),
  ];
  const forwarded = (
    [
      ['Invocations', 'forwarded'],
      ['FailedInvocations', 'failed'],
      ['InvocationsSentToDlq', 'dead-lettered'],
      ['InvocationsFailedToBeSentToDlq', 'lost (not even dead-lettered)'],
    ] as const
  ).flatMap(([metricName, label]) => outbound.metricForwarding(metricName, { label }) ?? []);
  if (forwarded.length === 0) return [row];
  return [
    row,
    [
      new GraphWidget({
        title: "Outbound events: forwarding to the platform's bus",
        left: forwarded,
        width: 8,
      }),
    ],
  ];
}

function topPartnersWidgets(authorizedApi: DashboardApi): IWidget[] {
  return [
    new LogQueryWidget({
      title: 'Top partners by requests (partner API access log)',
      logGroupNames: [authorizedApi.restApi.accessLogGroup.logGroupName],
      queryString: TOP_PARTNERS_QUERY,
      view: LogQueryVisualizationType.TABLE,
      width: 12,
    }),
    new LogQueryWidget({
      title: 'Partners answered 429 (a partner over its own limit; several at once alarm)',
      logGroupNames: [authorizedApi.restApi.accessLogGroup.logGroupName],
      queryString: THROTTLED_PARTNERS_QUERY,
      view: LogQueryVisualizationType.TABLE,
      width: 12,
    }),
  ];
}
