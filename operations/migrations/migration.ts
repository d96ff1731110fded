/**
 * A data migration (docs/design/data-migrations.md): code that brings stored items to the shape
 * today's code reads and writes. It walks its units (a property, a product) in a fixed order from
 * a cursor, and each unit is idempotent: it compares what is stored with what should be and writes
 * only the difference, on condition that what it read is still there. So a run may stop anywhere
 * and the next one resumes after the last finished unit, and a second run finds nothing to change.
 */
export interface Migration {
  /** Its number: migrations run in this order, each once (a gap or a repeat fails a unit test). */
  readonly id: number;
  /** Kebab-case, what it does: `rebuild-reservation-aggregates`. */
  readonly name: string;
  /** One sentence for `data migrations` and the audit trail. */
  readonly summary: string;
  /**
   * What the migration's work follows, for one whose units bring stored items to a declaration in
   * code (the host languages, the per-day counters): a stage that applied it at another revision
   * runs it again, from its first unit. None for a migration that runs once and for all.
   */
  readonly revision?: string;
  /** The units after `cursor` (all when undefined), each done (or, with `dryRun`, judged) as it is yielded. */
  units(cursor: string | undefined, dryRun: boolean): AsyncIterable<MigrationUnit>;
}

/** One unit's result. */
export interface MigrationUnit {
  /** Where a later run resumes once this unit is done: the migration's own text. */
  readonly cursor: string;
  /** What the unit is, for people: `property 12`, `product assistant`. */
  readonly label: string;
  /** What it changed (or would), one short line each; none when the unit was already right. */
  readonly changes: readonly string[];
}

/** The migration's id as people write it: `0001`. */
export const migrationNumber = (id: number) => String(id).padStart(4, '0');
