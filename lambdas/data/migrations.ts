import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MIGRATIONS_PARTITION } from '../../core/partitions';
import { isConditionFailure, transactionCancellationCodes } from '../common/aws-errors';
import type { TransactItem } from './db';
import { dynamoDb, tableName } from './db';

/*
 * The records of the data migrations (docs/design/data-migrations.md): one item per migration in
 * the MIGRATIONS partition, written only by `npm run admin -- data migrate`. A record says whether
 * the migration was applied, and while it runs, who holds it (a lease that each checkpoint renews)
 * and where a stopped run resumes (the cursor the migration gave after its last finished unit).
 */

/** How far a migration has come: every unit it looked at, the ones it changed, the ones it left. */
export interface MigrationCounts {
  readonly seen: number;
  readonly changed: number;
  readonly unchanged: number;
}

type MigrationState = 'running' | 'stopped' | 'applied';

export interface MigrationRecord extends MigrationCounts {
  readonly id: number;
  readonly name: string;
  /** What the migration followed when it ran (the languages, the counters): another revision runs it again. */
  readonly revision?: string;
  readonly state: MigrationState;
  /** When its first run began. */
  readonly startedAt: string;
  /** When a run finished it (applied only). */
  readonly finishedAt?: string;
  /** Who ran it last: an AWS identity ARN, or the local user name. */
  readonly actor: string;
  /** How many runs it took: more than one when a run stopped and a later one resumed it. */
  readonly runs: number;
  /** Where the next run resumes; none before the first unit is done. */
  readonly cursor?: string;
  /** The run that holds it, until `leaseUntil` (epoch ms): a run that died lets go by itself. */
  readonly leaseOwner?: string;
  readonly leaseUntil?: number;
}

const recordKey = (id: number) => ({
  PK: MIGRATIONS_PARTITION,
  SK: `MIGRATION#${String(id).padStart(4, '0')}`,
});

function toRecord(item: Record<string, unknown>): MigrationRecord {
  return {
    id: Number(item.id),
    name: String(item.name),
    ...(typeof item.revision === 'string' ? { revision: item.revision } : {}),
    state: item.state as MigrationState,
    startedAt: String(item.startedAt),
    ...(typeof item.finishedAt === 'string' ? { finishedAt: item.finishedAt } : {}),
    actor: String(item.actor),
    runs: Number(item.runs ?? 0),
    ...(typeof item.cursor === 'string' ? { cursor: item.cursor } : {}),
    ...(typeof item.leaseOwner === 'string' ? { leaseOwner: item.leaseOwner } : {}),
    ...(typeof item.leaseUntil === 'number' ? { leaseUntil: item.leaseUntil } : {}),
    seen: Number(item.seen ?? 0),
    changed: Number(item.changed ?? 0),
    unchanged: Number(item.unchanged ?? 0),
  };
}

/** Every migration's record, read consistently (a run that just finished shows as applied). */
export async function migrationRecords(): Promise<MigrationRecord[]> {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :partition',
      ExpressionAttributeValues: { ':partition': MIGRATIONS_PARTITION },
      ConsistentRead: true,
    }),
  );
  return Items.map(toRecord);
}

async function migrationRecord(id: number): Promise<MigrationRecord | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: recordKey(id), ConsistentRead: true }),
  );
  return Item ? toRecord(Item) : undefined;
}

export interface MigrationClaim {
  readonly id: number;
  readonly name: string;
  /** The migration's revision in this code ('' for one without). */
  readonly revision: string;
  /**
   * Whether the record read holds this revision: the run resumes at its cursor with its counts;
   * otherwise it starts over at the first unit, counts at 0 (the same write, so a run that dies
   * right after its claim leaves no cursor of another revision behind).
   */
  readonly resume: boolean;
  readonly actor: string;
  /** This run's id: only its checkpoints and its end are accepted while it holds the lease. */
  readonly owner: string;
  readonly nowMs: number;
  readonly leaseMs: number;
}

export type ClaimResult =
  | { readonly claimed: MigrationRecord }
  | { readonly applied: MigrationRecord }
  | { readonly heldBy: MigrationRecord };

/** Held by no live run: never claimed, stopped, or running under a lease that ended. */
const FREE = '(#state <> :running OR leaseUntil < :nowMs)';

/**
 * Takes a migration for this run, in one conditional write: one not applied at this revision and
 * held by no live run (its lease ended, or it never ran). See `MigrationClaim.resume`.
 */
export async function claimMigration(claim: MigrationClaim): Promise<ClaimResult> {
  const startOver = claim.resume ? '' : ', seen = :zero, changed = :zero, unchanged = :zero';
  try {
    const { Attributes } = await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: recordKey(claim.id),
        UpdateExpression:
          'SET id = :id, #name = :name, #state = :running, startedAt = if_not_exists(startedAt, :now), ' +
          `actor = :actor, leaseOwner = :owner, leaseUntil = :until, revision = :revision${startOver} ` +
          `ADD runs :one${claim.resume ? '' : ' REMOVE #cursor, finishedAt'}`,
        ConditionExpression: claim.resume
          ? `revision = :revision AND #state <> :applied AND ${FREE}`
          : `attribute_not_exists(PK) OR ((attribute_not_exists(revision) OR revision <> :revision) AND ${FREE})`,
        ExpressionAttributeNames: {
          '#name': 'name',
          '#state': 'state',
          ...(claim.resume ? {} : { '#cursor': 'cursor' }),
        },
        ExpressionAttributeValues: {
          ':id': claim.id,
          ':name': claim.name,
          ':revision': claim.revision,
          ':running': 'running',
          ...(claim.resume ? { ':applied': 'applied' } : { ':zero': 0 }),
          ':now': new Date(claim.nowMs).toISOString(),
          ':nowMs': claim.nowMs,
          ':actor': claim.actor,
          ':owner': claim.owner,
          ':until': claim.nowMs + claim.leaseMs,
          ':one': 1,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { claimed: toRecord(Attributes ?? {}) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const record = await migrationRecord(claim.id);
    if (!record) throw error;
    return record.state === 'applied' && record.revision === claim.revision
      ? { applied: record }
      : { heldBy: record };
  }
}

/** Another run took the migration over (this one outlived its lease): it must stop writing. */
export class MigrationLeaseLostError extends Error {
  constructor(id: number) {
    super(`Another run took migration ${id} over; this run stops.`);
    this.name = 'MigrationLeaseLostError';
  }
}

const ownedBy = (owner: string) => ({
  ConditionExpression: 'leaseOwner = :owner AND #state = :running',
  values: { ':owner': owner, ':running': 'running' },
});

/** Records a finished unit: the cursor to resume after it and the counts so far; renews the lease. */
export async function saveMigrationProgress(
  id: number,
  owner: string,
  progress: MigrationCounts & { readonly cursor: string },
  leaseUntil: number,
): Promise<void> {
  const owned = ownedBy(owner);
  try {
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: recordKey(id),
        UpdateExpression:
          'SET #cursor = :cursor, seen = :seen, changed = :changed, unchanged = :unchanged, leaseUntil = :until',
        ConditionExpression: owned.ConditionExpression,
        ExpressionAttributeNames: { '#cursor': 'cursor', '#state': 'state' },
        ExpressionAttributeValues: {
          ...owned.values,
          ':cursor': progress.cursor,
          ':seen': progress.seen,
          ':changed': progress.changed,
          ':unchanged': progress.unchanged,
          ':until': leaseUntil,
        },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw new MigrationLeaseLostError(id);
    throw error;
  }
}

/**
 * Ends this run: `applied` when the migration went through its last unit, `stopped` when it failed
 * on one (the next run resumes at the cursor, at once: the lease is let go). The audit event is
 * written in the same transaction, so the trail has every run that ended.
 */
export async function endMigrationRun(
  id: number,
  owner: string,
  end: { readonly state: 'applied' | 'stopped'; readonly nowMs: number },
  auditItem: TransactItem,
): Promise<void> {
  const owned = ownedBy(owner);
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: recordKey(id),
              UpdateExpression: `SET #state = :state, leaseUntil = :zero${end.state === 'applied' ? ', finishedAt = :now' : ''} REMOVE leaseOwner`,
              ConditionExpression: owned.ConditionExpression,
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: {
                ...owned.values,
                ':state': end.state,
                ':zero': 0,
                ...(end.state === 'applied' ? { ':now': new Date(end.nowMs).toISOString() } : {}),
              },
            },
          },
          auditItem,
        ],
      }),
    );
  } catch (error) {
    if (transactionCancellationCodes(error)?.[0] === 'ConditionalCheckFailed')
      throw new MigrationLeaseLostError(id);
    throw error;
  }
}
