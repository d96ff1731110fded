import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STACK_OUTPUTS } from '../../lib/stage-config';
import type { BackupProbe, CopyJob, RecoveryPoint } from '../../verify/backup-probe';
import { backupProbeOf, RECOVERY_POINT_MAX_AGE_HOURS } from '../../verify/backup-probe';
import { recentCopiedBackup } from '../../verify/deploy-checks';

/**
 * `npm run verify`'s backup check (verify/deploy-checks.ts) on the lists AWS Backup would answer,
 * and the two requests it makes of AWS Backup's REST API (verify/backup-probe.ts), signed as the
 * SDK signs them. What AWS answers on a deployed stage is for the run itself to show.
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
    const copied = [{ DestinationBackupVaultArn: COPY_VAULT, CreationDate: hoursAgo(24) }];
    expect((await recentCopiedBackup(probe([point(25)], copied))).outcome).toBe('PASS');
    const stale = await recentCopiedBackup(probe([point(27)], copied));
    expect(stale).toMatchObject({
      outcome: 'FAIL',
      detail: expect.stringMatching(/^the newest completed recovery point is 27\.0 h old/),
    });
    expect(stale.lookAt).toContain(`aws backup list-copy-jobs --by-resource-arn ${TABLE_ARN}`);
  });

  it('fails on a table with no completed recovery point, and on backups that were not copied', async () => {
    expect(await recentCopiedBackup(probe([point(2, 'PARTIAL')], []))).toMatchObject({
      outcome: 'FAIL',
      detail: 'the table has no completed recovery point',
    });
    expect(await recentCopiedBackup(probe([point(2)], []))).toMatchObject({
      outcome: 'FAIL',
      detail: `no copy job of the table completed in the last ${RECOVERY_POINT_MAX_AGE_HOURS} h (newest recovery point 2.0 h old)`,
    });
  });
});

describe('the requests the backup check makes of AWS Backup', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  const dynamodb = mockClient(DynamoDBClient);
  const requests: { url: URL; headers: Record<string, string> }[] = [];

  beforeEach(() => {
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_PROFILE', '');
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
    vi.stubGlobal('fetch', async (url: URL, init: { headers: Record<string, string> }) => {
      requests.push({ url, headers: init.headers });
      return new Response(JSON.stringify({ RecoveryPoints: [point(1)], CopyJobs: [] }), { status: 200 });
    });
  });

  afterEach(() => {
    cloudFormation.reset();
    dynamodb.reset();
    requests.length = 0;
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  });

  it('lists the recovery points of the table by its ARN, and its completed copy jobs since a time, signed for backup in the region', async () => {
    const backups = await backupProbeOf('production', 1_000);
    if ('skip' in backups) throw new Error('production keeps backups');

    expect(await backups.recoveryPoints()).toHaveLength(1);
    await backups.completedCopyJobs(new Date('2026-11-28T03:00:00.123Z'));

    const [points, copies] = requests;
    expect(points?.url.toString()).toBe(
      `https://backup.eu-west-1.amazonaws.com/resources/${encodeURIComponent(TABLE_ARN)}/recovery-points/?maxResults=1000`,
    );
    expect(copies?.url.origin + (copies?.url.pathname ?? '')).toBe(
      'https://backup.eu-west-1.amazonaws.com/copy-jobs/',
    );
    expect(Object.fromEntries(copies?.url.searchParams ?? [])).toEqual({
      resourceArn: TABLE_ARN,
      state: 'COMPLETED',
      createdAfter: '2026-11-28T03:00:00Z',
      maxResults: '1000',
    });
    for (const request of requests)
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/backup\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
      );
  });

  it('names AWS’s message when AWS Backup refuses', async () => {
    vi.stubGlobal(
      'fetch',
      async () => new Response(JSON.stringify({ message: 'User is not authorized' }), { status: 403 }),
    );
    const backups = await backupProbeOf('production', 1_000);
    if ('skip' in backups) throw new Error('production keeps backups');

    await expect(backups.recoveryPoints()).rejects.toThrow('AWS Backup answered 403: User is not authorized');
  });
});
