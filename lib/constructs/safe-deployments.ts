import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ILambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { TrafficShifting } from '../stage-config';
import { acknowledgeNagFinding } from './nag';
import type { ServiceFunction } from './service-function';

/** CodeDeploy's predefined Lambda configurations the stage settings name. */
const DEPLOYMENT_CONFIGS: Readonly<Record<TrafficShifting, ILambdaDeploymentConfig>> = {
  'all-at-once': LambdaDeploymentConfig.ALL_AT_ONCE,
  'canary-10-percent-5-minutes': LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  'linear-10-percent-every-1-minute': LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
};

/**
 * A deployment group watches at most 10 alarms:
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-codedeploy-deploymentgroup-alarmconfiguration.html
 */
const MAX_ALARMS_PER_GROUP = 10;

/** A function and the alarms that judge a new version of it. */
export interface DeployedFunction {
  readonly serviceFunction: Pick<ServiceFunction, 'live'>;
  readonly alarms: readonly IAlarm[];
}

export interface SafeDeploymentsProps {
  /** The CodeDeploy application's name (the stack's). */
  readonly name: string;
  readonly trafficShifting: TrafficShifting;
  /** Every function of the stage, by its name in the route table. */
  readonly functions: ReadonlyMap<string, DeployedFunction>;
  /** `ignore`: this deploy shifts without watching the alarms (an incident's fix). @default 'watch' */
  readonly rollbackAlarms?: 'watch' | 'ignore';
}

/**
 * Every function's `live` alias moved to a new version by CodeDeploy: one deployment group per
 * function, its traffic shifted as the stage says (canary, linear or all at once), watched by the
 * alarms of what it serves and rolled back when one goes red or the deployment fails. CloudFormation
 * starts the deployment when it updates the alias (the CodeDeployLambdaAliasUpdate update policy
 * CDK sets: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-attribute-updatepolicy.html),
 * and the stack update waits for it: a rolled back deployment fails the stack update, which
 * CloudFormation rolls back too. https://docs.aws.amazon.com/lambda/latest/dg/automating-updates-to-serverless-apps.html
 */
export class SafeDeployments extends Construct {
  public readonly application: LambdaApplication;
  /** The deployment group of each function, by its name in the route table. */
  public readonly groups: ReadonlyMap<string, LambdaDeploymentGroup>;

  constructor(scope: Construct, id: string, props: SafeDeploymentsProps) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application', { applicationName: props.name });
    const deploymentConfig = DEPLOYMENT_CONFIGS[props.trafficShifting];
    // One role for the stage's deployment groups, which CodeDeploy alone assumes.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: `CodeDeploy's Lambda deployments of ${props.name}`,
    });
    acknowledgeNagFinding(
      role,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      "CDK attaches AWSCodeDeployRoleForLambdaLimited to every Lambda deployment group's role, even one given to " +
        "it. AWS's own policy for CodeDeploy's Lambda deployments: it reads and updates aliases, reads alarm " +
        'states, invokes only functions named CodeDeployHook_* and reads S3 objects under CodeDeploy/ or tagged ' +
        'for it (https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSCodeDeployRoleForLambdaLimited.html). ' +
        'Only CodeDeploy assumes the role.',
    );
    const groups = new Map<string, LambdaDeploymentGroup>();
    for (const [name, { serviceFunction, alarms }] of props.functions) {
      if (alarms.length === 0 || alarms.length > MAX_ALARMS_PER_GROUP)
        throw new Error(
          `The ${name} function's deployment must watch 1 to ${MAX_ALARMS_PER_GROUP} alarms, not ${alarms.length}.`,
        );
      const group = new LambdaDeploymentGroup(this, `${name}Deployment`, {
        application: this.application,
        deploymentGroupName: name,
        alias: serviceFunction.live,
        role,
        deploymentConfig,
        alarms: [...alarms],
        ignoreAlarmConfiguration: props.rollbackAlarms === 'ignore',
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      // The alias names its group only in its update policy, which CloudFormation does not order by:
      // the group (its alarms, whether it watches them) is in place before the alias moves.
      serviceFunction.live.node.addDependency(group);
      groups.set(name, group);
    }
    this.groups = groups;
  }
}
