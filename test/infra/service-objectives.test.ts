import { beforeAll, describe, expect, it } from 'vitest';
import { API_BASE_PATH, partnerApiRoutes } from '../../core/routes';
import {
  BURN_ALARMS,
  EVENT_LAG_SECONDS,
  OUTBOUND_LAG_SECONDS,
  ROUTE_LATENCY_MS,
} from '../../lib/service-objectives';
import { stackName } from '../../lib/stage-config';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp } from './synthesized-app';

interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}
interface MetricDataQuery {
  readonly Id: string;
  readonly Expression?: string;
  readonly MetricStat?: { Metric: { MetricName: string; Namespace: string }; Period: number; Stat: string };
}

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizedApp();
});

const resourcesOf = (stage: 'sandbox' | 'production', type: string) =>
  Object.entries(synthesized.templates[stage].findResources(type)) as [string, CfnResource][];

const OBJECTIVES = [
  ...partnerApiRoutes.flatMap((route) => [`${route.id}-availability`, `${route.id}-latency`]),
  'event-lag',
  'outbound-lag',
  'canary',
];

describe('service objectives (production)', () => {
  const prefix = stackName('production');
  const alarmByName = () =>
    new Map(
      resourcesOf('production', 'AWS::CloudWatch::Alarm').map(([id, alarm]) => [
        String(alarm.Properties.AlarmName),
        { id, ...alarm },
      ]),
    );

  it('has a fast and a slow burn alarm per objective, each red only when its long and short windows are, notifying the topic', () => {
    const composites = new Map(
      resourcesOf('production', 'AWS::CloudWatch::CompositeAlarm').map(([, alarm]) => [
        String(alarm.Properties.AlarmName),
        alarm,
      ]),
    );
    const alarms = alarmByName();
    expect(composites.size).toBe(OBJECTIVES.length * BURN_ALARMS.length);
    for (const objective of OBJECTIVES)
      for (const burn of BURN_ALARMS) {
        const composite = composites.get(`${prefix}-slo-${objective}-${burn.severity}-burn`);
        expect(composite, `${objective} ${burn.severity}`).toBeDefined();
        expect(composite?.Properties.AlarmActions).toEqual(['arn:aws:sns:eu-west-1:123456789012:ops-alarms']);
        const rule = JSON.stringify(composite?.Properties.AlarmRule);
        for (const [window, minutes] of [
          ['long', burn.longMinutes],
          ['short', burn.shortMinutes],
        ] as const) {
          const part = alarms.get(`${prefix}-slo-${objective}-${burn.severity}-burn-${minutes}m`);
          expect(part, `${objective} ${burn.severity} ${window}`).toBeDefined();
          expect(rule).toContain(part?.id);
          expect(part?.Properties).toMatchObject({
            Threshold: burn.burnRate,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            EvaluationPeriods: 1,
            TreatMissingData: 'notBreaching',
          });
          // The part notifies no one: the composite does.
          expect(part?.Properties.AlarmActions).toBeUndefined();
          const queries = part?.Properties.Metrics as MetricDataQuery[];
          for (const query of queries.filter((entry) => entry.MetricStat))
            expect(query.MetricStat?.Period, `${objective} ${window}`).toBe(minutes * 60);
        }
      }
  });

  it('measures availability by route from the access log, and divides by the budget’s share', () => {
    const filters = resourcesOf('production', 'AWS::Logs::MetricFilter').map(
      ([, filter]) => filter.Properties,
    );
    for (const route of partnerApiRoutes) {
      const path = `"${API_BASE_PATH}${route.path}"`;
      const answers = filters.find(
        (filter) =>
          (filter.MetricTransformations as { MetricName: string }[])[0]?.MetricName === `${route.id}Answers`,
      );
      const errors = filters.find(
        (filter) =>
          (filter.MetricTransformations as { MetricName: string }[])[0]?.MetricName === `${route.id}5xx`,
      );
      expect(answers?.FilterPattern).toBe(`{ $.resourcePath = ${path} }`);
      expect(errors?.FilterPattern).toBe(`{ ($.resourcePath = ${path}) && ($.status >= 500) }`);
      const fast = alarmByName().get(`${prefix}-slo-${route.id}-availability-fast-burn-60m`);
      const expressions = ((fast?.Properties.Metrics ?? []) as MetricDataQuery[]).map(
        (query) => query.Expression,
      );
      expect(expressions).toContain(`${route.id}_availability_bad / 0.001`);
      expect(expressions).toContain(
        `IF(${route.id}_answers > 0, ${route.id}_errors / ${route.id}_answers, 0)`,
      );
    }
  });

  it('measures latency and lag as the share above their bound (100 − the percentile rank at it)', () => {
    const queriesOf = (name: string) =>
      (alarmByName().get(`${prefix}-slo-${name}-slow-burn-360m`)?.Properties.Metrics ??
        []) as MetricDataQuery[];
    const statsOf = (name: string) =>
      queriesOf(name).flatMap((query) => (query.MetricStat ? [query.MetricStat] : []));
    for (const route of partnerApiRoutes)
      expect(statsOf(`${route.id}-latency`)).toEqual([
        expect.objectContaining({
          Metric: expect.objectContaining({ Namespace: 'AWS/Lambda', MetricName: 'Duration' }),
          Stat: `PR(:${ROUTE_LATENCY_MS[route.id]})`,
        }),
      ]);
    // A flow's late share: measured above the bound, and dead-lettered (never applied or delivered).
    for (const [name, metricName, bound] of [
      ['event-lag', 'PlatformEventLagSeconds', EVENT_LAG_SECONDS],
      ['outbound-lag', 'OutboundLagSeconds', OUTBOUND_LAG_SECONDS],
    ] as const) {
      expect(statsOf(name)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Metric: expect.objectContaining({ Namespace: prefix, MetricName: metricName }),
            Stat: `PR(:${bound})`,
          }),
          expect.objectContaining({
            Metric: expect.objectContaining({ Namespace: prefix, MetricName: metricName }),
            Stat: 'SampleCount',
          }),
          expect.objectContaining({
            Metric: expect.objectContaining({ Namespace: 'AWS/SQS', MetricName: 'NumberOfMessagesSent' }),
            Stat: 'Sum',
          }),
        ]),
      );
      const id = name.replace('-', '_');
      expect(queriesOf(name).map((query) => query.Expression)).toContain(
        `IF(FILL(${id}_measured, 0) + FILL(${id}_dead, 0) > 0, ((100 - FILL(${id}_rank, 100)) / 100 * FILL(${id}_measured, 0) + FILL(${id}_dead, 0)) / (FILL(${id}_measured, 0) + FILL(${id}_dead, 0)), 0)`,
      );
    }
    // A window without a canary run counts as failed, as the canary's own alarm counts it.
    expect(statsOf('canary')).toEqual([
      expect.objectContaining({
        Metric: expect.objectContaining({ Namespace: 'CloudWatchSynthetics', MetricName: 'SuccessPercent' }),
        Stat: 'Average',
        Period: 21_600,
      }),
    ]);
    expect(queriesOf('canary').map((query) => query.Expression)).toContain(
      '(100 - FILL(canary_passed, 0)) / 100',
    );
  });
});

describe('service objectives on the dashboard', () => {
  it('graphs every objective’s hourly burn rate in production only', () => {
    const body = (stage: 'sandbox' | 'production') =>
      JSON.stringify(resourcesOf(stage, 'AWS::CloudWatch::Dashboard')[0]?.[1].Properties.DashboardBody);
    for (const objective of OBJECTIVES) expect(body('production')).toContain(`${objective} burn rate`);
    expect(body('sandbox')).not.toContain('burn rate');
  });
});

describe('service objectives (sandbox)', () => {
  it('alarms on none: partners’ test traffic is no objective', () => {
    expect(resourcesOf('sandbox', 'AWS::CloudWatch::CompositeAlarm')).toEqual([]);
  });
});
