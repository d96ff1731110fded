import { Duration } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  AlarmRule,
  AlarmState,
  ComparisonOperator,
  CompositeAlarm,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { API_BASE_PATH, partnerApiRoutes } from '../../core/routes';
import {
  AVAILABILITY_TARGET,
  BURN_ALARMS,
  CANARY_TARGET,
  EVENT_LAG_SECONDS,
  LAG_TARGET,
  LATENCY_TARGET,
  OUTBOUND_LAG_SECONDS,
  ROUTE_LATENCY_MS,
} from '../service-objectives';
import { acknowledgeGuardFinding } from './nag';
import type { OutboundEvents } from './outbound-events';
import type { PartnerApiCanary } from './partner-api-canary';
import type { PlatformEvents } from './platform-events';
import type { ServiceFunction } from './service-function';
import type { ServiceRestApi } from './service-rest-api';

/** One objective: the share of good events it promises, and the share of bad ones over a window. */
interface Objective {
  /** In alarm names: `<stack>-slo-<id>-<severity>-burn`. */
  readonly id: string;
  readonly description: string;
  readonly target: number;
  /** The share (0–1) of the window's events that were bad; 0 when there were none. */
  readonly badShare: (period: Duration) => IMetric;
}

export interface ServiceObjectivesProps {
  /** Prefix of alarm names and namespace of the log-derived metrics, e.g. `PartnerApi-production`. */
  readonly name: string;
  readonly partnerApi: ServiceRestApi;
  /** Each partner API route's function, by route id. */
  readonly routeFunctions: ReadonlyMap<string, ServiceFunction>;
  readonly platformEvents: Pick<PlatformEvents, 'metricLag' | 'deadLetterQueue'>;
  readonly outboundEvents: Pick<OutboundEvents, 'metricLag' | 'deadLetterQueue'>;
  /** The stage's canary, whose runs are an objective too. */
  readonly canary: Pick<PartnerApiCanary, 'metricSuccessPercent'>;
  /** @default - the burn alarms notify no one */
  readonly alarmTopicArn?: string;
}

/**
 * The objectives of lib/service-objectives.ts, measured and alarmed on the rate their error budget
 * burns: for each, and each of `BURN_ALARMS`, the burn rate (bad share ÷ the budget's share) over a
 * long and a short window, and a composite alarm that is red when both are
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Create_Composite_Alarm.html). The
 * composite notifies the stage's topic; its two parts notify no one.
 *
 * - availability per route: 5xx answers ÷ answers of the route, counted by metric filters on the
 *   access log's `resourcePath` and `status`;
 * - latency per route, and the lag of the two event flows: 100 − the percentile rank `PR(:bound)` of
 *   the route function's `Duration`, or of the lag metric, is the share above the bound
 *   (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Statistics-definitions.html).
 */
export class ServiceObjectives extends Construct {
  /** Every objective's composite burn alarms. */
  public readonly burnAlarms: CompositeAlarm[] = [];
  /** Each objective's burn rate over an hour, for the dashboard, by its id. */
  public readonly hourlyBurnRates: ReadonlyMap<string, IMetric>;

  constructor(scope: Construct, id: string, props: ServiceObjectivesProps) {
    super(scope, id);
    const objectives = [...this.routeObjectives(props), ...eventObjectives(props)];
    const action = props.alarmTopicArn
      ? new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn))
      : undefined;
    for (const objective of objectives)
      for (const burn of BURN_ALARMS) {
        const part = (window: 'long' | 'short', minutes: number) =>
          new Alarm(this, `${objective.id}${burn.severity}${window}`, {
            alarmName: `${props.name}-slo-${objective.id}-${burn.severity}-burn-${minutes}m`,
            alarmDescription: `${objective.description}: its error budget burned at least ${burn.burnRate}× over ${minutes} minutes (part of the ${burn.severity}-burn alarm).`,
            metric: burnRate(objective, Duration.minutes(minutes)),
            threshold: burn.burnRate,
            comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluationPeriods: 1,
            treatMissingData: TreatMissingData.NOT_BREACHING,
          });
        const long = part('long', burn.longMinutes);
        const short = part('short', burn.shortMinutes);
        const composite = new CompositeAlarm(this, `${objective.id}${burn.severity}Burn`, {
          compositeAlarmName: `${props.name}-slo-${objective.id}-${burn.severity}-burn`,
          alarmDescription: `${objective.description}: its 30-day error budget is burning at ${burn.burnRate}× or more, over ${burn.longMinutes} minutes and still over the last ${burn.shortMinutes} (docs/deploying.md#service-objectives).`,
          alarmRule: AlarmRule.allOf(
            AlarmRule.fromAlarm(long, AlarmState.ALARM),
            AlarmRule.fromAlarm(short, AlarmState.ALARM),
          ),
        });
        if (action) {
          composite.addAlarmAction(action);
          composite.addOkAction(action);
        }
        this.burnAlarms.push(composite);
      }
    acknowledgeGuardFinding(
      this,
      'cloudwatch_alarm_action_check',
      'The windows of a burn-rate alarm are its parts: the composite alarm of the two notifies the stage topic ' +
        '(when the deployment gives one); each part alone is not an incident and notifies no one.',
    );
    this.hourlyBurnRates = new Map(
      objectives.map((objective) => [objective.id, burnRate(objective, Duration.hours(1))]),
    );
  }

  /** Availability and latency of each partner API route. */
  private routeObjectives(props: ServiceObjectivesProps): Objective[] {
    return partnerApiRoutes.flatMap((route) => {
      const routeFunction = props.routeFunctions.get(route.id);
      if (!routeFunction) throw new Error(`No function for the ${route.id} route`);
      const resourcePath = FilterPattern.stringValue('$.resourcePath', '=', API_BASE_PATH + route.path);
      const count = (filterId: string, metricName: string, pattern = resourcePath) =>
        props.partnerApi.accessLogGroup.addMetricFilter(filterId, {
          filterPattern: pattern,
          metricNamespace: props.name,
          metricName,
          metricValue: '1',
          defaultValue: 0,
        });
      const answers = count(`${route.id}AnswersFilter`, `${route.id}Answers`);
      const serverErrors = count(
        `${route.id}ServerErrorsFilter`,
        `${route.id}5xx`,
        FilterPattern.all(resourcePath, FilterPattern.numberValue('$.status', '>=', 500)),
      );
      const boundMs = ROUTE_LATENCY_MS[route.id];
      return [
        {
          id: `${route.id}-availability`,
          description: `${AVAILABILITY_TARGET * 100}% of ${route.method} ${route.path} answered without a 5xx`,
          target: AVAILABILITY_TARGET,
          badShare: (period: Duration) =>
            new MathExpression({
              expression: `IF(${route.id}_answers > 0, ${route.id}_errors / ${route.id}_answers, 0)`,
              usingMetrics: {
                [`${route.id}_answers`]: answers.metric({ statistic: Stats.SUM, period }),
                [`${route.id}_errors`]: serverErrors.metric({ statistic: Stats.SUM, period }),
              },
              period,
            }),
        },
        {
          id: `${route.id}-latency`,
          description: `${LATENCY_TARGET * 100}% of ${route.method} ${route.path} handled within ${boundMs} ms`,
          target: LATENCY_TARGET,
          badShare: (period: Duration) =>
            shareAbove(
              `${route.id}_latency`,
              routeFunction.function.metricDuration({ statistic: Stats.percentileRank(boundMs), period }),
              period,
            ),
        },
      ];
    });
  }
}

/**
 * The lag of the platform's events to the API, of this service's events to the platform, and the
 * canary's runs (their `SuccessPercent`, averaged over the window, is 100 − the share that failed; a
 * window without a run counts as failed, as the canary's own alarm counts a missing run).
 *
 * An event that is never applied (or never delivered) has no lag to measure: what its flow's
 * dead-letter queue was sent in the window counts as late too. A flow that stalls outright sends
 * neither: the `events-oldest-age` and `outbound-delivery-failed` alarms watch that.
 */
function eventObjectives(props: ServiceObjectivesProps): Objective[] {
  return [
    {
      id: 'canary',
      description: `${CANARY_TARGET * 100}% of the canary's runs passing (every route, as the contract says)`,
      target: CANARY_TARGET,
      badShare: (period) =>
        new MathExpression({
          expression: '(100 - FILL(canary_passed, 0)) / 100',
          usingMetrics: { canary_passed: props.canary.metricSuccessPercent().with({ period }) },
          period,
        }),
    },
    lagObjective(
      'event-lag',
      `the platform's events applied within ${EVENT_LAG_SECONDS} s of their publish`,
      EVENT_LAG_SECONDS,
      props.platformEvents,
    ),
    lagObjective(
      'outbound-lag',
      `this service's events on the outbound bus within ${OUTBOUND_LAG_SECONDS} s of their commit`,
      OUTBOUND_LAG_SECONDS,
      props.outboundEvents,
    ),
  ];
}

/**
 * The share (0–1) of data points above a bound, from the percentile rank at the bound; 0 with none.
 * Ids are the objective's own (`<name>_rank`): the dashboard graphs every objective in one widget,
 * where two metrics may not share an id.
 */
function shareAbove(name: string, percentileRank: IMetric, period: Duration): IMetric {
  return new MathExpression({
    expression: `(100 - FILL(${name}_rank, 100)) / 100`,
    usingMetrics: { [`${name}_rank`]: percentileRank },
    period,
  });
}

/** An event flow's lag objective: its events within `boundSeconds`, the dead-lettered counted late. */
function lagObjective(
  id: string,
  what: string,
  boundSeconds: number,
  flow: Pick<PlatformEvents | OutboundEvents, 'metricLag' | 'deadLetterQueue'>,
): Objective {
  return {
    id,
    description: `${LAG_TARGET * 100}% of ${what}`,
    target: LAG_TARGET,
    badShare: (period) =>
      lateShare(id.replace(/-/g, '_'), period, {
        rank: flow.metricLag(Stats.percentileRank(boundSeconds), period),
        measured: flow.metricLag(Stats.SAMPLE_COUNT, period),
        deadLettered: flow.deadLetterQueue.metricNumberOfMessagesSent({ statistic: Stats.SUM, period }),
      }),
  };
}

/**
 * The share (0–1) of a flow's events that were late: those measured above the bound (100 − the
 * percentile rank at it, of the `measured` many) and those dead-lettered, of both; 0 with none.
 */
function lateShare(
  name: string,
  period: Duration,
  metrics: { readonly rank: IMetric; readonly measured: IMetric; readonly deadLettered: IMetric },
): IMetric {
  const [rank, measured, dead] = [`${name}_rank`, `${name}_measured`, `${name}_dead`];
  const late = `(100 - FILL(${rank}, 100)) / 100 * FILL(${measured}, 0) + FILL(${dead}, 0)`;
  const all = `FILL(${measured}, 0) + FILL(${dead}, 0)`;
  return new MathExpression({
    expression: `IF(${all} > 0, (${late}) / (${all}), 0)`,
    usingMetrics: { [rank]: metrics.rank, [measured]: metrics.measured, [dead]: metrics.deadLettered },
    period,
  });
}

/** How many times faster than the budget allows the objective's bad share grew over `period`. */
function burnRate(objective: Objective, period: Duration): IMetric {
  return new MathExpression({
    label: `${objective.id} burn rate`,
    expression: `${idOf(objective)}_bad / ${+(1 - objective.target).toFixed(6)}`,
    usingMetrics: { [`${idOf(objective)}_bad`]: objective.badShare(period) },
    period,
  });
}

/** An objective's id as a metric math id (`usage_availability`). */
function idOf(objective: Objective): string {
  return objective.id.replace(/-/g, '_');
}
