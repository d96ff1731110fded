import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IBackupVault } from 'aws-cdk-lib/aws-backup';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeGuardFinding, acknowledgeNagFinding } from './nag';

export interface TableBackupProps {
  readonly table: ITableV2;
  /** The plan's name, unique in the account and region (the stack's name). */
  readonly name: string;
  /** How long each daily backup is kept (at least 35 days: less is what point-in-time recovery already gives). */
  readonly dailyRetentionDays: number;
  /** How long each monthly backup is kept: the audit trail's retention, so each event stays recoverable for all of it. */
  readonly monthlyRetentionDays: number;
  /**
   * The vault, in another region or another account, each recovery point is copied to, kept as long
   * as its source (`backupCopyVaultArn` of the deployment; lib/stage-config.ts refuses one in the
   * stage's own region and account where it can tell).
   */
  readonly copyVaultArn: string | undefined;
}

/** The least any recovery point in the vault is kept: point-in-time recovery's own window. */
const MIN_RETENTION_DAYS = 35;

/**
 * The states in which a backup job of the vault ended without a recovery point: failed, aborted,
 * or expired (it never started within its window). AWS Backup sends each change of a job's state
 * to EventBridge as `Backup Job State Change` (best effort, within about 5 minutes):
 * https://docs.aws.amazon.com/aws-backup/latest/devguide/eventbridge.html
 */
const FAILED_BACKUP_JOB_STATES = ['FAILED', 'ABORTED', 'EXPIRED'] as const;

/**
 * How long AWS Backup may wait to start a scheduled job before it gives up on it (EXPIRED, which the
 * backup-failed alarm reports): an hour, so the newest recovery point of a day is never older than a
 * day and about an hour, which `npm run verify` holds it to.
 */
export const BACKUP_START_WINDOW_HOURS = 1;

/** The event pattern of a backup job of `vaultName` that ended without a recovery point. */
function failedBackupJobPattern(vaultName: string) {
  return {
    source: ['aws.backup'],
    detailType: ['Backup Job State Change'],
    detail: { state: [...FAILED_BACKUP_JOB_STATES], backupVaultName: [vaultName] },
  };
}

/**
 * AWS Backup of the table, beyond what point-in-time recovery gives (any second of the last 35
 * days, and gone with the table's PITR setting): a daily backup kept `dailyRetentionDays` and a
 * monthly one kept `monthlyRetentionDays`, in a vault of their own that outlives the stack and
 * refuses to delete a recovery point younger than 35 days (a vault lock in governance mode: only a
 * principal allowed `backup:DeleteBackupVaultLockConfiguration` can lift it).
 * https://docs.aws.amazon.com/aws-backup/latest/devguide/vault-lock.html
 */
export class TableBackup extends Construct {
  public readonly vault: IBackupVault;
  public readonly plan: BackupPlan;
  /**
   * Each backup job of the vault that ended without a recovery point, as AWS Backup's event says
   * it (its `statusMessage` tells why), kept 14 days for whoever answers the alarm.
   */
  public readonly failedJobs: Queue;

  constructor(scope: Construct, id: string, props: TableBackupProps) {
    super(scope, id);
    if (props.dailyRetentionDays < MIN_RETENTION_DAYS || props.monthlyRetentionDays < MIN_RETENTION_DAYS)
      throw new Error(
        `Backups are kept at least ${MIN_RETENTION_DAYS} days (point-in-time recovery's window).`,
      );
    // stageConfig() refuses this first, in its one line; a backup of one account and region is not enough.
    if (!props.copyVaultArn) throw new Error('Backups are copied to a vault in another region or account.');
    // The vault's recovery points are encrypted with the AWS managed key of AWS Backup; a DynamoDB
    // backup without AWS Backup's advanced DynamoDB features keeps the table's own key (aws/dynamodb).
    this.vault = new BackupVault(this, 'Vault', {
      removalPolicy: RemovalPolicy.RETAIN,
      lockConfiguration: { minRetention: Duration.days(MIN_RETENTION_DAYS) },
    });
    // Copies outlive the account and the region of the stage. AWS Backup copies each new recovery
    // point to the vault as part of the rule, which keeps the copy as long as the source (a copy's
    // lifetime counts from its source's creation):
    // https://docs.aws.amazon.com/aws-backup/latest/devguide/recov-point-create-a-copy.html
    // A DynamoDB table's copies to another region or account need AWS Backup's advanced DynamoDB
    // backup features, on by default in accounts without a vault before 21 November 2021 and
    // otherwise turned on per region (docs/deploying.md says how):
    // https://docs.aws.amazon.com/aws-backup/latest/devguide/advanced-ddb-backup.html
    const copyVault = BackupVault.fromBackupVaultArn(this, 'CopyVault', props.copyVaultArn);
    const rule = (ruleName: string, scheduleExpression: Schedule, retentionDays: number) =>
      new BackupPlanRule({
        ruleName,
        scheduleExpression,
        startWindow: Duration.hours(BACKUP_START_WINDOW_HOURS),
        deleteAfter: Duration.days(retentionDays),
        copyActions: [{ destinationBackupVault: copyVault, deleteAfter: Duration.days(retentionDays) }],
      });
    this.plan = new BackupPlan(this, 'Plan', {
      backupPlanName: `${props.name}-table`,
      backupVault: this.vault,
      backupPlanRules: [
        // 03:00 UTC; the monthly backup two hours later, so the two never start together.
        rule('daily', Schedule.cron({ minute: '0', hour: '3' }), props.dailyRetentionDays),
        rule('monthly', Schedule.cron({ minute: '0', hour: '5', day: '1' }), props.monthlyRetentionDays),
      ],
    });
    this.failedJobs = new Queue(this, 'FailedJobs', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const noConsumer =
      "No function reads this queue: it keeps AWS Backup's events of failed backup jobs for the operator who " +
      'answers the backup-failed alarm, so there is no failed receive to move to a dead-letter queue.';
    acknowledgeNagFinding(this.failedJobs, 'SQS3', noConsumer);
    acknowledgeGuardFinding(this.failedJobs, 'sqs_dlq_check', noConsumer);
    new Rule(this, 'FailedJobRule', {
      description: "AWS Backup's event of a backup job of the table that ended without a recovery point",
      eventPattern: failedBackupJobPattern(this.vault.backupVaultName),
      targets: [new SqsQueue(this.failedJobs)],
    });
    const selection = this.plan.addSelection('Table', {
      resources: [BackupResource.fromArn(props.table.tableArn)],
      allowRestores: true,
    });
    acknowledgeNagFinding(
      selection,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      'The AWS-managed policy AWS Backup documents for the role it backs up with; the role is assumable only by ' +
        'backup.amazonaws.com and its plan selects this one table.',
    );
    acknowledgeNagFinding(
      selection,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores]',
      'The AWS-managed policy AWS Backup documents for restores, so an operator restores a recovery point with ' +
        'this role (docs/deploying.md) rather than a broader one made in a hurry.',
    );
  }
}
