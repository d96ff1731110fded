import { randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Product } from '../../core/domain/catalog';
import { listAuditEvents } from '../../lambdas/data/audit';
import { addProduct, editProduct } from '../../lambdas/data/catalog';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { claimMigration, migrationRecords } from '../../lambdas/data/migrations';
import { MIGRATION_LEASE_MS, migrateData, pendingMigrationLines } from '../../operations/data-migrations';
import { catalogTextsMigration } from '../../operations/migrations/catalog-texts';
import type { Migration, MigrationUnit } from '../../operations/migrations/migration';
import { testTarget } from '../support/partners';

/*
 * The mechanism of `data migrate` (operations/data-migrations.ts) against the suite's DynamoDB
 * Local, with migrations of the tests' own: ids far above the service's, so its records and these
 * never meet. The service's migrations are tested on their data in data-migrations-*.test.ts.
 */

let nextId = 9_000 + Math.floor(Math.random() * 1_000) * 10;
const target = testTarget();

/** A migration over units `u1`…`u<count>`, each changing something when `changing(index)`; it can fail at one. */
function countedMigration(
  count: number,
  options: { changing?: (index: number) => boolean; failAt?: number } = {},
) {
  const calls: { cursor: string | undefined; dryRun: boolean; units: string[] }[] = [];
  const migration: Migration = {
    id: nextId++,
    name: 'counted-units',
    summary: 'Units of a test',
    async *units(cursor, dryRun) {
      const call = { cursor, dryRun, units: [] as string[] };
      calls.push(call);
      for (let index = Number(cursor?.slice(1) ?? 0) + 1; index <= count; index++) {
        if (index === options.failAt) throw new Error('power cut');
        call.units.push(`u${index}`);
        const unit: MigrationUnit = {
          cursor: `u${index}`,
          label: `unit ${index}`,
          changes: options.changing?.(index) ? [`set ${index}`] : [],
        };
        yield unit;
      }
    },
  };
  return { migration, calls };
}

const recordOf = async (id: number) => (await migrationRecords()).find((record) => record.id === id);
const auditOf = async (id: number) =>
  (await listAuditEvents({ action: 'data.migrated', limit: 200 })).filter((event) =>
    String(event.details?.migration).startsWith(String(id).padStart(4, '0')),
  );

describe('data migrate', () => {
  it('on a dry run judges every unit, and changes and records nothing', async () => {
    const { migration, calls } = countedMigration(5, { changing: (index) => index % 2 === 1 });
    const result = await migrateData(target, { dryRun: true, migrations: [migration] });
    expect(result.migrations).toEqual([
      expect.objectContaining({ outcome: 'would-change', seen: 5, changed: 3, unchanged: 2 }),
    ]);
    expect(result.migrations[0]?.changes).toEqual(['unit 1: set 1', 'unit 3: set 3', 'unit 5: set 5']);
    expect(calls).toEqual([{ cursor: undefined, dryRun: true, units: ['u1', 'u2', 'u3', 'u4', 'u5'] }]);
    expect(await recordOf(migration.id)).toBeUndefined();
    expect(await auditOf(migration.id)).toEqual([]);
  });

  it('applies a migration once, records and audits it; a second run leaves it', async () => {
    const { migration, calls } = countedMigration(3, { changing: (index) => index === 2 });
    const first = await migrateData(target, { dryRun: false, migrations: [migration] });
    expect(first.migrations[0]).toMatchObject({ outcome: 'applied', seen: 3, changed: 1, unchanged: 2 });
    expect(await recordOf(migration.id)).toMatchObject({
      state: 'applied',
      cursor: 'u3',
      runs: 1,
      seen: 3,
      changed: 1,
      actor: target.actor,
    });
    const second = await migrateData(target, { dryRun: false, migrations: [migration] });
    expect(second.migrations[0]).toMatchObject({ outcome: 'applied-earlier', seen: 3, changed: 1 });
    expect(calls).toHaveLength(1);
    const audit = await auditOf(migration.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]?.details).toMatchObject({ state: 'applied', seen: 3, changed: 1, unchanged: 2 });
  });

  it('is named, with its state and the command, by what npm start and npm run verify say until it is applied', async () => {
    const failing = countedMigration(2, { failAt: 2 });
    const fine = countedMigration(1);
    const both = [failing.migration, fine.migration];
    const number = (id: number) => String(id).padStart(4, '0');

    const before = await pendingMigrationLines('production', both);
    await migrateData(target, { dryRun: false, migrations: both }).catch(() => undefined);
    const stopped = await pendingMigrationLines(undefined, both);
    const mended = { ...countedMigration(2).migration, id: failing.migration.id };
    await migrateData(target, { dryRun: false, migrations: [mended, fine.migration] });

    expect(before).toEqual([
      `Data migrations this table has not had (new, or what they follow changed since they ran): ${number(failing.migration.id)} counted-units (pending), ${number(fine.migration.id)} counted-units (pending).`,
      '  npm run admin -- data migrate --stage production --dry-run   (then without --dry-run; docs/operators.md#stored-data-migrations)',
    ]);
    expect(stopped[0]).toContain(
      `${number(failing.migration.id)} counted-units (stopped), ${number(fine.migration.id)} counted-units (pending).`,
    );
    expect(stopped[1]).toMatch(/^ {2}npm run admin -- data migrate --dry-run/);
    expect(await pendingMigrationLines('production', [mended, fine.migration])).toEqual([]);
  });

  it('stops at a failure, keeps what it did, and the next run resumes after the last unit done', async () => {
    const failing = countedMigration(6, { changing: () => true, failAt: 4 });
    const later = countedMigration(2);
    await expect(
      migrateData(target, { dryRun: false, migrations: [failing.migration, later.migration] }),
    ).rejects.toThrow(
      /stopped after u3: Error: power cut\. What it did so far is kept; run data migrate again/,
    );
    expect(await recordOf(failing.migration.id)).toMatchObject({ state: 'stopped', cursor: 'u3', seen: 3 });
    // Later migrations wait for the one that stopped: they may rely on it.
    expect(await recordOf(later.migration.id)).toBeUndefined();
    const stoppedAudit = await auditOf(failing.migration.id);
    expect(stoppedAudit.map((event) => event.details)).toEqual([
      expect.objectContaining({ state: 'stopped', seen: 3, resumesAfter: 'u3', error: 'Error' }),
    ]);

    const resumed = countedMigration(6, { changing: () => true });
    const migration = { ...resumed.migration, id: failing.migration.id };
    const result = await migrateData(target, { dryRun: false, migrations: [migration, later.migration] });
    expect(resumed.calls).toEqual([{ cursor: 'u3', dryRun: false, units: ['u4', 'u5', 'u6'] }]);
    expect(result.migrations[0]).toMatchObject({
      outcome: 'applied',
      resumedAfter: 'u3',
      seen: 6,
      changed: 6,
    });
    expect(await recordOf(failing.migration.id)).toMatchObject({ state: 'applied', runs: 2, seen: 6 });
    expect(await recordOf(later.migration.id)).toMatchObject({ state: 'applied' });
  });

  it('refuses a migration another run holds, and takes over once its lease ended', async () => {
    const { migration, calls } = countedMigration(2);
    const start = Date.now();
    const held = await claimMigration({
      id: migration.id,
      name: migration.name,
      actor: 'arn:aws:iam::123456789012:user/other-operator',
      owner: 'another-run',
      revision: '',
      resume: false,
      nowMs: start,
      leaseMs: MIGRATION_LEASE_MS,
    });
    expect('claimed' in held).toBe(true);
    await expect(
      migrateData(target, { dryRun: false, migrations: [migration], now: () => start + 1_000 }),
    ).rejects.toThrow(/is being run by arn:aws:iam::123456789012:user\/other-operator .*Nothing was changed/);
    expect(calls).toHaveLength(0);
    const later = await migrateData(target, {
      dryRun: false,
      migrations: [migration],
      now: () => start + MIGRATION_LEASE_MS + 1,
    });
    expect(later.migrations[0]).toMatchObject({ outcome: 'applied', seen: 2 });
    expect(await recordOf(migration.id)).toMatchObject({ state: 'applied', runs: 2, actor: target.actor });
  });
});

describe('a migration that follows a declaration', () => {
  it('runs again from its first unit when its revision changes, and only then', async () => {
    const first = countedMigration(3, { changing: () => true });
    const id = first.migration.id;
    await migrateData(target, { dryRun: false, migrations: [{ ...first.migration, revision: 'de,fr' }] });
    expect(await recordOf(id)).toMatchObject({ state: 'applied', revision: 'de,fr', seen: 3, runs: 1 });

    const same = countedMigration(3);
    const again = await migrateData(target, {
      dryRun: false,
      migrations: [{ ...same.migration, id, revision: 'de,fr' }],
    });
    expect(again.migrations[0]?.outcome).toBe('applied-earlier');
    expect(same.calls).toEqual([]);

    const next = countedMigration(3, { changing: (index) => index === 3 });
    const revised = { ...next.migration, id, revision: 'de,fr,nl' };
    const dry = await migrateData(target, { dryRun: true, migrations: [revised] });
    expect(dry.migrations[0]).toMatchObject({ outcome: 'would-change', seen: 3, changed: 1 });
    const rerun = await migrateData(target, { dryRun: false, migrations: [revised] });
    expect(rerun.migrations[0]).toMatchObject({ outcome: 'applied', seen: 3, changed: 1, unchanged: 2 });
    expect(next.calls.map((call) => call.cursor)).toEqual([undefined, undefined]);
    expect(await recordOf(id)).toMatchObject({
      state: 'applied',
      revision: 'de,fr,nl',
      seen: 3,
      changed: 1,
      runs: 2,
    });
  });
});

describe('a run meeting other code or another run', () => {
  it('refuses a migration newer code applied, changing nothing', async () => {
    const newer = countedMigration(2, { changing: () => true });
    await migrateData(target, { dryRun: false, migrations: [{ ...newer.migration, revision: 'de,fr,nl' }] });
    const older = countedMigration(2, { changing: () => true });
    const behind = { ...older.migration, id: newer.migration.id, revision: 'de,fr' };
    for (const dryRun of [true, false])
      await expect(migrateData(target, { dryRun, migrations: [behind] })).rejects.toThrow(
        /was applied on this stage by newer code .*update this checkout first\. Nothing was changed\./,
      );
    expect(older.calls).toEqual([]);
    expect(await recordOf(newer.migration.id)).toMatchObject({
      state: 'applied',
      revision: 'de,fr,nl',
      runs: 1,
    });
    // A later version of one item is newer too; an earlier one is behind.
    const bumped = countedMigration(2);
    await migrateData(target, {
      dryRun: false,
      migrations: [{ ...bumped.migration, id: newer.migration.id, revision: 'de,fr@2,nl' }],
    });
    expect(bumped.calls).toHaveLength(1);
    await expect(
      migrateData(target, {
        dryRun: true,
        migrations: [{ ...bumped.migration, id: newer.migration.id, revision: 'de,fr,nl' }],
      }),
    ).rejects.toThrow(/newer code/);
  });

  it('starts a new revision over in the claim itself: a run that dies right after leaves no old cursor', async () => {
    const first = countedMigration(4, { changing: () => true });
    await migrateData(target, { dryRun: false, migrations: [{ ...first.migration, revision: 'de' }] });
    const start = Date.now();
    const claimed = await claimMigration({
      id: first.migration.id,
      name: first.migration.name,
      revision: 'de,fr',
      resume: false,
      actor: 'a run that dies next',
      owner: 'dies',
      nowMs: start,
      leaseMs: MIGRATION_LEASE_MS,
    });
    expect(claimed).toMatchObject({ claimed: { state: 'running', revision: 'de,fr', seen: 0, changed: 0 } });
    expect(await recordOf(first.migration.id)).not.toHaveProperty('cursor');
    const next = countedMigration(4);
    const later = await migrateData(target, {
      dryRun: false,
      migrations: [{ ...next.migration, id: first.migration.id, revision: 'de,fr' }],
      now: () => start + MIGRATION_LEASE_MS + 1,
    });
    expect(next.calls.map((call) => call.cursor)).toEqual([undefined]);
    expect(later.migrations[0]).toMatchObject({ outcome: 'applied', seen: 4 });
  });

  it('stops writing, and says so, when it stalled past its lease and another run took over', async () => {
    const id = nextId++;
    const stalling: Migration = {
      id,
      name: 'stalls',
      summary: 'Stalls at its second unit',
      async *units() {
        yield { cursor: 'u1', label: 'unit 1', changes: [] };
        // Another run finds the lease ended (its clock is past it) and takes over.
        await claimMigration({
          id,
          name: 'stalls',
          revision: '',
          resume: true,
          actor: 'the other run',
          owner: 'other',
          nowMs: Date.now() + 2 * MIGRATION_LEASE_MS,
          leaseMs: MIGRATION_LEASE_MS,
        });
        yield { cursor: 'u2', label: 'unit 2', changes: ['set 2'] };
      },
    };
    await expect(migrateData(target, { dryRun: false, migrations: [stalling] })).rejects.toThrow(
      /stalled past its lease and another run took the migration over; this one stopped writing/,
    );
    expect(await recordOf(id)).toMatchObject({ state: 'running', actor: 'the other run', cursor: 'u1' });
  });
});

describe('catalog texts migration', () => {
  const productKey = (id: string) => ({ PK: `PRODUCT#${id}`, SK: 'PRODUCT' });
  const stored = async (id: string) =>
    (
      await dynamoDb().send(
        new GetCommand({ TableName: tableName(), Key: productKey(id), ConsistentRead: true }),
      )
    ).Item;

  it("adds a default product's missing texts, never over an operator's name or texts", async () => {
    const suffix = randomBytes(3).toString('hex');
    const button = { submitLabel: 'Go live', liveMessage: 'It is live.' };
    const defaults: Product[] = ['plain', 'renamed', 'translated', 'described', 'buttonless'].map((kind) => ({
      id: `mig-${kind}-${suffix}`,
      name: `Default ${kind}`,
      description: 'A product of the migration test.',
      goesLive: button,
      translations: {
        de: {
          name: `Standard ${kind}`,
          description: 'Ein Produkt des Tests.',
          goesLive: { submitLabel: 'Live schalten', liveMessage: 'Es ist live.' },
        },
        fr: { name: `Défaut ${kind}` },
      },
    }));
    const [plain, renamed, translated, described, buttonless] = defaults as [
      Product,
      Product,
      Product,
      Product,
      Product,
    ];
    // Stored as a stage stored them before their German and French texts existed.
    for (const product of defaults) {
      const { translations: _, ...withoutTexts } = product;
      expect(await addProduct(withoutTexts)).toBe(true);
    }
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: productKey(renamed.id),
        UpdateExpression: 'SET #name = :name',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': 'Renamed by an operator' },
      }),
    );
    // An operator's description no longer says what the default texts say: the product is left alone.
    await editProduct(described.id, { description: 'By e-mail only, in office hours.' });
    // An operator removed the last button: its texts in other languages are not added either.
    await editProduct(buttonless.id, { goesLive: null });
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: productKey(translated.id),
        UpdateExpression: 'SET translations = :texts',
        ExpressionAttributeValues: { ':texts': { de: { name: 'Vom Betreiber übersetzt' } } },
      }),
    );

    const migration = catalogTextsMigration(nextId++, { languages: ['de', 'fr'], catalog: defaults });
    const dry = await migrateData(target, { dryRun: true, migrations: [migration] });
    expect(dry.migrations[0]).toMatchObject({ outcome: 'would-change', seen: 5, changed: 3, unchanged: 2 });
    expect(dry.migrations[0]?.changes).toEqual([
      `product ${buttonless.id}: de texts added`,
      `product ${buttonless.id}: fr texts added`,
      `product ${plain.id}: de texts added`,
      `product ${plain.id}: fr texts added`,
      `product ${translated.id}: fr texts added`,
    ]);
    expect((await stored(plain.id))?.translations).toBeUndefined();

    await migrateData(target, { dryRun: false, migrations: [migration] });
    expect((await stored(plain.id))?.translations).toEqual(plain.translations);
    expect((await stored(renamed.id))?.translations).toBeUndefined();
    expect((await stored(described.id))?.translations).toBeUndefined();
    expect((await stored(buttonless.id))?.translations).toEqual({
      de: { name: 'Standard buttonless', description: 'Ein Produkt des Tests.' },
      fr: { name: 'Défaut buttonless' },
    });
    expect((await stored(translated.id))?.translations).toEqual({
      de: { name: 'Vom Betreiber übersetzt' },
      fr: { name: 'Défaut translated' },
    });

    // The same units again (a new migration of the same kind) find nothing left to do.
    const again = await migrateData(target, {
      dryRun: false,
      migrations: [catalogTextsMigration(nextId++, { languages: ['de', 'fr'], catalog: defaults })],
    });
    expect(again.migrations[0]).toMatchObject({ outcome: 'applied', seen: 5, changed: 0, unchanged: 5 });
  });
});
