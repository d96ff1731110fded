import {
  BackupClient,
  ListCopyJobsCommand,
  ListRecoveryPointsByResourceCommand,
} from '@aws-sdk/client-backup';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeployedStage } from '../core/stages';
import { STACK_OUTPUTS, stackName, stageSettings } from '../lib/stage-config';

/**
 * What the deploy verification asks AWS Backup about the stage's table, with your credentials and
 * region as every other call of the run: its recovery points (`ListRecoveryPointsByResource`) and
 * the copy jobs that copied them to the other vault (`ListCopyJobs`).
 * https://docs.aws.amazon.com/aws-backup/latest/devguide/API_ListRecoveryPointsByResource.html
 * https://docs.aws.amazon.com/aws-backup/latest/devguide/API_ListCopyJobs.html
 */

/** A recovery point as AWS Backup lists it (the fields read here; dates in epoch seconds). */
export interface RecoveryPoint {
  readonly RecoveryPointArn?: string;
  readonly BackupVaultName?: string;
  readonly CreationDate?: number;
  readonly Status?: string;
}

/** A copy job as AWS Backup lists it (the fields read here; dates in epoch seconds). */
export interface CopyJob {
  readonly SourceRecoveryPointArn?: string;
  readonly DestinationBackupVaultArn?: string;
  readonly CreationDate?: number;
}

/** The stage's table, and AWS Backup's lists about it. */
export interface BackupProbe {
  readonly tableArn: string;
  /** Every recovery point of the table in the stage's account and region. */
  recoveryPoints(): Promise<readonly RecoveryPoint[]>;
  /** The table's copy jobs that completed, created since `since`. */
  completedCopyJobs(since: Date): Promise<readonly CopyJob[]>;
}

/**
 * The newest recovery point of a day may be a day, the daily rule's start window of an hour
 * (`BACKUP_START_WINDOW_HOURS` of lib/constructs/table-backup.ts) and its run old before the next
 * replaces it: the check's "under a day" allows that much.
 */
export const RECOVERY_POINT_MAX_AGE_HOURS = 26;

/** AWS Backup's lists about a deployed stage's table (found by the stack's TableName output). */
async function deployedBackupProbe(stage: DeployedStage, timeoutMs: number): Promise<BackupProbe> {
  const stack = stackName(stage);
  const { Stacks } = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: stack }));
  const tableName = Stacks?.[0]?.Outputs?.find(
    (output) => output.OutputKey === STACK_OUTPUTS.tableName,
  )?.OutputValue;
  if (!tableName) throw new Error(`Stack ${stack} has no ${STACK_OUTPUTS.tableName} output.`);
  const dynamodb = new DynamoDBClient({});
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  const tableArn = Table?.TableArn;
  if (!tableArn) throw new Error(`DescribeTable of ${tableName} returned no ARN.`);
  const backup = new BackupClient({});
  const options = () => ({ abortSignal: AbortSignal.timeout(timeoutMs) });
  const epochSeconds = (date: Date | undefined) => (date ? date.getTime() / 1000 : undefined);
  return {
    tableArn,
    recoveryPoints: async () => {
      const { RecoveryPoints = [] } = await backup.send(
        new ListRecoveryPointsByResourceCommand({ ResourceArn: tableArn, MaxResults: 1000 }),
        options(),
      );
      return RecoveryPoints.map((point) => ({
        RecoveryPointArn: point.RecoveryPointArn,
        BackupVaultName: point.BackupVaultName,
        CreationDate: epochSeconds(point.CreationDate),
        Status: point.Status,
      }));
    },
    completedCopyJobs: async (since) => {
      const { CopyJobs = [] } = await backup.send(
        new ListCopyJobsCommand({
          ByResourceArn: tableArn,
          ByState: 'COMPLETED',
          ByCreatedAfter: since,
          MaxResults: 1000,
        }),
        options(),
      );
      return CopyJobs.map((job) => ({
        SourceRecoveryPointArn: job.SourceRecoveryPointArn,
        DestinationBackupVaultArn: job.DestinationBackupVaultArn,
        CreationDate: epochSeconds(job.CreationDate),
      }));
    },
  };
}

/** The backup check's probe on `stage`, or why it has nothing to check there. */
export async function backupProbeOf(
  stage: DeployedStage | 'local',
  timeoutMs: number,
): Promise<BackupProbe | { readonly skip: string }> {
  if (stage === 'local') return { skip: 'the local server has no AWS Backup' };
  if (stageSettings[stage].tableBackup === 'none')
    return {
      skip: `${stage} keeps no AWS Backup of its table (tableBackup: 'none' in lib/stage-config.ts); point-in-time recovery is its only restore`,
    };
  return deployedBackupProbe(stage, timeoutMs);
}
