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
    // The vault's recovery points are encrypted with the AWS managed key of AWS Backup; a DynamoDB
    // backup without AWS Backup's advanced DynamoDB features keeps the table's own key (aws/dynamodb).
    this.vault = new BackupVault(this, 'Vault', {
      removalPolicy: RemovalPolicy.RETAIN,
      lockConfiguration: { minRetention: Duration.days(MIN_RETENTION_DAYS) },
    });
    this.plan = new BackupPlan(this, 'Plan', {
      backupPlanName: `${props.name}-table`,
      backupVault: this.vault,
      backupPlanRules: [
        new BackupPlanRule({
          ruleName: 'daily',
          // 03:00 UTC; the monthly backup two hours later, so the two never start together.
          scheduleExpression: Schedule.cron({ minute: '0', hour: '3' }),
          deleteAfter: Duration.days(props.dailyRetentionDays),
        }),
        new BackupPlanRule({
          ruleName: 'monthly',
          scheduleExpression: Schedule.cron({ minute: '0', hour: '5', day: '1' }),
          deleteAfter: Duration.days(props.monthlyRetentionDays),
        }),
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
