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
