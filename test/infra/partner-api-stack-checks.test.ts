import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, inject, it } from 'vitest';
import { API_BASE_PATH, partnerApiRoutes, publicApiRoutes } from '../../core/routes';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { API_GATEWAY_ACCOUNT_STACK } from '../../lib/api-gateway-account-stack';
import { stackName } from '../../lib/stage-config';
import {
  type CfnResource,
  loadSynthesizedApp,
  only,
  resources,
  synthesized,
  template,
} from '../support/stack-template';

loadSynthesizedApp();

describe('API Gateway’s logging role (PartnerApi-apigateway-account)', () => {
  it('is one stack per account and region that both stages wait for, so neither overwrites the other’s role', () => {
    const account = synthesized.accountTemplate;
    const assembly = JSON.parse(
      readFileSync(join(inject('infraCloudAssembly'), 'cdk.out', 'manifest.json'), 'utf8'),
    ) as {
      artifacts: Record<string, { dependencies?: string[] }>;
    };

    account.resourceCountIs('AWS::ApiGateway::Account', 1);
    const [, setting] = only(
      Object.entries(
        account.findResources('AWS::ApiGateway::Account') as Record<
          string,
          CfnResource & { DependsOn?: string[] }
        >,
      ),
      'account setting',
    );
    const roleId = (setting.Properties.CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    // Set after its role (with the managed policy the role itself carries), and kept when the stack goes.
    expect(setting.DependsOn).toContain(roleId);
    expect(setting.DeletionPolicy).toBe('Retain');
    const role = (account.findResources('AWS::IAM::Role') as Record<string, CfnResource>)[roleId];
    expect(role?.DeletionPolicy).toBe('Retain');
    expect(role?.Properties.ManagedPolicyArns).toEqual([
      expect.objectContaining({
        'Fn::Join': [
          '',
          expect.arrayContaining([':iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs']),
        ],
      }),
    ]);
    // `cdk deploy PartnerApi-<stage>` deploys it first: each stage's stack depends on it.
    for (const stage of DEPLOYED_STAGES)
      expect(assembly.artifacts[stackName(stage)]?.dependencies).toContain(API_GATEWAY_ACCOUNT_STACK);
  });
});

describe('stage differences', () => {
  it('retains data and protects the table in production only', () => {
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup']) {
      for (const resource of Object.values(resources('production', type)))
        expect(resource.DeletionPolicy, type).toBe('Retain');
      for (const resource of Object.values(resources('sandbox', type)))
        expect(resource.DeletionPolicy, type).toBe('Delete');
    }
    template('production').hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
    template('sandbox').hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });

  it('gives both stages the same resources, but for production’s backups, sampling rules and custom domain', () => {
    const shape = (stage: DeployedStage) =>
      Object.values(template(stage).toJSON().Resources as Record<string, CfnResource>)
        .map((resource) => resource.Type)
        .sort();
    const productionOnly = [
      'AWS::Backup::BackupPlan',
      'AWS::Backup::BackupSelection',
      'AWS::Backup::BackupVault',
      // The failed-backup alarm, the rule and queue of AWS Backup's events it counts, and the role AWS
      // Backup works with.
      'AWS::CloudWatch::Alarm',
      'AWS::Events::Rule',
      'AWS::IAM::Role',
      'AWS::SQS::Queue',
      'AWS::SQS::QueuePolicy',
      'AWS::XRay::SamplingRule',
      'AWS::XRay::SamplingRule',
      // The API's and the pages' names (production requires them; the sandbox of the tests has none).
      'AWS::ApiGateway::BasePathMapping',
      'AWS::ApiGateway::BasePathMapping',
      'AWS::ApiGateway::DomainName',
      'AWS::ApiGateway::DomainName',
    ];
    // The objectives' burn alarms and the metric filters they count (test/infra/service-objectives.test.ts).
    const objectives = [
      ...Object.values(resources('production', 'AWS::CloudWatch::Alarm'))
        .filter((alarm) => String(alarm.Properties.AlarmName).includes('-slo-'))
        .map(() => 'AWS::CloudWatch::Alarm'),
      ...Object.keys(resources('production', 'AWS::CloudWatch::CompositeAlarm')).map(
        () => 'AWS::CloudWatch::CompositeAlarm',
      ),
      ...partnerApiRoutes.flatMap(() => ['AWS::Logs::MetricFilter', 'AWS::Logs::MetricFilter']),
    ];
    const production = shape('production');
    for (const type of [...productionOnly, ...objectives]) production.splice(production.indexOf(type), 1);

    expect(shape('sandbox')).toEqual(production);
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  const nag = () =>
    only(
      synthesized.report.pluginReports.filter((report) => report.pluginName === 'AwsSolutions'),
      'AwsSolutions report',
    );

  it('reports no unacknowledged finding, error or warning', () => {
    expect(nag().conclusion).toBe('success');
    expect(nag().violations).toEqual([]);
  });

  it('acknowledges only the expected rules, each with a written reason', () => {
    const acknowledged = nag().suppressedViolations ?? [];

    expect(new Set(acknowledged.map((finding) => finding.ruleName))).toEqual(
      new Set([
        'AwsSolutions-APIG4',
        'AwsSolutions-COG4',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores]',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        'AwsSolutions-IAM5[Resource::*]',
        // The canary's role: its artifacts bucket, and the log group of the function Synthetics names.
        expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<CanaryArtifacts[0-9A-F]{8}\.Arn>\/\*\]$/),
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/cwsyn-*]',
        // The canary's artifacts bucket.
        'AwsSolutions-S1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SQS3',
      ]),
    );
    for (const finding of acknowledged)
      expect(finding.reason?.length ?? 0, finding.ruleName).toBeGreaterThan(40);
  });

  it('acknowledges missing authorization only on 405 mocks, pages and public routes, never on a partner GET or HEAD', () => {
    const unauthorized = (nag().suppressedViolations ?? [])
      .filter((finding) => finding.ruleName === 'AwsSolutions-APIG4')
      .flatMap((finding) => finding.violatingConstructs.map((construct) => construct.constructPath));
    const publicMethods = publicApiRoutes.flatMap((route) =>
      ['GET', 'HEAD'].map((method) => `${API_BASE_PATH}${route.path}/${method}/Resource`),
    );

    for (const path of unauthorized) {
      const allowed =
        /\/ANY\/Resource$|^PartnerApi-\w+\/Pages\//.test(path) ||
        publicMethods.some((method) => path.endsWith(method));
      expect(allowed, path).toBe(true);
    }
    for (const route of partnerApiRoutes)
      for (const method of ['GET', 'HEAD'])
        expect(
          unauthorized.some((path) => path.endsWith(`${API_BASE_PATH}${route.path}/${method}/Resource`)),
        ).toBe(false);
  });
});

describe('cfn-guard (AWS Control Tower proactive controls and lib/guard-rules/)', () => {
  const guard = () =>
    only(
      synthesized.report.pluginReports.filter((report) => report.pluginName === 'cdk-validator-cfnguard'),
      'cfn-guard report',
    );

  it('reports no unacknowledged finding', () => {
    expect(guard().conclusion).toBe('success');
    expect(guard().violations).toEqual([]);
  });

  it('acknowledges only Control Tower controls that do not apply here and sandbox’s unprotected table, each with a written reason', () => {
    const acknowledged = guard().suppressedViolations ?? [];

    expect(new Set(acknowledged.map((finding) => finding.ruleName))).toEqual(
      new Set([
        'cloudwatch_alarm_action_check',
        'cloudwatch_log_group_encrypted_check',
        'cloudwatch_log_group_retention_period_check',
        'lambda_function_public_access_prohibited_check',
        'lambda_inside_vpc_check',
        // The outbound pipe's and its forwarding rule's dead-letter queues, which no queue may use.
        'sqs_dlq_check',
        // The custom domains' enhanced TLS policy, whose minimum is the TLS 1.2 the control asks for.
        'api_gw_domain_tls_check',
        // The canary's artifacts bucket: diagnostics its own role writes and the lifecycle deletes.
        's3_bucket_logging_enabled_check',
        's3_bucket_versioning_enabled_check',
        's3_bucket_object_lock_enabled_check',
        's3_event_notifications_enabled_check',
        // Ours (lib/guard-rules/), the one exception: the sandbox table goes with its stack.
        'dynamodb_global_table_deletion_protection_enabled',
      ]),
    );
    for (const finding of acknowledged)
      expect(finding.reason?.length ?? 0, finding.ruleName).toBeGreaterThan(40);
    // Production keeps its logs a year, gives an alarm topic and protects its table: these are
    // acknowledged for sandbox only.
    for (const rule of [
      'cloudwatch_log_group_retention_period_check',
      'cloudwatch_alarm_action_check',
      'dynamodb_global_table_deletion_protection_enabled',
    ]) {
      const paths = acknowledged
        .filter((finding) => finding.ruleName === rule)
        .flatMap((finding) => finding.violatingConstructs.map((construct) => construct.constructPath));
      expect(paths.length, rule).toBeGreaterThan(0);
      for (const path of paths)
        expect(path, rule).toMatch(
          // The windows of the objectives' burn alarms notify no one: their composite does.
          rule === 'cloudwatch_alarm_action_check'
            ? /^PartnerApi-sandbox\/|^PartnerApi-production\/Objectives\//
            : /^PartnerApi-sandbox\//,
        );
    }
  });

  it.each(DEPLOYED_STAGES)('keeps every WAF custom response body of %s within 4 KB as UTF-8', (stage) => {
    for (const acl of Object.values(resources(stage, 'AWS::WAFv2::WebACL')))
      for (const body of Object.values(
        acl.Properties.CustomResponseBodies as Record<string, { Content: string }>,
      ))
        expect(Buffer.byteLength(body.Content, 'utf8')).toBeLessThanOrEqual(4_096);
  });
});
