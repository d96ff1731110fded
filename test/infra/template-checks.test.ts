import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GUARD_RULES_DIRECTORY } from '../../lib/template-checks';
import {
  apiInvoking,
  backupPlan,
  body,
  COPY_VAULT,
  copyTo,
  globalTable,
  guardFindings,
  header,
  inProduction,
  invocationUri,
  lambdaFunction,
  logGroup,
  protectedReplica,
  queueWithDeadLetters,
  type Resources,
  replicaWithoutPitr,
  replicaWithoutProtection,
  restApisAndAccount,
  SUB_OF_FUNCTION_ARN,
  samplingRule,
  streamPipe,
  webAcl,
} from '../support/guard-templates';

/**
 * Each of our Guard rules (lib/guard-rules/) fed a template that breaks it, through the same
 * plugin `cdk synth` runs: the synthesis must fail naming the rule, and the same template with the
 * one fault fixed must pass. Templates are built from raw CloudFormation resources, so nothing
 * else (bundling, the service's constructs) is in the way.
 */

const cases: readonly {
  readonly rule: string;
  readonly breaks: string;
  readonly broken: Resources;
  readonly fixed: Resources;
}[] = [
  {
    rule: 'waf_custom_response_headers',
    breaks: 'a header value of 256 characters',
    broken: webAcl({ headers: [header('Content-Security-Policy', 'x'.repeat(256))] }),
    fixed: webAcl({ headers: [header('Content-Security-Policy', 'x'.repeat(255))] }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: '11 headers in one custom response',
    broken: webAcl({ headers: Array.from({ length: 11 }, (_, index) => header(`X-Header-${index}`, 'v')) }),
    fixed: webAcl({ headers: Array.from({ length: 10 }, (_, index) => header(`X-Header-${index}`, 'v')) }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: 'a header name of 65 characters',
    broken: webAcl({ headers: [header('X'.repeat(65), 'v')] }),
    fixed: webAcl({ headers: [header('X'.repeat(64), 'v')] }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: 'a header name with a space',
    broken: webAcl({ headers: [header('Retry After', '60')] }),
    fixed: webAcl({ headers: [header('Retry-After', '60')] }),
  },
  {
    rule: 'waf_custom_response_headers',
    breaks: "a too long header in the web ACL's default action",
    broken: webAcl({ defaultHeaders: [header('X-Reason', 'x'.repeat(300))] }),
    fixed: webAcl({ defaultHeaders: [header('X-Reason', 'blocked')] }),
  },
  {
    rule: 'waf_custom_response_bodies',
    breaks: 'a body of 4,097 characters',
    broken: webAcl({ bodies: { throttled: body('x'.repeat(4_097)) } }),
    fixed: webAcl({ bodies: { throttled: body('x'.repeat(4_096)) } }),
  },
  {
    rule: 'waf_custom_response_bodies',
    breaks: '51 bodies in one web ACL',
    broken: webAcl({
      bodies: {
        throttled: body('x'),
        ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`b${i}`, body('x')])),
      },
    }),
    fixed: webAcl({
      bodies: {
        throttled: body('x'),
        ...Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`b${i}`, body('x')])),
      },
    }),
  },
  {
    rule: 'apigateway_account_after_rest_apis',
    breaks: 'an account setting that does not wait for one of the REST APIs',
    broken: restApisAndAccount(['ApiA', 'LogsRole']),
    fixed: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole']),
  },
  {
    rule: 'apigateway_account_role_in_template',
    breaks: 'an account setting that does not name its role in DependsOn',
    broken: restApisAndAccount(['ApiA', 'ApiB']),
    fixed: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole']),
  },
  {
    rule: 'apigateway_account_after_role_policies',
    breaks: "an account setting that does not wait for its role's policy",
    broken: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole'], true),
    fixed: restApisAndAccount(['ApiA', 'ApiB', 'LogsRole', 'LogsPolicy'], true),
  },
  {
    rule: 'log_group_retention_allowed',
    breaks: 'a retention CloudWatch Logs does not accept (42 days)',
    broken: logGroup(42),
    fixed: logGroup(30),
  },
  {
    rule: 'log_group_retention_allowed',
    breaks: 'a log group without retention',
    broken: logGroup(),
    fixed: logGroup(365),
  },
  {
    rule: 'lambda_runtime_supported',
    breaks: 'a function on nodejs20.x (deprecated)',
    broken: lambdaFunction('nodejs20.x'),
    fixed: lambdaFunction('nodejs24.x'),
  },
  {
    rule: 'dynamodb_global_table_pitr_enabled',
    breaks: 'a global table whose replica has no point-in-time recovery',
    broken: globalTable({ replicas: [replicaWithoutPitr] }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_pitr_enabled',
    breaks: 'a second replica with point-in-time recovery turned off',
    broken: globalTable({
      replicas: [
        protectedReplica('eu-west-1'),
        {
          ...protectedReplica('eu-central-1'),
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
        },
      ],
    }),
    fixed: globalTable({ replicas: [protectedReplica('eu-west-1'), protectedReplica('eu-central-1')] }),
  },
  {
    rule: 'dynamodb_global_table_deletion_protection_enabled',
    breaks: 'a global table whose replica has no deletion protection',
    broken: globalTable({ replicas: [replicaWithoutProtection] }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_deletion_protection_enabled',
    breaks: 'a replica with deletion protection turned off',
    broken: globalTable({
      replicas: [{ ...protectedReplica('eu-west-1'), DeletionProtectionEnabled: false }],
    }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_encrypted_kms',
    breaks: 'a global table with its encryption removed (no SSESpecification: an AWS owned key)',
    broken: globalTable({ sse: null }),
    fixed: globalTable(),
  },
  {
    rule: 'dynamodb_global_table_encrypted_kms',
    breaks: 'a global table with KMS encryption disabled',
    broken: globalTable({ sse: { SSEEnabled: false } }),
    fixed: globalTable({ sse: { SSEEnabled: true, SSEType: 'KMS' } }),
  },
  {
    rule: 'pipe_event_bus_target_batch_size',
    breaks: 'a batch of 11 from a table’s stream to the template’s event bus',
    broken: streamPipe({ BatchSize: 11 }),
    fixed: streamPipe({ BatchSize: 10 }),
  },
  {
    rule: 'pipe_event_bus_target_batch_size',
    breaks: 'no batch size (the source’s default of 100) to an event bus named by ARN',
    broken: streamPipe({ BatchSize: undefined }, 'arn:aws:events:eu-west-1:123456789012:event-bus/outbound'),
    fixed: streamPipe({ BatchSize: 1 }, 'arn:aws:events:eu-west-1:123456789012:event-bus/outbound'),
  },
  {
    rule: 'pipe_event_bus_target_batch_size',
    breaks: 'a batch of 0',
    broken: streamPipe({ BatchSize: 0 }),
    fixed: streamPipe({ BatchSize: 1 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRetryAttempts of -2',
    broken: streamPipe({ MaximumRetryAttempts: -2 }),
    fixed: streamPipe({ MaximumRetryAttempts: -1 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRetryAttempts of 10,001',
    broken: streamPipe({ MaximumRetryAttempts: 10_001 }),
    fixed: streamPipe({ MaximumRetryAttempts: 10_000 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRecordAgeInSeconds of -2',
    broken: streamPipe({ MaximumRecordAgeInSeconds: -2 }),
    fixed: streamPipe({ MaximumRecordAgeInSeconds: -1 }),
  },
  {
    rule: 'pipe_dynamodb_stream_retry_limits',
    breaks: 'MaximumRecordAgeInSeconds of 604,801 (over a week)',
    broken: streamPipe({ MaximumRecordAgeInSeconds: 604_801 }),
    fixed: streamPipe({ MaximumRecordAgeInSeconds: 604_800 }),
  },
  {
    rule: 'xray_sampling_rule_limits',
    breaks: 'a rule name of 33 characters',
    broken: samplingRule({ RuleName: 'partner-pages-production-extended' }),
    fixed: samplingRule({ RuleName: 'partner-pages-production' }),
  },
  {
    rule: 'xray_sampling_rule_limits',
    breaks: 'a fixed rate given as a percentage (5 for 5 %)',
    broken: samplingRule({ FixedRate: 5 }),
    fixed: samplingRule({ FixedRate: 0.05 }),
  },
  {
    rule: 'xray_sampling_rule_limits',
    breaks: 'priority 10000 (the default rule’s, outside 1–9999)',
    broken: samplingRule({ Priority: 10_000 }),
    fixed: samplingRule({ Priority: 9_999 }),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a production backup plan whose rule copies nothing',
    broken: backupPlan('production'),
    fixed: backupPlan('production', [copyTo(COPY_VAULT)]),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a copy of production’s backups kept 7 days, its source 35',
    broken: backupPlan('production', [copyTo(COPY_VAULT, 7)]),
    fixed: backupPlan('production', [copyTo(COPY_VAULT, 35)]),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a copy into a vault of the template itself (the stage’s own account and region)',
    broken: backupPlan('production', [copyTo({ 'Fn::GetAtt': ['Vault', 'BackupVaultArn'] })]),
    fixed: backupPlan('production', [copyTo(COPY_VAULT)]),
  },
  {
    rule: 'backup_plan_production_copies',
    breaks: 'a plan without the stage tag, copying nothing, in production’s template',
    broken: inProduction(backupPlan('untagged')),
    fixed: inProduction(backupPlan('untagged', [copyTo(COPY_VAULT)])),
  },
  {
    rule: 'backup_plan_in_production',
    breaks: 'production’s template without a backup plan',
    broken: inProduction(),
    fixed: inProduction(backupPlan('production', [copyTo(COPY_VAULT)])),
  },
  {
    rule: 'sqs_dead_letter_retention_longer',
    breaks: 'a dead-letter queue that keeps messages 14 days, as long as its source',
    broken: queueWithDeadLetters(1_209_600, 1_209_600),
    fixed: queueWithDeadLetters(345_600, 1_209_600),
  },
  {
    rule: 'sqs_dead_letter_retention_longer',
    breaks: 'a dead-letter queue that leaves its retention to the default (4 days)',
    broken: queueWithDeadLetters(345_600, undefined),
    fixed: queueWithDeadLetters(345_600, 1_209_600),
  },
  {
    rule: 'sqs_dead_letter_retention_longer',
    breaks: 'a source queue that leaves its retention to the default',
    broken: queueWithDeadLetters(undefined, 1_209_600),
    fixed: queueWithDeadLetters(345_600, 1_209_600),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method that invokes the function itself (all traffic on each new version at once)',
    broken: apiInvoking('function', 'shifted alias'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method that invokes an alias CodeDeploy does not shift',
    broken: apiInvoking('alias', 'shifted alias'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method whose Uri names the function in an Fn::Sub',
    broken: apiInvoking(
      {
        uri: {
          'Fn::Sub': `arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/${SUB_OF_FUNCTION_ARN}/invocations`,
        },
      },
      'shifted alias',
    ),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method whose Uri is a literal ARN',
    broken: apiInvoking(
      {
        uri: 'arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:x/invocations',
      },
      'shifted alias',
    ),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_method_invokes_shifted_alias',
    breaks: 'a method whose Fn::Join hides the function in a nested Fn::Sub',
    broken: apiInvoking({ uri: invocationUri({ 'Fn::Sub': SUB_OF_FUNCTION_ARN }) }, 'shifted alias'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
  {
    rule: 'api_authorizer_invokes_shifted_alias',
    breaks: 'an authorizer that invokes the function itself',
    broken: apiInvoking('shifted alias', 'function'),
    fixed: apiInvoking('shifted alias', 'shifted alias'),
  },
];

describe('our Guard rules (lib/guard-rules/)', () => {
  it.each(cases)('$rule fails the synthesis on $breaks, and passes once fixed', ({ rule, broken, fixed }) => {
    const findings = guardFindings(broken);

    expect(findings).toContain(rule);
    expect(guardFindings(fixed)).toBeUndefined();
  });

  it('has a failing case for every rule it defines', () => {
    const defined = readdirSync(GUARD_RULES_DIRECTORY)
      .filter((file) => file.endsWith('.guard'))
      .flatMap((file) =>
        [...readFileSync(`${GUARD_RULES_DIRECTORY}/${file}`, 'utf8').matchAll(/^rule (\w+) when/gm)].map(
          (match) => match[1],
        ),
      );

    expect(new Set(defined)).toEqual(new Set(cases.map((testCase) => testCase.rule)));
  });

  it('cites AWS’s documentation in every rule file, and has a row for every rule in docs/deploying.md', () => {
    const files = readdirSync(GUARD_RULES_DIRECTORY).filter((file) => file.endsWith('.guard'));
    const deploying = readFileSync('docs/deploying.md', 'utf8');
    for (const file of files) {
      const text = readFileSync(`${GUARD_RULES_DIRECTORY}/${file}`, 'utf8');
      expect(text, file).toMatch(/^#.*https:\/\/docs\.aws\.amazon\.com\//m);
      for (const [, rule] of text.matchAll(/^rule (\w+) when/gm))
        expect(deploying, `docs/deploying.md's row of ${rule}`).toMatch(
          new RegExp(`^\\s*\\| \`${rule}\` \\|`, 'm'),
        );
    }
  });
});
