import { Duration } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { AlarmThresholds } from '../stage-config';
import type { ServiceFunction } from './service-function';
import type { ServiceRestApi } from './service-rest-api';

const PERIOD = Duration.minutes(5);

export interface OperationsAlarmsProps {
  /** Prefix of alarm names and namespace of the log-derived metrics, e.g. `PartnerApi-sandbox`. */
  readonly name: string;
  /** The REST APIs, by a short name used in alarm names. */
  readonly apis: ReadonlyMap<string, ServiceRestApi>;
  /** The API whose access logs show authorizer failures. */
  readonly authorizedApi: ServiceRestApi;
  /**
   * The functions whose errors (uncaught exceptions, timeouts) alarm, by a short name used in alarm
   * names. Not the REQUEST authorizer: its "Unauthorized" answers count as Lambda errors.
   */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  readonly thresholds: AlarmThresholds;
  /** @default - alarms notify no one */
  readonly alarmTopicArn?: string;
}

/**
 * The alarms an operator needs: 5xx rate and 429s per API, authorizer failures as clients see
 * them, and errors per function. 429s and authorizer failures come from metric filters on the
 * access logs, since API Gateway has no metric for either.
 */
export class OperationsAlarms extends Construct {
  public readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: OperationsAlarmsProps) {
    super(scope, id);
    const { thresholds } = props;
    const action: IAlarmAction | undefined = props.alarmTopicArn
      ? new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn))
      : undefined;
    const add = (alarm: Alarm) => {
      if (action) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
      this.alarms.push(alarm);
    };

    for (const [apiName, restApi] of props.apis) {
      const stage = restApi.api.deploymentStage;
      const errorRate = new MathExpression({
        label: `${apiName} 5xx rate (%)`,
        expression: `IF(requests >= ${thresholds.serverErrorMinRequests}, 100 * errors / requests, 0)`,
        usingMetrics: {
          errors: stage.metricServerError({ statistic: Stats.SUM, period: PERIOD }),
          requests: stage.metricCount({ statistic: Stats.SUM, period: PERIOD }),
        },
        period: PERIOD,
      });
      add(
        new Alarm(this, `${apiName}ServerErrorRate`, {
          alarmName: `${props.name}-${apiName}-5xx-rate`,
          alarmDescription: `More than ${thresholds.serverErrorRatePercent}% of ${apiName} requests answered 5xx in 5 minutes.`,
          metric: errorRate,
          threshold: thresholds.serverErrorRatePercent,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
      const throttled = restApi.accessLogGroup.addMetricFilter(`${apiName}ThrottledFilter`, {
        filterPattern: FilterPattern.numberValue('$.status', '=', 429),
        metricNamespace: props.name,
        metricName: `${apiName}Throttled`,
        metricValue: '1',
      });
      add(
        new Alarm(this, `${apiName}Throttled`, {
          alarmName: `${props.name}-${apiName}-throttled`,
          alarmDescription: `${apiName} answered 429 (throttled) at least ${thresholds.throttledRequests} times in 5 minutes.`,
          metric: throttled.metric({ statistic: Stats.SUM, period: PERIOD }),
          threshold: thresholds.throttledRequests,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    const authorizerFailures = props.authorizedApi.accessLogGroup.addMetricFilter(
      'AuthorizerFailuresFilter',
      {
        filterPattern: FilterPattern.any(
          FilterPattern.stringValue('$.responseType', '=', 'AUTHORIZER_FAILURE'),
          FilterPattern.stringValue('$.responseType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
        ),
        metricNamespace: props.name,
        metricName: 'AuthorizerFailures',
        metricValue: '1',
      },
    );
    add(
      new Alarm(this, 'AuthorizerFailures', {
        alarmName: `${props.name}-authorizer-failures`,
        alarmDescription: `The authorizer failed (error, timeout or throttle) for at least ${thresholds.authorizerFailures} requests in 5 minutes; clients got 503.`,
        metric: authorizerFailures.metric({ statistic: Stats.SUM, period: PERIOD }),
        threshold: thresholds.authorizerFailures,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    for (const [functionName, serviceFunction] of props.functions) {
      add(
        new Alarm(this, `${functionName}Errors`, {
          alarmName: `${props.name}-${functionName}-errors`,
          alarmDescription: `The ${functionName} function failed (uncaught error or timeout) at least ${thresholds.lambdaErrors} times in 5 minutes.`,
          metric: serviceFunction.function.metricErrors({ statistic: Stats.SUM, period: PERIOD }),
          threshold: thresholds.lambdaErrors,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
  }
}
