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
    const stored = records.get(migration.id);
    const verdict = revisionVerdict(stored, migration);
    if (verdict === 'older-here') throw newerElsewhere(migration, stored);
    const record = verdict === 'same' ? stored : undefined;
    if (record?.state === 'applied')
      reports.push({ ...reportOf(migration, record), outcome: 'applied-earlier' });
    else if (options.dryRun) reports.push(await dryRun(migration, record, options));
    else reports.push(await run(target, migration, options, record !== undefined));
  }
  return { dryRun: options.dryRun, migrations: reports };
}

/**
 * How this code's revision of a migration stands to the one a stage recorded. A revision is a list
 * of items (`de`, `booked.l:leadDays@2`), each at a version (1 unless `@n`); it only grows. This
 * code is newer when it has every recorded item at its version or later; it is older when the
 * record names an item it lacks or a later version (a checkout behind the stage's data: running
 * it would undo what newer code brought).
 */
function revisionVerdict(
  record: MigrationRecord | undefined,
  migration: Migration,
): 'same' | 'newer-here' | 'older-here' {
  if (!record) return 'newer-here';
  const stored = record.revision ?? '';
  const here = migration.revision ?? '';
  if (stored === here) return 'same';
  const items = (revision: string) =>
    new Map(
      revision
        .split(',')
        .filter((item) => item !== '')
        .map((item) => {
          const [key = '', version = '1'] = item.split('@');
          return [key, Number(version)] as const;
        }),
    );
  const ours = items(here);
  for (const [key, version] of items(stored)) if ((ours.get(key) ?? 0) < version) return 'older-here';
  return 'newer-here';
}

function newerElsewhere(migration: Migration, record: MigrationRecord | undefined): OperatorError {
  return new OperatorError(
    `Migration ${migrationNumber(migration.id)} (${migration.name}) was applied on this stage by newer code ` +
      `(${record?.actor ?? 'unknown'}, revision "${record?.revision ?? ''}"; this checkout has "${migration.revision ?? ''}"). ` +
      'Running it from here would undo what that code brought: update this checkout first. Nothing was changed.',
  );
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
 * One run of a migration: claimed (or refused while another run holds it), resumed at its cursor
 * (`resume`: the record read holds this revision), a checkpoint after every unit, and an end
 * (applied, or stopped on a failure) with its audit event.
 */
async function run(
  target: Pick<OperatorTarget, 'actor'>,
  migration: Migration,
  options: MigrateOptions,
  resume: boolean,
): Promise<MigrationReport> {
  const now = options.now ?? Date.now;
  const owner = randomUUID();
  const claim = await claimMigration({
    id: migration.id,
    name: migration.name,
    revision: migration.revision ?? '',
    resume,
    actor: target.actor,
    owner,
    nowMs: now(),
    leaseMs: MIGRATION_LEASE_MS,
  });
  if ('heldBy' in claim) throw heldElsewhere(migration, claim.heldBy);
  if ('applied' in claim) return { ...reportOf(migration, claim.applied), outcome: 'applied-earlier' };
  const record = claim.claimed;
  const tally = new Tally(migration, options, record);
  const end = (state: 'applied' | 'stopped', details: Record<string, string | number>) =>
    endMigrationRun(
      migration.id,
      owner,
      { state, nowMs: now() },
      operatorEventItem(
        target,
        'data.migrated',
        { details: auditDetails(migration, state, tally, details) },
        now(),
      ),
    );
  await walk(migration, { owner, tally, now, start: record.cursor, end });
  await end('applied', {}).catch((error: unknown) => {
    throw leaseLost(migration, error);
  });
  return {
    ...reportOf(migration, tally),
    outcome: 'applied',
    ...(record.cursor !== undefined ? { resumedAfter: record.cursor } : {}),
    changes: tally.changes,
  };
}

type EndRun = (state: 'applied' | 'stopped', details: Record<string, string | number>) => Promise<void>;

/**
 * Walks the units after `start`, a checkpoint after each. A unit that fails ends the run as
 * `stopped` (where it resumes, audited) and throws what the operator reads.
 */
async function walk(
  migration: Migration,
  run: { owner: string; tally: Tally; now: () => number; start: string | undefined; end: EndRun },
): Promise<void> {
  let last = run.start;
  try {
    for await (const unit of migration.units(run.start, false)) {
      run.tally.add(unit);
      last = unit.cursor;
      await saveMigrationProgress(
        migration.id,
        run.owner,
        { ...countsOf(run.tally), cursor: unit.cursor },
        run.now() + MIGRATION_LEASE_MS,
      );
    }
  } catch (error) {
    if (error instanceof MigrationLeaseLostError) throw leaseLost(migration, error);
    await run
      .end('stopped', { error: (error as Error).name, ...(last !== undefined ? { resumesAfter: last } : {}) })
      .catch((endError: unknown) => {
        // The stop could not be recorded (the lease was lost meanwhile): the unit's failure is still what to read.
        if (!(endError instanceof MigrationLeaseLostError)) throw endError;
      });
    throw stopped(migration, last, error as Error);
  }
}

const auditDetails = (
  migration: Migration,
  state: 'applied' | 'stopped',
  counts: MigrationCounts,
  details: Record<string, string | number>,
) => ({
  migration: `${migrationNumber(migration.id)}-${migration.name}`,
  ...(migration.revision ? { revision: migration.revision } : {}),
  state,
  ...countsOf(counts),
  ...details,
});

/** This run outlived its lease and another took the migration over: it stopped writing. */
function leaseLost(migration: Migration, error: unknown): unknown {
  if (!(error instanceof MigrationLeaseLostError)) return error;
  return new OperatorError(
    `Migration ${migrationNumber(migration.id)} (${migration.name}): this run stalled past its lease and another run ` +
      'took the migration over; this one stopped writing. See where it stands with: npm run admin -- data migrations',
  );
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

/** What `data migrations` shows of one migration on this stage. */
interface MigrationListing extends MigrationCounts {
  id: number;
  name: string;
  summary: string;
  /** `pending` also when it was applied at an earlier revision (`applied_revision` says which). */
  state: 'pending' | 'interrupted' | 'newer-elsewhere' | MigrationRecord['state'];
  revision: string | null;
  applied_revision: string | null;
  finished_at: string | null;
  actor: string | null;
  runs: number;
  /** Where a stopped or interrupted run resumes. */
  cursor: string | null;
  /** While running: until when its run holds it, unless it checks in. */
  lease_until: string | null;
}

/** `data migrations`: each migration with its state on this stage, as its record says. */
export async function listMigrations(
  nowMs = Date.now(),
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<{ migrations: MigrationListing[] }> {
  const records = new Map((await migrationRecords()).map((record) => [record.id, record]));
  return { migrations: migrations.map((migration) => listing(migration, records.get(migration.id), nowMs)) };
}

/**
 * What `npm start` (on a kept table) and `npm run verify` say after their own lines: the migrations
 * this table has not had at this code's revisions, each with its state, and the command that runs
 * them (`stage`: the CLI's `--stage`, none for the local server); nothing when all are applied.
 */
export async function pendingMigrationLines(
  stage?: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<string[]> {
  try {
    const waiting = (await listMigrations(Date.now(), migrations)).migrations.filter(
      (migration) => migration.state !== 'applied',
    );
    if (waiting.length === 0) return [];
    const names = waiting.map(
      (migration) => `${migrationNumber(migration.id)} ${migration.name} (${migration.state})`,
    );
    return [
      `Data migrations this table has not had (new, or what they follow changed since they ran): ${names.join(', ')}.`,
      `  npm run admin -- data migrate${stage ? ` --stage ${stage}` : ''} --dry-run   (then without --dry-run; docs/operators.md#stored-data-migrations)`,
    ];
  } catch (error) {
    return [`Data migrations: could not read their records (${(error as Error).name}).`];
  }
}

function listing(migration: Migration, record: MigrationRecord | undefined, nowMs: number): MigrationListing {
  const verdict = revisionVerdict(record, migration);
  const live = record?.state === 'running' && (record.leaseUntil ?? 0) >= nowMs;
  const state =
    !record || (verdict === 'newer-here' && record.state === 'applied')
      ? 'pending'
      : verdict === 'older-here'
        ? 'newer-elsewhere'
        : record.state === 'running' && !live
          ? 'interrupted'
          : record.state;
  return {
    id: migration.id,
    name: migration.name,
    summary: migration.summary,
    state,
    revision: migration.revision ?? null,
    applied_revision: record?.state === 'applied' ? (record.revision ?? '') : null,
    finished_at: record?.finishedAt ?? null,
    actor: record?.actor ?? null,
    runs: record?.runs ?? 0,
    cursor: record?.cursor ?? null,
    lease_until: live && record?.leaseUntil ? new Date(record.leaseUntil).toISOString() : null,
    ...countsOf(record ?? { seen: 0, changed: 0, unchanged: 0 }),
  };
}
