import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function';

/** A stack with one function; bundling is skipped (the stack test bundles for real). */
function stackWithFunction() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test');
  const table = new TableV2(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
  const serviceFunction = new ServiceFunction(stack, 'Usage', {
    entry: 'api/usage.ts',
    stage: 'sandbox',
    description: 'test',
  });
  return { app, stack, table, serviceFunction };
}

describe('ServiceFunction', () => {
  it('fails the synthesis when anything but X-Ray is granted on every resource', () => {
    const { app, serviceFunction } = stackWithFunction();
    serviceFunction.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: ['*'] }),
    );

    expect(() => app.synth()).toThrow(/s3:GetObject is granted on every resource/);
  });

  it('binds a table for reads plus one conditional counter write', () => {
    const { stack, table, serviceFunction } = stackWithFunction();

    serviceFunction.bindTable({ table, accessMode: 'R', updatablePartitionKeyPrefixes: ['RATELIMIT#'] });

    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] },
          },
          { Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Effect: 'Allow', Resource: '*' },
          {
            Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'Arn'] },
          },
          {
            Action: 'dynamodb:UpdateItem',
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATELIMIT#*'] } },
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'Arn'] },
          },
        ],
      },
    });
  });

  it('refuses bindings that would widen access by mistake', () => {
    const { table, serviceFunction } = stackWithFunction();

    expect(() =>
      serviceFunction.bindTable({ table, accessMode: 'R', actions: ['dynamodb:PutItem'] }),
    ).toThrow(/not allowed in R mode/);
    expect(() => serviceFunction.bindTable({ table, accessMode: 'R', partitionKeyPrefixes: [] })).toThrow(
      /must not be empty/,
    );
    expect(() =>
      serviceFunction.bindTable({ table, accessMode: 'RW', updatablePartitionKeyPrefixes: ['RATELIMIT#'] }),
    ).toThrow(/for R mode/);
  });
});
