import { CfnBudget } from 'aws-cdk-lib/aws-budgets';
import { CfnAnomalyMonitor, CfnAnomalySubscription } from 'aws-cdk-lib/aws-ce';
import { Construct } from 'constructs';

/** The tag the stage's stacks put on every resource (`Tags.of(stack).add`), and what costs are counted by. */
export const STAGE_TAG_KEY = 'stage';

/** Of the month's budget: actual spend past this share alerts (80 %), and a forecast past the whole (100 %). */
const BUDGET_ALERTS = [
  { notificationType: 'ACTUAL', thresholdPercent: 80 },
  { notificationType: 'FORECASTED', thresholdPercent: 100 },
] as const;

/** An anomaly whose total impact reaches this share of the month's budget notifies the topic (10 %). */
const ANOMALY_SHARE_OF_BUDGET = 0.1;

export interface CostWatchProps {
  /** The stage whose `stage` tag the budget and the monitor count. */
  readonly stage: string;
  /** The budget's and the monitor's names start with it (the stage's stack name). */
  readonly name: string;
  readonly monthlyBudgetUsd: number;
  /** The stage's alarm topic; without one, the budget and the anomalies show in the console only. */
  readonly alarmTopicArn?: string;
}

/**
 * What the stage costs, watched: an AWS Budgets cost budget of the month over the costs that carry
 * the stage's tag, alerting the alarm topic at 80 % actual and 100 % forecast, and a Cost Anomaly
 * Detection monitor of the same tag with an immediate subscription of the topic. Both count a cost by
 * its `stage` cost allocation tag, which the payer account must have activated
 * (https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/custom-tags.html), and both
 * publish to the topic only if its access policy lets `budgets.amazonaws.com` and
 * `costalerts.amazonaws.com` (docs/deploying.md#what-it-costs-watched).
 */
export class CostWatch extends Construct {
  public readonly budget: CfnBudget;
  public readonly monitor: CfnAnomalyMonitor;
  public readonly subscription?: CfnAnomalySubscription;

  constructor(scope: Construct, id: string, props: CostWatchProps) {
    super(scope, id);
    const { alarmTopicArn } = props;
    // A notification needs a subscriber, a budget none: without a topic the budget stands alone and
    // its state is the console's (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-budgets-budget.html).
    this.budget = new CfnBudget(this, 'Budget', {
      budget: {
        budgetName: `${props.name}-monthly`,
        budgetType: 'COST',
        timeUnit: 'MONTHLY',
        budgetLimit: { amount: props.monthlyBudgetUsd, unit: 'USD' },
        // A user-defined cost allocation tag is named `user:<key>` in a budget's filter, its value after a `$`.
        costFilters: { TagKeyValue: [`user:${STAGE_TAG_KEY}$${props.stage}`] },
      },
      ...(alarmTopicArn
        ? {
            notificationsWithSubscribers: BUDGET_ALERTS.map((alert) => ({
              notification: {
                notificationType: alert.notificationType,
                comparisonOperator: 'GREATER_THAN',
                threshold: alert.thresholdPercent,
                thresholdType: 'PERCENTAGE',
              },
              subscribers: [{ subscriptionType: 'SNS', address: alarmTopicArn }],
            })),
          }
        : {}),
    });
    // A customer managed monitor of one cost allocation tag's value: what the stage's resources cost,
    // judged against their own history.
    // https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ce-anomalymonitor.html
    this.monitor = new CfnAnomalyMonitor(this, 'AnomalyMonitor', {
      monitorName: `${props.name}-stage-tag`,
      monitorType: 'CUSTOM',
      monitorSpecification: JSON.stringify({ Tags: { Key: STAGE_TAG_KEY, Values: [props.stage] } }),
    });
    if (!alarmTopicArn) return;
    // An SNS subscriber is sent each anomaly as it is found: its frequency is IMMEDIATE (DAILY and
    // WEEKLY are e-mail summaries).
    // https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_AnomalySubscription.html
    this.subscription = new CfnAnomalySubscription(this, 'AnomalySubscription', {
      subscriptionName: `${props.name}-anomalies`,
      frequency: 'IMMEDIATE',
      monitorArnList: [this.monitor.attrMonitorArn],
      subscribers: [{ type: 'SNS', address: alarmTopicArn }],
      thresholdExpression: JSON.stringify({
        Dimensions: {
          Key: 'ANOMALY_TOTAL_IMPACT_ABSOLUTE',
          MatchOptions: ['GREATER_THAN_OR_EQUAL'],
          Values: [String(Math.round(props.monthlyBudgetUsd * ANOMALY_SHARE_OF_BUDGET))],
        },
      }),
    });
  }
}
