import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges one cdk-nag AwsSolutions finding on a construct and everything under it, with the
 * reason recorded in the construct metadata and the validation report. `rule` is the rule id
 * after `AwsSolutions-`, with the finding in brackets where the rule has several
 * (`IAM5[Resource::*]`).
 */
export function acknowledgeNagFinding(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });
}

/**
 * Acknowledges one cfn-guard finding (an AWS Control Tower proactive control, by its Guard rule
 * name such as `lambda_inside_vpc_check`) on a construct and everything under it, with the reason
 * recorded in the validation report.
 */
export function acknowledgeGuardFinding(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `cdk-validator-cfnguard::${rule}`, reason });
}

/**
 * CT.CLOUDWATCH.PR.3 (log groups encrypted with a KMS key), acknowledged on every log group of
 * the service for one reason, kept here so it is written once.
 */
export function acknowledgeLogGroupEncryption(scope: IConstruct): void {
  acknowledgeGuardFinding(
    scope,
    'cloudwatch_log_group_encrypted_check',
    'CloudWatch Logs encrypts every log group at rest with keys it manages. These logs hold no key, token, ' +
      'secret or request body (the access log format and the functions log ids and key prefixes only), so a ' +
      'customer-managed KMS key would add its monthly price, a key policy to maintain and a way to lose the ' +
      'logs (a disabled key) without protecting anything more.',
  );
}

/**
 * CT.CLOUDWATCH.PR.2 (log groups kept at least a year), acknowledged on a stage that keeps its
 * logs less (sandbox: test traffic of partners' integrations); production keeps 365 days.
 */
export function acknowledgeShortLogRetention(scope: IConstruct, retentionDays: number): void {
  if (retentionDays >= 365) return;
  acknowledgeGuardFinding(
    scope,
    'cloudwatch_log_group_retention_period_check',
    `This stage keeps its logs ${retentionDays} days (lib/stage-config.ts): it serves partners' test traffic, ` +
      'whose logs are worth nothing after a month; production keeps 365 days and passes the control.',
  );
}

/**
 * CT.LAMBDA.PR.2 (no public Lambda permission) on the permissions API Gateway gets to invoke a
 * function: each names apigateway.amazonaws.com with a SourceArn of this API's own stage, method
 * and path (or its authorizer), built with Fn::Join from the API's id. The control accepts only a
 * literal or a Ref/GetAtt there and cannot read a joined ARN; the permission is not public.
 */
export function acknowledgeLambdaPermissionsOfApiGateway(scope: IConstruct): void {
  acknowledgeGuardFinding(
    scope,
    'lambda_function_public_access_prohibited_check',
    "API Gateway's invoke permission is limited by SourceArn to this REST API's stage, method and path (or its " +
      'authorizer), an ARN built with Fn::Join from the API id, which the control cannot resolve; no principal ' +
      'outside this API can invoke the function.',
  );
}
