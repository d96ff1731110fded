import type { Command } from 'commander';
import type { MigrationCounts } from '../../lambdas/data/migrations';
import { listMigrations, migrateData } from '../../operations/data-migrations';
import type { Migration } from '../../operations/migrations/migration';
import { migrationNumber } from '../../operations/migrations/migration';
import type { CliIo, Define } from '../command';
import { commandGroup, table } from '../command';

/** How often `data migrate` says how far it is, at most. */
const PROGRESS_EVERY_MS = 2_000;

/** `data ...`: the stored data's migrations (operations/data-migrations.ts). */
export function dataCommands(program: Command, define: Define): void {
  const data = commandGroup(program, 'data', 'The stored data');
  migrateCommand(data, define);
  define(data, 'migrations', {
    summary: 'List the data migrations and whether each was applied on this stage',
    examples: ['data migrations', 'data migrations --stage production --json'],
    action: () => async () => {
      const result = await listMigrations();
      return {
        json: result,
        text: [
          ...table(
            ['ID', 'NAME', 'STATE', 'FINISHED', 'SEEN', 'CHANGED', 'BY'],
            result.migrations.map((migration) => [
              migrationNumber(migration.id),
              migration.name,
              migration.state,
              migration.finished_at ?? '-',
              String(migration.seen),
              String(migration.changed),
              migration.actor ?? '-',
            ]),
          ),
          ...result.migrations.flatMap(stateNote),
        ],
      };
    },
  });
}

function migrateCommand(data: Command, define: Define): void {
  define(data, 'migrate', {
    summary: 'Bring stored data to the shape this code expects: each pending migration, in order',
    examples: ['data migrate --dry-run', 'data migrate', 'data migrate --stage production --json'],
    action: (options) => async (target, io) => {
      const dryRun = options.dryRun === true;
      const result = await migrateData(target, { dryRun, onProgress: progressPrinter(io, dryRun) });
      const lines = result.migrations.flatMap((migration) => [
        `${migrationNumber(migration.id)} ${migration.name}: ${OUTCOME[migration.outcome]} (${migration.outcome === 'applied-earlier' ? 'when it ran: ' : ''}${counted(migration)})` +
          (migration.resumedAfter !== undefined ? `, resumed after ${migration.resumedAfter}` : ''),
        ...migration.changes.map((change) => `  ${change}`),
        ...(migration.changed > migration.changes.length && migration.outcome !== 'applied-earlier'
          ? [`  … and ${migration.changed - migration.changes.length} more`]
          : []),
      ]);
      if (result.migrations.length === 0) lines.push('No migrations.');
      if (dryRun) lines.push('Dry run: nothing was changed or recorded. Run without --dry-run to apply.');
      return { json: result, text: lines };
    },
  }).option('--dry-run', 'report what each pending migration would change; change and record nothing');
}

/** What a migration's state means for the operator, when the table's one word is not enough. */
function stateNote(migration: Awaited<ReturnType<typeof listMigrations>>['migrations'][number]): string[] {
  const id = migrationNumber(migration.id);
  if (migration.state === 'running')
    return [`${id}: running, held by ${migration.actor} until ${migration.lease_until} unless it checks in.`];
  if (migration.state === 'interrupted' || migration.state === 'stopped')
    return [
      `${id}: ${migration.state} after ${migration.cursor ?? 'no unit'}; data migrate resumes it there.`,
    ];
  if (migration.state === 'pending' && migration.applied_revision !== null)
    return [
      `${id}: applied by ${migration.actor} at an earlier revision; what it follows grew since, so data migrate runs it again.`,
    ];
  if (migration.state === 'newer-elsewhere')
    return [`${id}: applied by newer code (${migration.actor}); update this checkout before data migrate.`];
  return [];
}

const OUTCOME = {
  applied: 'applied',
  'applied-earlier': 'applied earlier, nothing to do',
  'would-change': 'would change',
  'nothing-to-change': 'nothing to change',
} as const;

const counted = (counts: MigrationCounts) =>
  `${counts.seen} seen, ${counts.changed} changed, ${counts.unchanged} left as they were`;

/** A line on stderr at most every 2 s while a migration runs: a long run shows it is alive. */
function progressPrinter(io: CliIo, dryRun: boolean) {
  let printed = 0;
  return (migration: Migration, counts: MigrationCounts, label: string) => {
    const now = Date.now();
    if (now - printed < PROGRESS_EVERY_MS) return;
    printed = now;
    io.err(
      `${migrationNumber(migration.id)} ${migration.name}${dryRun ? ' (dry run)' : ''}: at ${label}, ${counted(counts)}`,
    );
  };
}
