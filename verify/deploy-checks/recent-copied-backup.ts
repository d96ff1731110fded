import { RECOVERY_POINT_MAX_AGE_HOURS } from '../backup-probe';
import type { Check, Verdict } from '../checks';
import { fail, pass, skip } from '../checks';
import type { StageRun, VerifyContext } from './stage-run';

/** The backup check: it needs nothing of the run, and skips, saying why, where there is no AWS Backup. */
export const BACKUP_CHECK =
  'AWS Backup: a recovery point of the table under a day old, copied to the other vault';

/** How long a new recovery point's copy may take before the check wants that copy, not an older one's. */
const COPY_GRACE_HOURS = 2;

/**
 * The table's newest completed recovery point is under a day old (the daily rule's, with its start
 * window) and a completed copy job of the table's was created in that time: the backups exist, and
 * their copies reach the vault in the other region or account.
 */
export async function recentCopiedBackup(backups: VerifyContext['backups']): Promise<Verdict> {
  if ('skip' in backups) return skip(backups.skip);
  const lookAt = `backup:ListRecoveryPointsByResource and backup:ListCopyJobs (your credentials); the backup-failed alarm and the FailedBackupJobsQueueUrl output; aws backup list-copy-jobs --by-resource-arn ${backups.tableArn} (a FAILED copy names its reason: the destination vault's access policy, advanced DynamoDB backup in docs/deploying.md#backups-of-the-production-table)`;
  const since = new Date(Date.now() - RECOVERY_POINT_MAX_AGE_HOURS * 3_600_000);
  const madeAt = (seconds: number | undefined) => new Date((seconds ?? 0) * 1000);
  const [newest] = (await backups.recoveryPoints())
    // AWS Backup's status of a finished recovery point (ListRecoveryPointsByResource lists both).
    .filter((point) => point.Status === 'COMPLETED' || point.Status === 'AVAILABLE')
    .sort((a, b) => (b.CreationDate ?? 0) - (a.CreationDate ?? 0));
  const hoursOld = (date: Date) => ((Date.now() - date.getTime()) / 3_600_000).toFixed(1);
  if (!newest || madeAt(newest.CreationDate) < since)
    return fail(
      newest
        ? `the newest completed recovery point is ${hoursOld(madeAt(newest.CreationDate))} h old (${newest.RecoveryPointArn})`
        : 'the table has no completed recovery point',
      lookAt,
    );
  const copies = await backups.completedCopyJobs(since);
  // The newest point's copy; while that copy may still be running (a point under COPY_GRACE_HOURS
  // old), a completed copy of the point before it.
  const copyOfNewest = copies.find((job) => job.SourceRecoveryPointArn === newest.RecoveryPointArn);
  const newestIsFresh = Date.now() - madeAt(newest.CreationDate).getTime() < COPY_GRACE_HOURS * 3_600_000;
  const copy = copyOfNewest ?? (newestIsFresh ? copies[0] : undefined);
  if (!copy)
    return fail(
      `the newest recovery point (${hoursOld(madeAt(newest.CreationDate))} h old, ${newest.RecoveryPointArn}) has no completed copy${copies.length > 0 ? ', though older ones do' : ` and no copy job of the table completed in the last ${RECOVERY_POINT_MAX_AGE_HOURS} h`}`,
      lookAt,
    );
  return pass(
    `${hoursOld(madeAt(newest.CreationDate))} h old in ${newest.BackupVaultName ?? 'the vault'}; copied to ${copy.DestinationBackupVaultArn ?? 'the other vault'} ${hoursOld(madeAt(copy.CreationDate))} h ago`,
  );
}

export const backupCheck: Check<StageRun> = {
  name: BACKUP_CHECK,
  run: ({ context }) => recentCopiedBackup(context.backups),
};
