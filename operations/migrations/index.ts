import { catalogTextsMigration } from './catalog-texts';
import type { Migration } from './migration';
import { reservationAggregatesMigration } from './reservation-aggregates';

/**
 * Every data migration, in the order they run (docs/design/data-migrations.md). A change to a
 * stored shape ships with its migration here, numbered after the last; a migration that shipped
 * is never edited or renumbered (stages recorded it as applied by its number): a later change is a
 * new migration. Migrations that follow a declaration in code (the host languages, the per-day
 * counters) carry its revision and run again by themselves when it changes.
 */
export const MIGRATIONS: readonly Migration[] = [reservationAggregatesMigration(1), catalogTextsMigration(2)];
