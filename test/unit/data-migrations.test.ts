import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../core/domain/languages';
import { MIGRATIONS } from '../../operations/migrations';

/** The list of migrations is the contract every stage's records are kept by (docs/design/data-migrations.md). */
describe('MIGRATIONS', () => {
  it('are numbered 1, 2, 3… in order, without gaps or repeats', () => {
    expect(MIGRATIONS.map((migration) => migration.id)).toEqual(MIGRATIONS.map((_, index) => index + 1));
  });

  it('have kebab-case names and a one-line summary each', () => {
    for (const migration of MIGRATIONS) {
      expect(migration.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(migration.summary).toMatch(/^[A-Z][^\n]{10,120}$/);
    }
  });

  it('run the catalog texts again when a host language is added: their revision is the languages', () => {
    const catalogTexts = MIGRATIONS.find((migration) => migration.name === 'catalog-texts');
    expect(catalogTexts?.revision?.split(',')).toEqual(LANGUAGES.filter((language) => language !== 'en'));
  });
});
