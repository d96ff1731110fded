import {
  BackupClient,
  ListCopyJobsCommand,
  ListRecoveryPointsByResourceCommand,
} from '@aws-sdk/client-backup';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '../../lib/stage-config';
import type { BackupProbe, CopyJob, RecoveryPoint } from '../../verify/backup-probe';
import { backupProbeOf, RECOVERY_POINT_MAX_AGE_HOURS } from '../../verify/backup-probe';
import { recentCopiedBackup } from '../../verify/deploy-checks/recent-copied-backup';

/**
 * `npm run verify`'s backup check (verify/deploy-checks/recent-copied-backup.ts) on the lists AWS Backup would answer,
 * and the two requests it makes of AWS Backup (verify/backup-probe.ts). What AWS answers on a
 * deployed stage is for the run itself to show.
 */

const TABLE_ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/PartnerApi-production-DataTable-ABC';
const COPY_VAULT = 'arn:aws:backup:eu-central-1:123456789012:backup-vault:partner-api-copies';
const hoursAgo = (hours: number) => Math.round((Date.now() - hours * 3_600_000) / 1000);

function probe(points: RecoveryPoint[], copies: CopyJob[]): BackupProbe & { since?: Date } {
  const result: BackupProbe & { since?: Date } = {
    tableArn: TABLE_ARN,
    recoveryPoints: async () => points,
    completedCopyJobs: async (since) => {
      result.since = since;
      return copies;
    },
  };
  return result;
}

const point = (hours: number, status = 'COMPLETED'): RecoveryPoint => ({
  RecoveryPointArn: `arn:aws:backup:eu-west-1:123456789012:recovery-point:${hours}`,
  BackupVaultName: 'BackupVault',
  CreationDate: hoursAgo(hours),
  Status: status,
});

describe('the backup check of npm run verify', () => {
  it('skips, saying why, where there is no AWS Backup: locally, and on a stage that keeps none', async () => {
    expect(await backupProbeOf('local', 1_000)).toEqual({ skip: 'the local server has no AWS Backup' });
    const sandbox = await backupProbeOf('sandbox', 1_000);
    expect(sandbox).toEqual({ skip: expect.stringMatching(/^sandbox keeps no AWS Backup of its table/) });
    expect(await recentCopiedBackup(sandbox)).toEqual({
      outcome: 'SKIP',
      detail: expect.stringContaining("tableBackup: 'none'"),
    });
  });

  it('passes on a completed recovery point under a day old whose copy completed, naming where it went', async () => {
    const backups = probe(
      [point(50), point(3), point(1, 'CREATED')],
      [
        {
          SourceRecoveryPointArn: point(3).RecoveryPointArn,
          DestinationBackupVaultArn: COPY_VAULT,
          CreationDate: hoursAgo(2.5),
        },
      ],
    );

    const verdict = await recentCopiedBackup(backups);

    expect(verdict).toEqual({
      outcome: 'PASS',
      detail: `3.0 h old in BackupVault; copied to ${COPY_VAULT} 2.5 h ago`,
    });
    // Copies are looked for over the same window as the recovery point.
    expect(Date.now() - (backups.since?.getTime() ?? 0)).toBeGreaterThanOrEqual(
      RECOVERY_POINT_MAX_AGE_HOURS * 3_600_000,
    );
  });

  it('allows the daily rule its start window: a point of 25 hours passes, one of 27 fails', async () => {
    const copiedFrom = (hours: number) => [
      {
        SourceRecoveryPointArn: point(hours).RecoveryPointArn,
        DestinationBackupVaultArn: COPY_VAULT,
        CreationDate: hoursAgo(24),
      },
    ];
    expect((await recentCopiedBackup(probe([point(25)], copiedFrom(25)))).outcome).toBe('PASS');
    const stale = await recentCopiedBackup(probe([point(27)], copiedFrom(27)));
    expect(stale).toMatchObject({
      outcome: 'FAIL',
      detail: expect.stringMatching(/^the newest completed recovery point is 27\.0 h old/),
    });
    expect(stale.lookAt).toContain(`aws backup list-copy-jobs --by-resource-arn ${TABLE_ARN}`);
  });

  it('wants the newest point’s own copy, but for the 2 hours its copy may still be running', async () => {
    const olderCopy = [
      {
        SourceRecoveryPointArn: point(20).RecoveryPointArn,
        DestinationBackupVaultArn: COPY_VAULT,
        CreationDate: hoursAgo(19),
      },
    ];
    // A point of 5 hours whose copy never completed: an older point's copy does not stand in for it.
    expect(await recentCopiedBackup(probe([point(20), point(5)], olderCopy))).toMatchObject({
      outcome: 'FAIL',
      detail: expect.stringMatching(
        /^the newest recovery point \(5\.0 h old, .*\) has no completed copy, though older ones do$/,
      ),
    });
    // A point of an hour, its copy under way: the point before it, copied, passes.
    expect((await recentCopiedBackup(probe([point(20), point(1)], olderCopy))).outcome).toBe('PASS');
    // AWS Backup's AVAILABLE is a finished point too.
    expect((await recentCopiedBackup(probe([point(20, 'AVAILABLE')], olderCopy))).outcome).toBe('PASS');
  });

  it('fails on a table with no completed recovery point, and on backups that were not copied', async () => {
    expect(await recentCopiedBackup(probe([point(2, 'PARTIAL')], []))).toMatchObject({
      outcome: 'FAIL',
      detail: 'the table has no completed recovery point',
    });
    expect(await recentCopiedBackup(probe([point(2)], []))).toMatchObject({
      outcome: 'FAIL',
      detail: `the newest recovery point (2.0 h old, ${point(2).RecoveryPointArn}) has no completed copy and no copy job of the table completed in the last ${RECOVERY_POINT_MAX_AGE_HOURS} h`,
    });
  });
});

describe('the requests the backup check makes of AWS Backup', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  const dynamodb = mockClient(DynamoDBClient);
  const backup = mockClient(BackupClient);

  beforeEach(() => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'PartnerApi-production',
          CreationTime: new Date(),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: [
            { OutputKey: STACK_OUTPUTS.tableName, OutputValue: 'PartnerApi-production-DataTable-ABC' },
          ],
        },
      ],
    });
    dynamodb.on(DescribeTableCommand).resolves({ Table: { TableArn: TABLE_ARN } });
  });

  afterEach(() => {
    cloudFormation.reset();
    dynamodb.reset();
    backup.reset();
  });

  it('lists the recovery points of the table by its ARN, and its completed copy jobs since a time', async () => {
    const created = new Date('2026-11-28T04:00:00.000Z');
    backup.on(ListRecoveryPointsByResourceCommand).resolves({
      RecoveryPoints: [
        {
          RecoveryPointArn: 'arn:point',
          BackupVaultName: 'BackupVault',
          CreationDate: created,
          Status: 'COMPLETED',
        },
      ],
    });
    backup.on(ListCopyJobsCommand).resolves({
      CopyJobs: [
        { SourceRecoveryPointArn: 'arn:point', DestinationBackupVaultArn: COPY_VAULT, CreationDate: created },
      ],
    });
    const backups = await backupProbeOf('production', 1_000);
    if ('skip' in backups) throw new Error('production keeps backups');
    const since = new Date('2026-11-28T03:00:00.123Z');

    // Dates as epoch seconds, as the check compares them.
    expect(await backups.recoveryPoints()).toEqual([
      {
        RecoveryPointArn: 'arn:point',
        BackupVaultName: 'BackupVault',
        CreationDate: created.getTime() / 1000,
        Status: 'COMPLETED',
      },
    ]);
    expect(await backups.completedCopyJobs(since)).toEqual([
      {
        SourceRecoveryPointArn: 'arn:point',
        DestinationBackupVaultArn: COPY_VAULT,
        CreationDate: created.getTime() / 1000,
      },
    ]);
    expect(backup.commandCalls(ListRecoveryPointsByResourceCommand)[0]?.args[0].input).toEqual({
      ResourceArn: TABLE_ARN,
      MaxResults: 1000,
    });
    expect(backup.commandCalls(ListCopyJobsCommand)[0]?.args[0].input).toEqual({
      ByResourceArn: TABLE_ARN,
      ByState: 'COMPLETED',
      ByCreatedAfter: since,
      MaxResults: 1000,
    });
  });

  it('lets AWS’s refusal through with its message', async () => {
    backup.on(ListRecoveryPointsByResourceCommand).rejects(
      Object.assign(new Error('User is not authorized to perform: backup:ListRecoveryPointsByResource'), {
        name: 'AccessDeniedException',
      }),
    );
    const backups = await backupProbeOf('production', 1_000);
    if ('skip' in backups) throw new Error('production keeps backups');

    await expect(backups.recoveryPoints()).rejects.toThrow('User is not authorized');
  });
});
