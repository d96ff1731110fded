import type { StackProps } from 'aws-cdk-lib';
import { Stack, Tags } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { DeployedStage } from '../core/stages';
import { CostWatch, STAGE_TAG_KEY } from './constructs/cost-watch';
import type { StageConfig } from './stage-config';
import { stackName } from './stage-config';

/**
 * The one region CloudFormation creates Cost Explorer's resources in (AWS::CE::AnomalyMonitor,
 * AWS::CE::AnomalySubscription): elsewhere a template with them fails with "Unrecognized resource
 * types" (aws-cloudformation/cloudformation-coverage-roadmap#1375). Cost Explorer's API has one
 * endpoint, ce.us-east-1.amazonaws.com (https://docs.aws.amazon.com/general/latest/gr/billing.html).
 */
export const COST_WATCH_REGION = 'us-east-1';

/** The stack of a stage's cost watch, `PartnerApi-<stage>-costs`. */
export function costWatchStackName(stage: DeployedStage): string {
  return `${stackName(stage)}-costs`;
}

export interface CostWatchStackProps extends StackProps {
  readonly config: StageConfig;
}

/**
 * A stage's budget and cost anomaly monitor, in a stack of its own in us-east-1 whatever the stage's
 * region (the account is the credentials', like the stage's): the anomaly monitor can be created
 * nowhere else, and the budget, a global resource of the account, goes with it. The stage's stack
 * depends on it, so `cdk deploy PartnerApi-<stage>` deploys it first (docs/deploying.md#what-it-costs-watched).
 */
export class CostWatchStack extends Stack {
  public readonly costWatch: CostWatch;

  constructor(scope: Construct, id: string, props: CostWatchStackProps) {
    const { config, ...stackProps } = props;
    super(scope, id, {
      description: `What the partner API's ${config.stage} stage costs: its budget and cost anomaly monitor`,
      env: { region: COST_WATCH_REGION },
      ...stackProps,
    });
    Tags.of(this).add('service', 'partner-api');
    Tags.of(this).add(STAGE_TAG_KEY, config.stage);
    this.costWatch = new CostWatch(this, 'CostWatch', {
      stage: config.stage,
      name: stackName(config.stage),
      monthlyBudgetUsd: config.monthlyBudgetUsd,
      ...(config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {}),
    });
  }
}
