import type { Hash, Hmac } from 'node:crypto';
import { createHash, createHmac } from 'node:crypto';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import type { DeployedStage } from '../core/stages';
import { STACK_OUTPUTS, stackName, stageSettings } from '../lib/stage-config';

/**
 * What the deploy verification asks AWS Backup about the stage's table: its recovery points
 * (`ListRecoveryPointsByResource`) and the copy jobs that copied them to the other vault
 * (`ListCopyJobs`). `@aws-sdk/client-backup` is not a dependency, so the two GET requests of AWS
 * Backup's REST API are signed here with the SDK's own signer and credentials (your credentials and
 * region, as every other call of the run):
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

/** SHA-256 and HMAC-SHA-256 as the signer takes them, from node:crypto. */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    const key =
      secret === undefined || typeof secret === 'string'
        ? secret
        : Buffer.from(ArrayBuffer.isView(secret) ? secret.buffer : secret);
    this.hash = key === undefined ? createHash('sha256') : createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(
      typeof data === 'string'
        ? data
        : ArrayBuffer.isView(data)
          ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
          : Buffer.from(data),
    );
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

/** One signed GET of AWS Backup's API in the credentials' region; its JSON, or an error with AWS's message. */
async function backupGet(
  client: DynamoDBClient,
  path: string,
  query: Record<string, string>,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const region = await client.config.region();
  const hostname = `backup.${region}.amazonaws.com`;
  const signer = new SignatureV4({
    credentials: client.config.credentials,
    region,
    service: 'backup',
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path,
    query,
    headers: { host: hostname },
  });
  const url = new URL(`https://${hostname}${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const answer = await fetch(url, { headers: signed.headers, signal: AbortSignal.timeout(timeoutMs) });
  const body = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
  if (!answer.ok)
    throw new Error(`AWS Backup answered ${answer.status}: ${String(body.message ?? body.Message ?? '')}`);
  return body;
}

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
  return {
    tableArn,
    recoveryPoints: async () => {
      const path = `/resources/${encodeURIComponent(tableArn)}/recovery-points/`;
      const body = await backupGet(dynamodb, path, { maxResults: '1000' }, timeoutMs);
      return (body.RecoveryPoints ?? []) as RecoveryPoint[];
    },
    completedCopyJobs: async (since) => {
      const query = {
        resourceArn: tableArn,
        state: 'COMPLETED',
        createdAfter: since.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        maxResults: '1000',
      };
      const body = await backupGet(dynamodb, '/copy-jobs/', query, timeoutMs);
      return (body.CopyJobs ?? []) as CopyJob[];
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
