import { beforeAll, describe, expect, it } from 'vitest';
import { LEAK_NOTICES_FAILED_METRIC, LEAKED_KEYS_METRIC } from '../../core/contract/secret-scanning';
import { PLATFORM_EVENT_LAG_METRIC } from '../../core/event-delivery';
import { OUTBOUND_LAG_METRIC } from '../../core/outbound-delivery';
import { EVENT_CONSUMER, OUTBOUND_ENRICHMENT, pageFunctionName } from '../../core/routes';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import {
  ANSWERS_BY_ROUTE_QUERY,
  THROTTLED_PARTNERS_QUERY,
  TOP_PARTNERS_QUERY,
} from '../../lib/constructs/operations-dashboard';
import { ACCESS_LOG_FORMAT } from '../../lib/constructs/secure-defaults';
import { stackName } from '../../lib/stage-config';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp } from './synthesized-app';

interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title?: string;
    readonly metrics?: unknown[][];
    readonly query?: string;
  };
}

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizedApp();
});

/** The fields of one access-log line (the keys of ACCESS_LOG_FORMAT). */
const ACCESS_LOG_FIELDS = new Set(
  [...ACCESS_LOG_FORMAT.toString().matchAll(/"(\w+)":/g)].map((match) => match[1] ?? ''),
);
/** Words of the Logs Insights language the dashboard's queries use. */
const QUERY_WORDS = new Set([
  'SOURCE',
  'fields',
  'filter',
  'stats',
  'count',
  'as',
  'by',
  'sort',
  'desc',
  'limit',
  'and',
  'ispresent',
]);

/** A `{ Ref: id }` inside the dashboard body, as text the test can read back. */
const ref = (id: string) => `«Ref:${id}»`;
/** A `{ "Fn::GetAtt": [id, attribute] }` inside the dashboard body (a queue's name), the same way. */
const getAtt = (id: string, attribute: string) => `«GetAtt:${id}.${attribute}»`;

function resourcesOf(stage: DeployedStage, type: string): Record<string, CfnResource> {
  return synthesized.templates[stage].findResources(type) as Record<string, CfnResource>;
}

/** The dashboard body of a stage as JSON, each `Ref` written as «Ref:id». */
function dashboardWidgets(stage: DeployedStage): Widget[] {
  const dashboards = Object.values(resourcesOf(stage, 'AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const [dashboard] = dashboards;
  expect(dashboard?.Properties.DashboardName).toBe(stackName(stage));
  const body = dashboard?.Properties.DashboardBody as {
    'Fn::Join': [string, (string | { Ref: string } | { 'Fn::GetAtt': [string, string] })[]];
  };
  const text = body['Fn::Join'][1]
    .map((part) =>
      typeof part === 'string' ? part : 'Ref' in part ? ref(part.Ref) : getAtt(...part['Fn::GetAtt']),
    )
    .join('');
  return (JSON.parse(text) as { widgets: Widget[] }).widgets;
}

/** What each metric of a widget names: namespace, metric name and dimensions. */
function metricsOf(widget: Widget) {
  // A math expression's entry (`[{ expression, … }]`) names no metric: the metrics it reads follow it.
  return (widget.properties.metrics ?? [])
    .filter((entry) => typeof entry[0] === 'string')
    .map((entry) => {
      const [namespace, metricName, ...rest] = entry;
      const pairs = rest.filter((part) => typeof part === 'string') as string[];
      const dimensions: Record<string, string> = {};
      for (let index = 0; index + 1 < pairs.length; index += 2)
        dimensions[pairs[index] ?? ''] = pairs[index + 1] ?? '';
      const options = rest.find((part) => typeof part === 'object') as { stat?: string } | undefined;
      return {
        namespace: String(namespace),
        metricName: String(metricName),
        dimensions,
        stat: options?.stat,
      };
    });
}

describe.each(DEPLOYED_STAGES)('the dashboard of PartnerApi-%s', (stage) => {
  it('reads only metrics this stack produces, each with dimensions naming its own resources', () => {
    const filters = Object.values(resourcesOf(stage, 'AWS::Logs::MetricFilter')).flatMap(
      (filter) =>
        filter.Properties.MetricTransformations as { MetricNamespace: string; MetricName: string }[],
    );
    const restApis = resourcesOf(stage, 'AWS::ApiGateway::RestApi');
    const stages = resourcesOf(stage, 'AWS::ApiGateway::Stage');
    const tables = Object.keys(resourcesOf(stage, 'AWS::DynamoDB::GlobalTable'));
    const queues = Object.keys(resourcesOf(stage, 'AWS::SQS::Queue'));
    const functions = Object.keys(resourcesOf(stage, 'AWS::Lambda::Function'));
    const webAcls = Object.values(resourcesOf(stage, 'AWS::WAFv2::WebACL'));
    const pipes = Object.values(resourcesOf(stage, 'AWS::Pipes::Pipe'));
    const rules = Object.keys(resourcesOf(stage, 'AWS::Events::Rule'));
    const buses = Object.keys(resourcesOf(stage, 'AWS::Events::EventBus'));
    const canaries = Object.keys(resourcesOf(stage, 'AWS::Synthetics::Canary'));
    // What the functions publish themselves (embedded metric format): the namespace their environment gives.
    const PUBLISHERS: Record<string, readonly string[]> = {
      [OUTBOUND_ENRICHMENT.id]: [OUTBOUND_LAG_METRIC],
      [EVENT_CONSUMER.id]: [PLATFORM_EVENT_LAG_METRIC],
      [pageFunctionName('secretScanning')]: [LEAKED_KEYS_METRIC, LEAK_NOTICES_FAILED_METRIC],
    };
    const published = Object.values(resourcesOf(stage, 'AWS::Lambda::Function')).flatMap((fn) => {
      const name = (fn.Properties.Tags as { Key: string; Value: string }[]).find(
        (tag) => tag.Key === 'service-function',
      )?.Value;
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      return (PUBLISHERS[name ?? ''] ?? []).map(
        (metricName) => `${String(variables.POWERTOOLS_METRICS_NAMESPACE)} ${metricName}`,
      );
    });
    const metrics = dashboardWidgets(stage).flatMap(metricsOf);
    expect(metrics.length).toBeGreaterThan(0);

    for (const metric of metrics) {
      const what = `${metric.namespace} ${metric.metricName} ${JSON.stringify(metric.dimensions)}`;
      switch (metric.namespace) {
        case stackName(stage):
          expect(
            filters.some(
              (filter) =>
                filter.MetricNamespace === metric.namespace && filter.MetricName === metric.metricName,
            ) || published.includes(`${metric.namespace} ${metric.metricName}`),
            what,
          ).toBe(true);
          break;
        case 'AWS/EventBridge/Pipes':
          expect(
            pipes.map((pipe) => pipe.Properties.Name),
            what,
          ).toContain(metric.dimensions.PipeName);
          break;
        case 'AWS/Events':
          expect(rules.map(ref), what).toContain(metric.dimensions.RuleName);
          expect(buses.map(ref), what).toContain(metric.dimensions.EventBusName);
          break;
        case 'AWS/ApiGateway': {
          const stageId = Object.keys(stages).find((id) => ref(id) === metric.dimensions.Stage);
          const apiId =
            (stages[stageId ?? '']?.Properties.RestApiId as { Ref: string } | undefined)?.Ref ?? '';
          expect(restApis[apiId]?.Properties.Name, what).toBe(metric.dimensions.ApiName);
          break;
        }
        case 'AWS/DynamoDB':
          expect(tables.map(ref), what).toContain(metric.dimensions.TableName);
          break;
        case 'AWS/SQS':
          expect(
            queues.map((id) => getAtt(id, 'QueueName')),
            what,
          ).toContain(metric.dimensions.QueueName);
          break;
        case 'CloudWatchSynthetics':
          expect(canaries.map(ref), what).toContain(metric.dimensions.CanaryName);
          break;
        case 'AWS/Lambda':
          expect(functions.map(ref), what).toContain(metric.dimensions.FunctionName);
          break;
        case 'AWS/WAFV2': {
          const acl = webAcls.find((candidate) => candidate.Properties.Name === metric.dimensions.WebACL);
          expect(acl, what).toBeDefined();
          const ruleMetrics = (
            acl?.Properties.Rules as { VisibilityConfig: { MetricName: string } }[] | undefined
          )?.map((rule) => rule.VisibilityConfig.MetricName);
          expect(['ALL', ...(ruleMetrics ?? [])], what).toContain(metric.dimensions.Rule);
          expect(metric.dimensions.Region, what).toBe(ref('AWS::Region'));
          break;
        }
        default:
          throw new Error(`A metric the stack does not produce: ${what}`);
      }
    }
  });

  it('queries only log groups of this stack, and only fields the access log writes', () => {
    const logGroups = Object.keys(resourcesOf(stage, 'AWS::Logs::LogGroup'));
    const queries = dashboardWidgets(stage)
      .filter((widget) => widget.type === 'log')
      .map((widget) => widget.properties.query ?? '');
    expect(queries.length).toBeGreaterThan(0);

    for (const query of queries) {
      const source = /^SOURCE '«Ref:(\w+)»' \| /.exec(query);
      expect(logGroups, query).toContain(source?.[1]);
      const body = query.slice(source?.[0].length ?? 0).replace(/"[^"]*"/g, '');
      const aliases = new Set([...body.matchAll(/\bas (\w+)/g)].map((match) => match[1]));
      const words = [...body.matchAll(/\b([A-Za-z]\w*)\b/g)].map((match) => match[1] ?? '');
      for (const word of words.filter((candidate) => !QUERY_WORDS.has(candidate) && !aliases.has(candidate)))
        expect(ACCESS_LOG_FIELDS, `${word} in ${query}`).toContain(word);
    }
  });

  it('counts every metric filter from fields the access log writes (a misspelt field would count nothing)', () => {
    for (const filter of Object.values(resourcesOf(stage, 'AWS::Logs::MetricFilter'))) {
      const fields = [...String(filter.Properties.FilterPattern).matchAll(/\$\.(\w+)/g)].map(
        (match) => match[1],
      );
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) expect(ACCESS_LOG_FIELDS).toContain(field);
    }
  });

  it('shows answers per API and route, latency p50/p99, the authorizer and limiter, DynamoDB, WAF and the top partners', () => {
    const widgets = dashboardWidgets(stage);
    const metrics = widgets.flatMap(metricsOf);
    const names = new Set(metrics.map((metric) => `${metric.namespace}/${metric.metricName}`));
    const queries = widgets.map((widget) => widget.properties.query ?? '');

    for (const api of ['partnerApi', 'pages'])
      for (const answer of ['Requests', '4xx', 'Throttled', '5xx'])
        expect(names).toContain(`${stackName(stage)}/${api}${answer}`);
    expect(queries.filter((query) => query.endsWith(ANSWERS_BY_ROUTE_QUERY))).toHaveLength(2);
    expect(metrics.filter((metric) => metric.metricName === 'Latency').map((metric) => metric.stat)).toEqual([
      'p50',
      'p99',
      'p50',
      'p99',
    ]);
    expect(names).toContain(`${stackName(stage)}/AuthorizerFailures`);
    expect(names).toContain(`${stackName(stage)}/LimiterRefusals`);
    for (const metricName of ['ReadThrottleEvents', 'WriteThrottleEvents', 'SystemErrors'])
      expect(names).toContain(`AWS/DynamoDB/${metricName}`);
    expect(
      metrics.filter((metric) => metric.namespace === 'AWS/WAFV2' && metric.dimensions.Rule === 'ALL'),
    ).toHaveLength(2);
    expect(queries.filter((query) => query.endsWith(TOP_PARTNERS_QUERY))).toHaveLength(1);
    // Who was answered 429, by which limit: one partner's loop is seen here, not alarmed.
    expect(queries.filter((query) => query.endsWith(THROTTLED_PARTNERS_QUERY))).toHaveLength(1);
  });
});
