import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { attachTemplateChecks } from '../../lib/template-checks';
import { backupPlan, globalTable, guardFindings } from '../support/guard-templates';

/** Which templates our Guard rules judge, and the app's checks attached as bin/app.ts attaches them. */

describe('the backup copy rule (backup-copy-production.guard)', () => {
  it('judges production’s plans only: a sandbox plan, or one without the stage tag, may keep its backups at home', () => {
    expect(guardFindings(backupPlan('sandbox'))).toBeUndefined();
    const { Plan: plan, ...rest } = backupPlan('production');
    if (!plan?.properties) throw new Error('no plan');
    const { BackupPlanTags: _tags, ...untagged } = plan.properties;
    expect(guardFindings({ ...rest, Plan: { ...plan, properties: untagged } })).toBeUndefined();
  });
});

describe('our DynamoDB rules beside the Control Tower controls', () => {
  it('check the global table that CT.DYNAMODB.PR.1 and PR.2 never select', () => {
    // The same broken table with Control Tower's rules alone passes: they select AWS::DynamoDB::Table.
    const app = new App();
    const stack = new Stack(app, 'Checked');
    const { Table: table } = globalTable({ sse: null, replicas: [{ Region: 'eu-west-1' }] });
    if (!table) throw new Error('no table');
    new CfnResource(stack, 'Table', {
      type: table.type,
      ...(table.properties ? { properties: table.properties } : {}),
    });
    Validations.of(app).addPlugins(new CfnGuardValidator({ controlTowerRulesEnabled: true }));
    expect(() => app.synth()).not.toThrow();

    const findings = guardFindings(globalTable({ sse: null, replicas: [{ Region: 'eu-west-1' }] }));
    for (const rule of [
      'dynamodb_global_table_pitr_enabled',
      'dynamodb_global_table_deletion_protection_enabled',
      'dynamodb_global_table_encrypted_kms',
    ])
      expect(findings).toContain(rule);
  });
});

describe('the checks of the app (lib/template-checks.ts)', () => {
  it('fail the synthesis on a violation, with both plugins attached as bin/app.ts attaches them', () => {
    const app = new App();
    const stack = new Stack(app, 'Checked');
    new CfnResource(stack, 'Logs', { type: 'AWS::Logs::LogGroup', properties: { RetentionInDays: 42 } });
    attachTemplateChecks(app);

    expect(() => app.synth()).toThrow(/log_group_retention_allowed/);
  });
});
