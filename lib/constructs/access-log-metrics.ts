import { Duration } from 'aws-cdk-lib';
import { Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFilterPattern } from 'aws-cdk-lib/aws-logs';
import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { POWERTOOLS_SERVICE_NAME } from '../function-defaults';
import type { ServiceRestApi } from './service-rest-api';

/** The period of every alarm and dashboard graph of the service. */
export const METRIC_PERIOD = Duration.minutes(5);

/**
 * A metric one of the service's functions publishes itself (Powertools' embedded metric format: the
 * stack's namespace, the `service` dimension), e.g. the secret scanning function's leaked keys or
 * an event flow's lag.
 */
export function publishedMetric(
  namespace: string,
  metricName: string,
  statistic: string = Stats.SUM,
  period: Duration = METRIC_PERIOD,
  label?: string,
): Metric {
  return new Metric({
    namespace,
    metricName,
    dimensionsMap: { service: POWERTOOLS_SERVICE_NAME },
    statistic,
    period,
    ...(label ? { label } : {}),
  });
}

/** What clients were answered, counted from the access log's `status` (see ACCESS_LOG_FORMAT). */
export interface AnswerMetrics {
  readonly requests: Metric;
  readonly clientErrors: Metric;
  readonly throttled: Metric;
  readonly serverErrors: Metric;
}

export interface AccessLogMetricsProps {
  /** Namespace of the metrics, e.g. `PartnerApi-sandbox`. */
  readonly namespace: string;
  /** Prefix of the metric names, e.g. `partnerApi`. */
  readonly apiName: string;
  readonly restApi: ServiceRestApi;
  /**
   * Also count what only the partner API has: authorizer failures and the exact per-key
   * limiter's refusals.
   * @default false
   */
  readonly authorized?: boolean;
}

const STATUS = '$.status';

/**
 * Metric filters on one REST API's access log. API Gateway's own `5XXError` counts a gateway
 * response by its type, not by the status the stack gives it: an authorizer failure, which the
 * gateway responses answer with 503, is a `4XXError` there. The access log's `status` is what the
 * client received, so these metrics count answers as clients see them.
 */
export class AccessLogMetrics extends Construct {
  public readonly answers: AnswerMetrics;
  /** Requests refused because the authorizer failed (error, timeout, throttle): clients got 503. */
  public readonly authorizerFailures?: Metric;
  /**
   * 429s the exact per-key limit answered (a function answered: the integration status is
   * Lambda's 200), apart from the stage throttle and usage plan (no integration) and WAF (not in
   * this log).
   */
  public readonly limiterRefusals?: Metric;

  constructor(scope: Construct, id: string, props: AccessLogMetricsProps) {
    super(scope, id);
    const count = (filterId: string, metricName: string, filterPattern: IFilterPattern, zero = true) =>
      props.restApi.accessLogGroup
        .addMetricFilter(filterId, {
          filterPattern,
          metricNamespace: props.namespace,
          metricName,
          metricValue: '1',
          // 0 for every other entry, so that a rate has data whenever there is traffic.
          ...(zero ? { defaultValue: 0 } : {}),
        })
        .metric({ statistic: Stats.SUM, period: METRIC_PERIOD });
    const { apiName } = props;
    this.answers = {
      requests: count(
        `${apiName}RequestsFilter`,
        `${apiName}Requests`,
        FilterPattern.numberValue(STATUS, '>', 0),
      ),
      clientErrors: count(
        `${apiName}ClientErrorsFilter`,
        `${apiName}4xx`,
        FilterPattern.all(
          FilterPattern.numberValue(STATUS, '>=', 400),
          FilterPattern.numberValue(STATUS, '<', 500),
        ),
      ),
      throttled: count(
        `${apiName}ThrottledFilter`,
        `${apiName}Throttled`,
        FilterPattern.numberValue(STATUS, '=', 429),
        false,
      ),
      serverErrors: count(
        `${apiName}ServerErrorsFilter`,
        `${apiName}5xx`,
        FilterPattern.numberValue(STATUS, '>=', 500),
      ),
    };
    if (props.authorized) {
      this.authorizerFailures = count(
        'AuthorizerFailuresFilter',
        'AuthorizerFailures',
        FilterPattern.any(
          FilterPattern.stringValue('$.responseType', '=', 'AUTHORIZER_FAILURE'),
          FilterPattern.stringValue('$.responseType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
        ),
        false,
      );
      this.limiterRefusals = count(
        'LimiterRefusalsFilter',
        'LimiterRefusals',
        FilterPattern.all(
          FilterPattern.numberValue(STATUS, '=', 429),
          FilterPattern.stringValue('$.integrationStatus', '=', '200'),
        ),
        false,
      );
    }
  }
}
