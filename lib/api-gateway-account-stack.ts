import type { StackProps } from 'aws-cdk-lib';
import { RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { acknowledgeNagFinding } from './constructs/nag';

/** The stack of API Gateway's logging role: one per account and region, whatever stages live there. */
export const API_GATEWAY_ACCOUNT_STACK = 'PartnerApi-apigateway-account';

/**
 * API Gateway's account-wide setting of the role it writes access and execution logs with, in a
 * stack of its own. `AWS::ApiGateway::Account` is one per account and region ("To avoid
 * overwriting other roles, you should only have one AWS::ApiGateway::Account resource per region per
 * account": https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-apigateway-account.html),
 * so neither stage declares it: each stage's stack depends on this one, which `cdk deploy` of a stage
 * deploys first, once per account and region where that stage lives. Sandbox and production in one
 * account share it; in two accounts each has its own. The role and the setting are retained: other
 * APIs of the account may log through them after every stack is gone.
 */
export class ApiGatewayAccountStack extends Stack {
  public readonly role: Role;
  public readonly setting: CfnAccount;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, {
      description:
        "API Gateway's CloudWatch Logs role of this account and region (the partner API's stages log with it)",
      ...props,
    });
    Tags.of(this).add('service', 'partner-api');
    this.role = new Role(this, 'ApiGatewayLogsRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'Lets API Gateway write access and execution logs to CloudWatch Logs',
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    acknowledgeNagFinding(
      this.role,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'The AWS-managed policy made for this account-wide API Gateway logging role; it is assumable only by ' +
        'apigateway.amazonaws.com and AWS keeps it in step with what API Gateway logging needs.',
    );
    // After the role with its policy: set before them, the setting can fail with "The role ARN does
    // not have required permissions" (aws-cloudformation/rain#163). The stages wait for this stack.
    this.setting = new CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: this.role.roleArn });
    this.setting.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.setting.node.addDependency(this.role);
  }
}
