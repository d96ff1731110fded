import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DEPLOYED_STAGES } from '../../core/stages';
import { BACKUP_START_WINDOW_HOURS } from '../../lib/constructs/table-backup';
import { COST_WATCH_REGION, costWatchStackName } from '../../lib/cost-watch-stack';
import { stackName, stageConfig, stageSettings } from '../../lib/stage-config';
import { RECOVERY_POINT_MAX_AGE_HOURS } from '../../verify/backup-probe';
import { TEST_ALARM_TOPIC_ARN, TEST_BACKUP_COPY_VAULT_ARN, TEST_CUSTOM_DOMAIN } from './app-synthesis';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp, TEST_DEPLOYMENT } from './synthesized-app';

/**
 * Issue 37, items 9 and 10, held to the synthesized templates: production's backups copied to the
 * deployment's vault in another region or account with their source's retention, and each stage's
 * cost watched by a budget and an anomaly monitor of its `stage` tag, in a stack of us-east-1 that
 * the stage waits for (docs/deploying.md).
 */

interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

let synthesized: SynthesizedApp;

beforeAll(() => {
  synthesized = synthesizedApp();
});

const of = (template: { findResources(type: string): Record<string, unknown> }, type: string) =>
  Object.values(template.findResources(type)) as CfnResource[];

interface PlanRule {
  readonly RuleName: string;
  readonly StartWindowMinutes?: number;
  readonly Lifecycle: { readonly DeleteAfterDays: number };
  readonly CopyActions?: readonly {
    readonly DestinationBackupVaultArn: unknown;
    readonly Lifecycle?: { readonly DeleteAfterDays?: number };
  }[];
}

/** The rules of production's one backup plan. */
function productionPlanRules(): PlanRule[] {
  const [plan] = of(synthesized.templates.production, 'AWS::Backup::BackupPlan');
  if (!plan) throw new Error('production has a backup plan');
  return (plan.Properties.BackupPlan as { BackupPlanRule: PlanRule[] }).BackupPlanRule;
}

describe('backups that survive the account or the region (production)', () => {
  it('copies every rule’s recovery points to the deployment’s vault, kept exactly as long as their source', () => {
    const [plan] = of(synthesized.templates.production, 'AWS::Backup::BackupPlan');
    const rules = productionPlanRules();
    const config = stageConfig('production', TEST_DEPLOYMENT.production);
    if (config.tableBackup === 'none') throw new Error('production keeps backups');

    expect(rules.map((rule) => [rule.RuleName, rule.Lifecycle.DeleteAfterDays])).toEqual([
      ['daily', config.tableBackup.dailyRetentionDays],
      ['monthly', config.auditRetentionDays],
    ]);
    for (const rule of rules)
      expect(rule.CopyActions, rule.RuleName).toEqual([
        {
          DestinationBackupVaultArn: TEST_BACKUP_COPY_VAULT_ARN,
          Lifecycle: { DeleteAfterDays: rule.Lifecycle.DeleteAfterDays },
        },
      ]);
    // The example vault is in another region than the stage's certificate says the stage is in.
    expect(TEST_BACKUP_COPY_VAULT_ARN.split(':')[3]).not.toBe(
      TEST_CUSTOM_DOMAIN.certificateArn.split(':')[3],
    );
    // The plan is production's by its tag, which the Guard rule backup_plan_production_copies reads.
    expect(plan?.Properties.BackupPlanTags).toMatchObject({ stage: 'production' });
  });

  it('starts each backup within an hour or reports it expired, so verify may hold the newest to a day and two hours', () => {
    const rules = productionPlanRules();

    for (const rule of rules) expect(rule.StartWindowMinutes).toBe(BACKUP_START_WINDOW_HOURS * 60);
    // A day between daily backups, the start window, and an hour for the job to finish.
    expect(RECOVERY_POINT_MAX_AGE_HOURS).toBe(24 + BACKUP_START_WINDOW_HOURS + 1);
  });

  it('keeps no AWS Backup, so no copy, in the sandbox', () => {
    expect(of(synthesized.templates.sandbox, 'AWS::Backup::BackupPlan')).toEqual([]);
    expect(stageSettings.sandbox.tableBackup).toBe('none');
  });
});

describe('what each stage costs, watched (PartnerApi-<stage>-costs)', () => {
  const manifest = () =>
    JSON.parse(readFileSync(join(inject('infraCloudAssembly'), 'cdk.out', 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { environment?: string; dependencies?: string[] }>;
    };

  it('is a stack of us-east-1 per stage, which the stage’s stack waits for', () => {
    const { artifacts } = manifest();
    for (const stage of DEPLOYED_STAGES) {
      // Cost Explorer's resources exist in us-east-1 only; the account is the credentials'.
      expect(artifacts[costWatchStackName(stage)]?.environment).toBe(
        `aws://unknown-account/${COST_WATCH_REGION}`,
      );
      expect(artifacts[stackName(stage)]?.dependencies).toContain(costWatchStackName(stage));
    }
  });

  it.each(DEPLOYED_STAGES)('budgets %s a month of the costs tagged with its stage', (stage) => {
    const [budget] = of(synthesized.costTemplates[stage], 'AWS::Budgets::Budget');

    expect(budget?.Properties.Budget).toEqual({
      BudgetName: `${stackName(stage)}-monthly`,
      BudgetType: 'COST',
      TimeUnit: 'MONTHLY',
      BudgetLimit: { Amount: stageSettings[stage].monthlyBudgetUsd, Unit: 'USD' },
      CostFilters: { TagKeyValue: [`user:stage$${stage}`] },
    });
  });

  it('alerts production’s alarm topic at 80 % spent and at a forecast over 100 %', () => {
    const [budget] = of(synthesized.costTemplates.production, 'AWS::Budgets::Budget');
    const toTopic = [{ SubscriptionType: 'SNS', Address: TEST_ALARM_TOPIC_ARN }];

    expect(budget?.Properties.NotificationsWithSubscribers).toEqual([
      {
        Notification: {
          NotificationType: 'ACTUAL',
          ComparisonOperator: 'GREATER_THAN',
          Threshold: 80,
          ThresholdType: 'PERCENTAGE',
        },
        Subscribers: toTopic,
      },
      {
        Notification: {
          NotificationType: 'FORECASTED',
          ComparisonOperator: 'GREATER_THAN',
          Threshold: 100,
          ThresholdType: 'PERCENTAGE',
        },
        Subscribers: toTopic,
      },
    ]);
  });

  it.each(DEPLOYED_STAGES)('watches the costs tagged with %s for anomalies', (stage) => {
    const [monitor] = of(synthesized.costTemplates[stage], 'AWS::CE::AnomalyMonitor');

    expect(monitor?.Properties).toMatchObject({
      MonitorName: `${stackName(stage)}-stage-tag`,
      MonitorType: 'CUSTOM',
    });
    expect(monitor?.Properties.MonitorDimension).toBeUndefined();
    expect(JSON.parse(String(monitor?.Properties.MonitorSpecification))).toEqual({
      Tags: { Key: 'stage', Values: [stage] },
    });
  });

  it('tells production’s alarm topic of each anomaly of at least a tenth of its budget, at once', () => {
    const [subscription] = of(synthesized.costTemplates.production, 'AWS::CE::AnomalySubscription');
    const [monitorId] = Object.keys(
      synthesized.costTemplates.production.findResources('AWS::CE::AnomalyMonitor'),
    );

    expect(subscription?.Properties).toMatchObject({
      Frequency: 'IMMEDIATE',
      MonitorArnList: [{ 'Fn::GetAtt': [monitorId, 'MonitorArn'] }],
      Subscribers: [{ Type: 'SNS', Address: TEST_ALARM_TOPIC_ARN }],
    });
    expect(JSON.parse(String(subscription?.Properties.ThresholdExpression))).toEqual({
      Dimensions: {
        Key: 'ANOMALY_TOTAL_IMPACT_ABSOLUTE',
        MatchOptions: ['GREATER_THAN_OR_EQUAL'],
        Values: [String(stageSettings.production.monthlyBudgetUsd / 10)],
      },
    });
  });

  it('keeps the sandbox’s budget and anomalies in the console when it has no alarm topic (a notification needs a subscriber)', () => {
    expect(TEST_DEPLOYMENT.sandbox.alarmTopicArn).toBeUndefined();
    const [budget] = of(synthesized.costTemplates.sandbox, 'AWS::Budgets::Budget');

    expect(budget?.Properties.NotificationsWithSubscribers).toBeUndefined();
    expect(of(synthesized.costTemplates.sandbox, 'AWS::CE::AnomalySubscription')).toEqual([]);
  });
});
