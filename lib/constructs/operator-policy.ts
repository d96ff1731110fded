import { ArnFormat, Stack } from 'aws-cdk-lib';
import { Effect, ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledgeNagFinding } from './nag';

export interface OperatorPolicyProps {
  /** A name for the policy's description, e.g. the stack name. */
  readonly name: string;
  /** The partner API's access log group, which `npm run admin -- traffic` queries. */
  readonly accessLogGroup: ILogGroup;
}

/**
 * What an operator running `npm run admin -- --stage …` needs, in one customer-managed policy to
 * attach to the operators' role or group (its ARN is a stack output): Logs Insights over the
 * partner API's access log, for `traffic`; the stack adds the audit trail's reads with
 * {@link OperatorPolicy.addStatements}.
 *
 * Per the Service Authorization Reference (Amazon CloudWatch Logs), `logs:StartQuery` and
 * `logs:GetQueryResults` take the `log-group` resource type, so both are limited to the access
 * log group; `logs:StopQuery` supports no resource type, so it can only be granted on "*" (it
 * stops a query by id and reads nothing).
 */
export class OperatorPolicy extends Construct {
  public readonly policy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: OperatorPolicyProps) {
    super(scope, id);
    const logGroup = props.accessLogGroup;
    // The log-group ARN in both forms AWS uses: bare (the Service Authorization Reference's
    // format) and with the `:*` suffix CloudFormation's Arn attribute carries.
    const logGroupArn = Stack.of(this).formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: logGroup.logGroupName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.policy = new ManagedPolicy(this, 'Policy', {
      description: `${props.name}: what the operator CLI's reading commands need (traffic, audit list)`,
      statements: [
        new PolicyStatement({
          sid: 'QueryApiAccessLog',
          effect: Effect.ALLOW,
          actions: ['logs:StartQuery', 'logs:GetQueryResults'],
          resources: [logGroupArn, logGroup.logGroupArn],
        }),
        // Every command on a deployed stage starts by reading the stack's outputs.
        new PolicyStatement({
          sid: 'ReadStackOutputs',
          effect: Effect.ALLOW,
          actions: ['cloudformation:DescribeStacks'],
          // This stack's own ARN (AWS::StackId), the one DescribeStacks authorizes on.
          resources: [Stack.of(this).stackId],
        }),
        new PolicyStatement({
          sid: 'StopOwnLogsInsightsQuery',
          effect: Effect.ALLOW,
          actions: ['logs:StopQuery'],
          resources: ['*'],
        }),
      ],
    });
    acknowledgeNagFinding(
      this.policy,
      'IAM5[Resource::*]',
      'logs:StopQuery supports no resource type (Service Authorization Reference), so "*" is the only way to grant ' +
        'it; the CLI stops only the Logs Insights query it started, when that query runs too long.',
    );
  }

  /** Grants operators more (e.g. the audit trail's DynamoDB reads). */
  addStatements(...statements: PolicyStatement[]): void {
    this.policy.addStatements(...statements);
  }
}
