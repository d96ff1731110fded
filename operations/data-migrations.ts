import { randomUUID } from 'node:crypto';
import type { MigrationCounts, MigrationRecord } from '../lambdas/data/migrations';
import {
  claimMigration,
  endMigrationRun,
  MigrationLeaseLostError,
  migrationRecords,
  saveMigrationProgress,
} from '../lambdas/data/migrations';
import { operatorEventItem } from './audit';
import { MIGRATIONS } from './migrations';
import type { Migration } from './migrations/migration';
import { migrationNumber } from './migrations/migration';
import { OperatorError } from './operator-error';
import type { OperatorTarget } from './target';

/**
 * `data migrate` and `data migrations` (docs/design/data-migrations.md): the migrations of
 * `operations/migrations` run in order, each once per stage, recorded in the table.
 */

/** How long a run holds a migration without a checkpoint: a run that died lets go after this. */
export const MIGRATION_LEASE_MS = 60_000;
/** What a report lists of the changes, at most: the counts say how many there were. */
const LISTED_CHANGES = 50;

export interface MigrationReport extends MigrationCounts {
  readonly id: number;
  readonly name: string;
  /** `applied` by this run; `applied-earlier`; `would-change`/`nothing-to-change` on a dry run. */
  readonly outcome: 'applied' | 'applied-earlier' | 'would-change' | 'nothing-to-change';
  /** When it resumed a stopped run: the cursor it started after. */
  readonly resumedAfter?: string;
  /** The first changes, `<unit>: <change>`. */
  readonly changes: readonly string[];
}

export interface MigrateOptions {
  readonly dryRun: boolean;
  /** Called after each unit with the migration's counts so far. */
  readonly onProgress?: (migration: Migration, counts: MigrationCounts, label: string) => void;
  readonly now?: () => number;
  /** The migrations to run; the service's own by default (tests give others). */
  readonly migrations?: readonly Migration[];
}

/** Runs every migration not applied yet, in order; a dry run changes and records nothing. */
export async function migrateData(
  target: Pick<OperatorTarget, 'actor'>,
  options: MigrateOptions,
): Promise<{ readonly dryRun: boolean; readonly migrations: MigrationReport[] }> {
  const migrations = options.migrations ?? MIGRATIONS;
  const records = new Map((await migrationRecords()).map((record) => [record.id, record]));
  const reports: MigrationReport[] = [];
  for (const migration of migrations) {
    const record = sameRevision(migration, records.get(migration.id));
    if (record?.state === 'applied')
      reports.push({ ...reportOf(migration, record), outcome: 'applied-earlier' });
    else if (options.dryRun) reports.push(await dryRun(migration, record, options));
    else reports.push(await run(target, migration, options));
  }
  return { dryRun: options.dryRun, migrations: reports };
}

/** The record, unless it is of another revision of the migration: then the migration starts over. */
function sameRevision(
  migration: Migration,
  record: MigrationRecord | undefined,
): MigrationRecord | undefined {
  return record && (record.revision ?? '') === (migration.revision ?? '') ? record : undefined;
}

const reportOf = (migration: Migration, counts: MigrationCounts) => ({
  id: migration.id,
  name: migration.name,
  seen: counts.seen,
  changed: counts.changed,
  unchanged: counts.unchanged,
  changes: [] as string[],
});

/** Walks the units from where a stopped run left off, changing nothing. */
async function dryRun(
  migration: Migration,
  record: MigrationRecord | undefined,
  options: MigrateOptions,
): Promise<MigrationReport> {
  const tally = new Tally(migration, options);
  for await (const unit of migration.units(record?.cursor, true)) tally.add(unit);
  return {
    ...reportOf(migration, tally),
    outcome: tally.changed > 0 ? 'would-change' : 'nothing-to-change',
    ...(record?.cursor !== undefined ? { resumedAfter: record.cursor } : {}),
    changes: tally.changes,
  };
}

/** Counts the units of one run, keeps the first changes, and tells the caller as it goes. */
class Tally implements MigrationCounts {
  seen = 0;
  changed = 0;
  unchanged = 0;
  readonly changes: string[] = [];

  constructor(
    private readonly migration: Migration,
    private readonly options: MigrateOptions,
    start?: MigrationCounts,
  ) {
    if (start) ({ seen: this.seen, changed: this.changed, unchanged: this.unchanged } = start);
  }

  add(unit: { readonly label: string; readonly changes: readonly string[] }): void {
    this.seen += 1;
    if (unit.changes.length > 0) this.changed += 1;
    else this.unchanged += 1;
    for (const change of unit.changes)
      if (this.changes.length < LISTED_CHANGES) this.changes.push(`${unit.label}: ${change}`);
    this.options.onProgress?.(this.migration, this, unit.label);
  }
}

/**
 * One run of a migration: claimed (or refused while another run holds it), resumed at its cursor,
 * a checkpoint after every unit, and an end (applied, or stopped on a failure) with its audit event.
 */
async function run(
  target: Pick<OperatorTarget, 'actor'>,
  migration: Migration,
  options: MigrateOptions,
): Promise<MigrationReport> {
  const now = options.now ?? Date.now;
  const owner = randomUUID();
  const claim = await claimMigration({
    id: migration.id,
    name: migration.name,
    revision: migration.revision ?? '',
    actor: target.actor,
    owner,
    nowMs: now(),
    leaseMs: MIGRATION_LEASE_MS,
  });
  if ('heldBy' in claim) throw heldElsewhere(migration, claim.heldBy);
  if ('applied' in claim) return { ...reportOf(migration, claim.applied), outcome: 'applied-earlier' };
  const record = claim.claimed;
  const tally = new Tally(migration, options, record);
  const end = async (state: 'applied' | 'stopped', details: Record<string, string | number>) =>
    endMigrationRun(
      migration.id,
      owner,
      { state, nowMs: now() },
      operatorEventItem(
        target,
        'data.migrated',
        {
          details: {
            migration: `${migrationNumber(migration.id)}-${migration.name}`,
            state,
            ...countsOf(tally),
            ...details,
          },
        },
        now(),
      ),
    );
  let last = record.cursor;
  try {
    for await (const unit of migration.units(record.cursor, false)) {
      tally.add(unit);
      last = unit.cursor;
      await saveMigrationProgress(
        migration.id,
        owner,
        { ...countsOf(tally), cursor: unit.cursor },
        now() + MIGRATION_LEASE_MS,
      );
    }
  } catch (error) {
    if (error instanceof MigrationLeaseLostError) throw new OperatorError(error.message);
    await end('stopped', {
      error: (error as Error).name,
      ...(last !== undefined ? { resumesAfter: last } : {}),
    });
    throw stopped(migration, last, error as Error);
  }
  await end('applied', {});
  return {
    ...reportOf(migration, tally),
    outcome: 'applied',
    ...(record.cursor !== undefined ? { resumedAfter: record.cursor } : {}),
    changes: tally.changes,
  };
}

const countsOf = (counts: MigrationCounts): MigrationCounts => ({
  seen: counts.seen,
  changed: counts.changed,
  unchanged: counts.unchanged,
});

function heldElsewhere(migration: Migration, record: MigrationRecord): OperatorError {
  const until = new Date(record.leaseUntil ?? 0).toISOString();
  return new OperatorError(
    `Migration ${migrationNumber(migration.id)} (${migration.name}) is being run by ${record.actor} ` +
      `(its run holds it until ${until} unless it checks in). Nothing was changed. If that run died, run this again after ${until}.`,
  );
}

function stopped(migration: Migration, last: string | undefined, error: Error): OperatorError {
  const where = last === undefined ? 'before its first unit' : `after ${last}`;
  return new OperatorError(
    `Migration ${migrationNumber(migration.id)} (${migration.name}) stopped ${where}: ${error.name}: ${error.message}. ` +
      'What it did so far is kept; run data migrate again to resume there. Later migrations did not run.',
  );
}

/** `data migrations`: each migration with its state on this stage. */
export async function listMigrations(): Promise<{
  migrations: (MigrationCounts & {
    id: number;
    name: string;
    summary: string;
    state: 'pending' | MigrationRecord['state'];
    revision: string | null;
    finished_at: string | null;
    actor: string | null;
    runs: number;
  })[];
}> {
  const records = new Map((await migrationRecords()).map((record) => [record.id, record]));
  return {
    migrations: MIGRATIONS.map((migration) => {
      const record = sameRevision(migration, records.get(migration.id));
      return {
        id: migration.id,
        name: migration.name,
        summary: migration.summary,
        revision: migration.revision ?? null,
        state: record?.state ?? 'pending',
        finished_at: record?.finishedAt ?? null,
        actor: record?.actor ?? null,
        runs: record?.runs ?? 0,
        ...countsOf(record ?? { seen: 0, changed: 0, unchanged: 0 }),
      };
    }),
  };
}
