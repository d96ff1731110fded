import type { ServiceRestApi } from '../lib/constructs/service-rest-api';

/** A metric filter as CloudWatch Logs' `DescribeMetricFilters` describes it. */
export interface LocalMetricFilter {
  readonly filterName: string;
  readonly filterPattern: string;
  readonly metricTransformations: readonly {
    readonly metricName: string;
    readonly metricNamespace: string;
    readonly metricValue: string;
    readonly defaultValue?: number;
  }[];
}

/** The log group name the local endpoint gives the partner API's access log (the file `access-log.jsonl`). */
export const LOCAL_ACCESS_LOG_GROUP = '/local/partner-api/access-log';

/**
 * The metric filters the stack puts on the partner API's access log, made by the stack's own
 * construct (AccessLogMetrics, named `partnerApi` as in the stack) on a scratch stack: the local
 * endpoint describes exactly the patterns a deployment would have. aws-cdk-lib is loaded on the
 * first call only, so a server that is never asked pays nothing for it.
 */
export async function partnerApiMetricFilters(): Promise<LocalMetricFilter[]> {
  const [{ App, Stack }, { CfnMetricFilter, LogGroup }, { AccessLogMetrics }] = await Promise.all([
    import('aws-cdk-lib'),
    import('aws-cdk-lib/aws-logs'),
    import('../lib/constructs/access-log-metrics'),
  ]);
  const stack = new Stack(new App(), 'PartnerApi-local');
  const accessLogGroup = new LogGroup(stack, 'AccessLogs');
  // The construct reads nothing of the API but its access log group.
  const restApi = { accessLogGroup } as Pick<ServiceRestApi, 'accessLogGroup'> as ServiceRestApi;
  new AccessLogMetrics(stack, 'partnerApiAccessLogMetrics', {
    namespace: 'PartnerApi-local',
    apiName: 'partnerApi',
    restApi,
    authorized: true,
  });
  return stack.node
    .findAll()
    .filter((construct) => construct instanceof CfnMetricFilter)
    .map((filter) => {
      const resolved = stack.resolve({
        filterPattern: filter.filterPattern,
        metricTransformations: filter.metricTransformations,
      }) as Omit<LocalMetricFilter, 'filterName'>;
      return { filterName: filter.node.path.split('/').slice(-2, -1)[0] ?? filter.node.id, ...resolved };
    });
}
