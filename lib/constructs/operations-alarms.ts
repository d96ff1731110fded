import { Duration, Stack } from 'aws-cdk-lib';
import type { IAlarmAction, IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  CfnInsightRule,
  ComparisonOperator,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LEAK_NOTICES_FAILED_METRIC, LEAKED_KEYS_METRIC } from '../../core/contract/secret-scanning';
import type { AlarmThresholds } from '../stage-config';
import { AccessLogMetrics, METRIC_PERIOD, publishedMetric } from './access-log-metrics';
import { acknowledgeGuardFinding } from './nag';
import type { OutboundEvents } from './outbound-events';
import type { PartnerApiCanary } from './partner-api-canary';
import type { PlatformEvents } from './platform-events';
import type { ServiceFunction } from './service-function';
import type { ServiceRestApi } from './service-rest-api';

const PERIOD = METRIC_PERIOD;

/**
 * The Contributor Insights rule that counts, per partner (`partnerId` of the access log; `-` for
 * callers without a key), the partner API's answers of 429.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/ContributorInsights-RuleSyntax.html
 */
function throttledPartnersRuleBody(logGroupName: string) {
  return {
    Schema: { Name: 'CloudWatchLogRule', Version: 1 },
    LogGroupNames: [logGroupName],
    LogFormat: 'JSON',
    Contribution: { Keys: ['$.partnerId'], Filters: [{ Match: '$.status', EqualTo: 429 }] },
    AggregateOn: 'Count',
  };
}

/**
 * What an alarm watches, so that CodeDeploy can roll back the functions behind it: an API (its 5xx,
 * latency and authorizer alarms), one of the event flows (dead letters, lag), or one function.
 */
export type AlarmConcern =
  | 'partnerApi'
  | 'pages'
  | 'platformEvents'
  | 'outboundEvents'
  | `function:${string}`;

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
  /** The platform's events: their dead-letter queue, and how long the oldest waits. */
  readonly platformEvents: Pick<PlatformEvents, 'queue' | 'deadLetterQueue'>;
  /** This service's own events: the pipe, its dead letters, the lag, and the forwarding rule if any. */
  readonly outboundEvents: Pick<
    OutboundEvents,
    'deadLetterQueue' | 'forwarding' | 'metricPipe' | 'metricForwarding' | 'metricLag'
  >;
  /** @default - alarms notify no one */
  readonly alarmTopicArn?: string;
  /**
   * Where AWS Backup's events of the table's failed backup jobs arrive (TableBackup.failedJobs).
   * @default - no backups, no alarm
   */
  readonly failedBackupJobs?: IQueue;
  /** The stage's canary: an alarm when its runs fail. @default - no canary, no alarm */
  readonly canary?: Pick<PartnerApiCanary, 'metricSuccessPercent' | 'failedRunsToAlarm'>;
}

/**
 * The alarms an operator needs: per API the 5xx rate by API Gateway's count and as clients
 * received them, and 429s (the pages' stage throttle; on the partner API, several partners at
 * once); authorizer failures as clients see them; errors per function. What
 * clients received comes from metric filters on the access logs (AccessLogMetrics), since API
 * Gateway has no metric for it.
 */
export class OperationsAlarms extends Construct {
  public readonly alarms: Alarm[] = [];
  /** The alarms that say a change broke something, by what they watch (see {@link rollbackAlarmsOf}). */
  private readonly byConcern = new Map<AlarmConcern, Alarm[]>();
  /** The access-log metrics of each API, by its short name (the dashboard shows them too). */
  public readonly accessLogMetrics: ReadonlyMap<string, AccessLogMetrics>;
  /** What every alarm notifies on ALARM and OK: the deployment's topic, if it gave one. */
  private readonly action: IAlarmAction | undefined;

  constructor(scope: Construct, id: string, props: OperationsAlarmsProps) {
    super(scope, id);
    this.action = this.alarmAction(props.alarmTopicArn);
    this.accessLogMetrics = new Map(
      [...props.apis].map(([apiName, restApi]) => [apiName, this.apiAlarms(apiName, restApi, props)]),
    );
    this.authorizerAlarm(props);
    this.eventAlarms(props);
    this.outboundAlarms(props);
    this.leakedKeyAlarms(props);
    if (props.failedBackupJobs) this.backupAlarm(props, props.failedBackupJobs);
    if (props.canary) this.canaryAlarm(props, props.canary);
    this.functionAlarms(props);
  }

  private alarmAction(alarmTopicArn: string | undefined): IAlarmAction | undefined {
    if (alarmTopicArn) return new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', alarmTopicArn));
    acknowledgeGuardFinding(
      this,
      'cloudwatch_alarm_action_check',
      'This deployment gave no alarm topic (-c alarmTopicArn:<stage>, docs/deploying.md): the topic and its ' +
        'subscriptions live outside the stack, and without one the alarms change state on the dashboard only. ' +
        'With a topic every alarm notifies it on ALARM and OK.',
    );
    return undefined;
  }

  /**
   * The alarms that go red when a new version of the functions behind `concern` misbehaves: what
   * CodeDeploy watches while it shifts their aliases, and rolls back on. Not the throttles (a
   * partner's loop), the leaked keys or the backups, which no deploy causes or cures.
   */
  rollbackAlarmsOf(concern: AlarmConcern): readonly Alarm[] {
    return this.byConcern.get(concern) ?? [];
  }

  /** Adds an alarm that notifies the stage's topic; with a concern, one a deploy rolls back on. */
  private add(alarm: Alarm, concern?: AlarmConcern): void {
    if (this.action) {
      alarm.addAlarmAction(this.action);
      alarm.addOkAction(this.action);
    }
    this.alarms.push(alarm);
    if (concern) this.byConcern.set(concern, [...(this.byConcern.get(concern) ?? []), alarm]);
  }

  /** An API's access-log metrics, and its alarms: 5xx rate by API Gateway's count and as answered, 429s. */
  private apiAlarms(
    apiName: string,
    restApi: ServiceRestApi,
    props: OperationsAlarmsProps,
  ): AccessLogMetrics {
    const { thresholds } = props;
    const metrics = new AccessLogMetrics(this, `${apiName}AccessLogMetrics`, {
      namespace: props.name,
      apiName,
      restApi,
      authorized: restApi === props.authorizedApi,
    });
    const rate = (label: string, errors: IMetric, requests: IMetric) =>
      new MathExpression({
        label,
        expression: `IF(requests >= ${thresholds.serverErrorMinRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { errors, requests },
        period: PERIOD,
      });
    const concern = apiConcern(apiName);
    const rateAlarm = (id: string, alarmName: string, description: string, metric: MathExpression) =>
      new Alarm(this, id, {
        alarmName,
        alarmDescription: description,
        metric,
        threshold: thresholds.serverErrorRatePercent,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    // API Gateway's own count: what failed inside API Gateway and the integrations, by its own
    // classification (a remapped gateway response keeps the class of its type).
    this.add(
      rateAlarm(
        `${apiName}ServerErrorRate`,
        `${props.name}-${apiName}-5xx-rate`,
        `More than ${thresholds.serverErrorRatePercent}% of ${apiName} requests counted as 5XXError by API Gateway in 5 minutes.`,
        rate(
          `${apiName} 5xx rate (%)`,
          restApi.metric('5XXError', { statistic: Stats.SUM, period: PERIOD }),
          restApi.metric('Count', { statistic: Stats.SUM, period: PERIOD }),
        ),
      ),
      concern,
    );
    // What clients received: the access log's status, so the authorizer's failures that the
    // gateway responses answer with 503 count too (API Gateway counts them as 4XXError).
    this.add(
      rateAlarm(
        `${apiName}ClientServerErrorRate`,
        `${props.name}-${apiName}-5xx-answered-rate`,
        `More than ${thresholds.serverErrorRatePercent}% of ${apiName} answers were 5xx in 5 minutes, as clients received them (access log status; authorizer failures answered 503 included).`,
        rate(`${apiName} 5xx answered (%)`, metrics.answers.serverErrors, metrics.answers.requests),
      ),
      concern,
    );
    // Slow answers: API Gateway's Latency (request received to response sent), p99 over a minute, in
    // 3 of 5 minutes, so that a canary of 5 minutes can see it and one slow minute does not roll back.
    const latencyP99Ms = thresholds.latencyP99Ms[concern];
    this.add(
      new Alarm(this, `${apiName}Latency`, {
        alarmName: `${props.name}-${apiName}-latency-p99`,
        alarmDescription: `The p99 latency of ${apiName} (API Gateway's Latency) was above ${latencyP99Ms} ms in 3 of the last 5 minutes.`,
        metric: restApi.metric('Latency', { statistic: Stats.p(99), period: Duration.minutes(1) }),
        threshold: latencyP99Ms,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      concern,
    );
    if (restApi === props.authorizedApi) this.throttledPartnersAlarm(apiName, restApi, props);
    // No key, no per-partner limit here: a 429 is the stage throttle that every caller shares.
    else
      this.add(
        new Alarm(this, `${apiName}Throttled`, {
          alarmName: `${props.name}-${apiName}-throttled`,
          alarmDescription: `${apiName} answered 429 (its stage throttle, which every caller shares) at least ${thresholds.throttledRequests} times in 5 minutes.`,
          metric: metrics.answers.throttled,
          threshold: thresholds.throttledRequests,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    return metrics;
  }

  /**
   * The partner API's 429s as an incident: several partners throttled in the same 5 minutes (the
   * stage or account throttle, the limiter misjudging), never one partner's own loop over its limit,
   * which the dashboard shows by partner instead. A Contributor Insights rule on the access log
   * counts the partners answered 429 (`UniqueContributors`; callers without a key count as one),
   * and the alarm reads it with `INSIGHT_RULE_METRIC`:
   * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/ContributorInsights-GraphReportData.html
   */
  private throttledPartnersAlarm(
    apiName: string,
    restApi: ServiceRestApi,
    props: OperationsAlarmsProps,
  ): void {
    const ruleName = `${props.name}-${apiName}-throttled-partners`;
    const rule = new CfnInsightRule(this, `${apiName}ThrottledPartnersRule`, {
      ruleName,
      ruleState: 'ENABLED',
      ruleBody: Stack.of(this).toJsonString(throttledPartnersRuleBody(restApi.accessLogGroup.logGroupName)),
    });
    const alarm = new Alarm(this, `${apiName}ThrottledPartners`, {
      alarmName: `${props.name}-${apiName}-throttled-partners`,
      alarmDescription: `At least ${props.thresholds.throttledPartners} partners were answered 429 in the same 5 minutes (callers without a key count as one): a throttle or limit everyone meets, not one partner's loop. The dashboard's "Partners answered 429" shows who.`,
      metric: new MathExpression({
        label: `${apiName}: partners answered 429`,
        expression: `INSIGHT_RULE_METRIC('${ruleName}', 'UniqueContributors')`,
        usingMetrics: {},
        period: PERIOD,
      }),
      threshold: props.thresholds.throttledPartners,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.node.addDependency(rule);
    this.add(alarm);
  }

  /** Authorizer failures as clients see them (503), from the authorized API's access log. */
  private authorizerAlarm(props: OperationsAlarmsProps): void {
    const { thresholds } = props;
    const authorizerFailures = this.accessLogMetrics.get(
      [...props.apis].find(([, restApi]) => restApi === props.authorizedApi)?.[0] ?? '',
    )?.authorizerFailures;
    if (!authorizerFailures) throw new Error('The authorized API must be one of the APIs.');
    this.add(
      new Alarm(this, 'AuthorizerFailures', {
        alarmName: `${props.name}-authorizer-failures`,
        alarmDescription: `The authorizer failed (error, timeout or throttle) for at least ${thresholds.authorizerFailures} requests in 5 minutes; clients got 503.`,
        metric: authorizerFailures,
        threshold: thresholds.authorizerFailures,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      'partnerApi',
    );
  }

  /** The platform's events: each dead-lettered one, and the oldest waiting too long. */
  private eventAlarms(props: OperationsAlarmsProps): void {
    // Any dead-lettered event needs an operator: the partners' view misses it until it is redriven.
    // ApproximateNumberOfMessagesVisible, not NumberOfMessagesSent: SQS's own moves to a
    // dead-letter queue are not counted as sent.
    this.add(
      new Alarm(this, 'DeadLetteredEvents', {
        alarmName: `${props.name}-events-dead-lettered`,
        alarmDescription:
          "At least one of the platform's events waits in the dead-letter queue: list them with `npm run admin -- events failed`, fix the cause, then `events redrive`.",
        metric: props.platformEvents.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          statistic: Stats.MAXIMUM,
          period: PERIOD,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      'platformEvents',
    );
    this.add(
      new Alarm(this, 'EventsFallingBehind', {
        alarmName: `${props.name}-events-oldest-age`,
        alarmDescription: `The oldest of the platform's events has waited at least ${props.thresholds.oldestEventSeconds} s to be applied: partners read stale seats, properties or signals.`,
        metric: props.platformEvents.queue.metricApproximateAgeOfOldestMessage({
          statistic: Stats.MAXIMUM,
          period: PERIOD,
        }),
        threshold: props.thresholds.oldestEventSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      'platformEvents',
    );
  }

  /**
   * This service's own events: the pipe failing (execution, enrichment or target stage), a batch it
   * gave up on, deliveries older than the stage allows, and, when it forwards to the platform's bus,
   * events that rule could not deliver. Every metric: eb-pipes-monitoring.html and eb-monitoring.html
   * of the EventBridge user guide (OutboundEvents' metric methods).
   */
  private outboundAlarms(props: OperationsAlarmsProps): void {
    const { outboundEvents, thresholds } = props;
    const alarm = (id: string, name: string, description: string, metric: IMetric, threshold: number) =>
      this.add(
        new Alarm(this, id, {
          alarmName: `${props.name}-${name}`,
          alarmDescription: description,
          metric,
          threshold,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        'outboundEvents',
      );
    alarm(
      'OutboundDeliveryFailed',
      'outbound-delivery-failed',
      `The outbound pipe failed at least ${thresholds.outboundDeliveryFailures} times in 5 minutes (executions, enrichment or target stage): it tries again, but the platform hears late. Its log group has each error.`,
      new MathExpression({
        label: 'outbound pipe failures',
        expression: 'FILL(execution, 0) + FILL(enrichment, 0) + FILL(target, 0)',
        usingMetrics: {
          execution: outboundEvents.metricPipe('ExecutionFailed'),
          enrichment: outboundEvents.metricPipe('EnrichmentStageFailed'),
          target: outboundEvents.metricPipe('TargetStageFailed'),
        },
        period: PERIOD,
      }),
      thresholds.outboundDeliveryFailures,
    );
    alarm(
      'OutboundDeadLettered',
      'outbound-dead-lettered',
      "The outbound pipe gave up on a batch: its record waits in the pipe's dead-letter queue and names the stream records; the outbox items (kept 14 days, no sentAt) are the events to send again.",
      outboundEvents.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: PERIOD,
      }),
      1,
    );
    alarm(
      'OutboundLag',
      'outbound-lag',
      `The p99 of the outbound events' commit-to-delivery lag reached ${thresholds.outboundLagSeconds} s in 5 minutes: the platform learns of hosts, knowledge bases or erasures late.`,
      outboundEvents.metricLag(Stats.p(99)),
      thresholds.outboundLagSeconds,
    );
    this.forwardingAlarms(props, alarm);
  }

  /**
   * Keys revoked because a scanner found them in public, and notices of it that did not go out:
   * each is an operator's task (issue the replacement, or tell the partner), so one is enough.
   */
  private leakedKeyAlarms(props: OperationsAlarmsProps): void {
    const alarm = (id: string, name: string, description: string, metricName: string) =>
      this.add(
        new Alarm(this, id, {
          alarmName: `${props.name}-${name}`,
          alarmDescription: description,
          metric: publishedMetric(props.name, metricName),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    alarm(
      'LeakedKeyRevoked',
      'leaked-key-revoked',
      'A partner key was found in public and revoked (npm run admin -- audit list --action key.revoked names it, and where). Its partner was mailed; issue the replacement: npm run admin -- keys replace --prefix <prefix>.',
      LEAKED_KEYS_METRIC,
    );
    alarm(
      'LeakNoticeFailed',
      'leak-notice-failed',
      "A leaked key was revoked but the partner's notice could not be sent (SES refused it): tell the partner yourself. The function's log names the key prefix.",
      LEAK_NOTICES_FAILED_METRIC,
    );
  }

  /** The rule that forwards to the platform's bus, if the stage has one: anything it could not deliver. */
  private forwardingAlarms(
    props: OperationsAlarmsProps,
    alarm: (id: string, name: string, description: string, metric: IMetric, threshold: number) => void,
  ): void {
    const { outboundEvents } = props;
    const failed = outboundEvents.metricForwarding('FailedInvocations');
    const sentToDlq = outboundEvents.metricForwarding('InvocationsSentToDlq');
    const lost = outboundEvents.metricForwarding('InvocationsFailedToBeSentToDlq');
    if (!outboundEvents.forwarding || !failed || !sentToDlq || !lost) return;
    alarm(
      'ForwardingFailed',
      'outbound-forwarding-failed',
      "The rule that forwards this service's events to the platform's bus could not deliver at least one in 5 minutes (failed for good, dead-lettered, or not even dead-lettered): check the platform's bus policy and the forwarding role.",
      new MathExpression({
        label: 'forwarding failures',
        expression: 'FILL(failed, 0) + FILL(sentToDlq, 0) + FILL(lost, 0)',
        usingMetrics: { failed, sentToDlq, lost },
        period: PERIOD,
      }),
      1,
    );
    alarm(
      'ForwardingDeadLettered',
      'outbound-forwarding-dead-lettered',
      "At least one of this service's events waits in the forwarding rule's dead-letter queue: the platform never got it. Fix the cause, then send it again.",
      outboundEvents.forwarding.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: PERIOD,
      }),
      1,
    );
  }

  /**
   * A backup that fails says so nowhere else: AWS Backup counts failed jobs per vault.
   * https://docs.aws.amazon.com/aws-backup/latest/devguide/cloudwatch.html
   */
  /**
   * A backup job that ended without a recovery point, from AWS Backup's own event of it (an
   * EventBridge rule puts it on a queue of the stack): what AWS documents for certain, where the
   * `NumberOfBackupJobsFailed` metric per vault may not be published at all.
   */
  private backupAlarm(props: OperationsAlarmsProps, failedJobs: IQueue): void {
    this.add(
      new Alarm(this, 'BackupJobsFailed', {
        alarmName: `${props.name}-backup-failed`,
        alarmDescription:
          "A backup job of the table failed, was aborted or expired in the last hour: the vault misses that day's recovery point. AWS Backup's event, with its statusMessage, waits in the queue the stack outputs as FailedBackupJobsQueueUrl (docs/deploying.md#backups-of-the-production-table).",
        metric: failedJobs.metricNumberOfMessagesSent({ statistic: Stats.SUM, period: Duration.hours(1) }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * The canary's runs failing (any route's status, body or rate-limit headers wrong, or no key), or
   * missing: Synthetics publishes `SuccessPercent` per run, so a period without one is a canary that
   * did not run, and counts as failed.
   * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Synthetics_Canaries_metrics.html
   */
  private canaryAlarm(
    props: OperationsAlarmsProps,
    canary: NonNullable<OperationsAlarmsProps['canary']>,
  ): void {
    this.add(
      new Alarm(this, 'CanaryFailed', {
        alarmName: `${props.name}-canary-failed`,
        alarmDescription: `The partner API canary failed (or did not run) ${canary.failedRunsToAlarm} times in a row: a route answered wrong with its own key. Its last runs name the step and what was wrong (aws synthetics get-canary-runs --name <CanaryName output>; docs/deploying.md#the-canary).`,
        metric: canary.metricSuccessPercent(),
        threshold: 100,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: canary.failedRunsToAlarm,
        datapointsToAlarm: canary.failedRunsToAlarm,
        treatMissingData: TreatMissingData.BREACHING,
      }),
    );
  }

  /** Errors (uncaught exceptions, timeouts) of each function. */
  private functionAlarms(props: OperationsAlarmsProps): void {
    for (const [functionName, serviceFunction] of props.functions) {
      this.add(
        new Alarm(this, `${functionName}Errors`, {
          alarmName: `${props.name}-${functionName}-errors`,
          alarmDescription: `The ${functionName} function failed (uncaught error or timeout) at least ${props.thresholds.lambdaErrors} times in 5 minutes.`,
          metric: serviceFunction.function.metricErrors({ statistic: Stats.SUM, period: PERIOD }),
          threshold: props.thresholds.lambdaErrors,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        `function:${functionName}`,
      );
    }
  }
}

/** The concern of an API's alarms: its short name, which is one of the two APIs'. */
function apiConcern(apiName: string): 'partnerApi' | 'pages' {
  if (apiName !== 'partnerApi' && apiName !== 'pages')
    throw new Error(`No alarms concern the API ${apiName}`);
  return apiName;
}
