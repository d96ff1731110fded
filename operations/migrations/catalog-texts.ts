import type { Product } from '../../core/domain/catalog';
import { DEFAULT_CATALOG } from '../../core/domain/catalog';
import type { TranslatedLanguage } from '../../core/domain/languages';
import { addDefaultTexts } from '../../lambdas/data/catalog';
import type { Migration, MigrationUnit } from './migration';

/** A migration of catalog texts, and the languages it brings along (a unit test checks every host language is). */
export interface CatalogTextsMigration extends Migration {
  readonly languages: readonly TranslatedLanguage[];
}

/**
 * Brings the default products' texts in `languages` to the products a stage stored before those
 * texts existed (a new host language, most often): a default product gets them where it has none
 * in that language and still bears its default name, so no operator's text is ever replaced. Units
 * are the default products, by id (`catalog`: tests give their own).
 */
export function catalogTextsMigration(
  id: number,
  languages: readonly TranslatedLanguage[],
  catalog: readonly Product[] = DEFAULT_CATALOG,
): CatalogTextsMigration {
  const defaults = [...catalog].sort((a, b) => a.id.localeCompare(b.id));
  return {
    id,
    languages,
    name: `catalog-texts-${languages.join('-')}`,
    summary: `Give stored default products their ${languages.join(', ')} texts where they have none`,
    async *units(cursor, dryRun) {
      for (const product of defaults.filter((candidate) => cursor === undefined || candidate.id > cursor))
        yield await productUnit(product, languages, dryRun);
    },
  };
}

async function productUnit(
  product: Product,
  languages: readonly TranslatedLanguage[],
  dryRun: boolean,
): Promise<MigrationUnit> {
  const changes: string[] = [];
  for (const language of languages) {
    const texts = product.translations?.[language];
    if (texts && (await addDefaultTexts(product, language, texts, dryRun)) === 'missing')
      changes.push(`${language} texts added`);
  }
  return { cursor: product.id, label: `product ${product.id}`, changes };
}
