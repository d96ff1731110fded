import type { Product } from '../../core/domain/catalog';
import { DEFAULT_CATALOG } from '../../core/domain/catalog';
import type { TranslatedLanguage } from '../../core/domain/languages';
import { LANGUAGES } from '../../core/domain/languages';
import { addDefaultTexts } from '../../lambdas/data/catalog';
import type { Migration, MigrationUnit } from './migration';

const TRANSLATED = LANGUAGES.filter((language): language is TranslatedLanguage => language !== 'en');

/**
 * Brings the default products' texts in every host language to the products a stage stored before
 * those texts existed: a default product gets a language's texts where it has none in that language
 * and still bears its default name, so no operator's text is ever replaced. Units are the default
 * products, by id. Its revision is the list of languages: a new host language runs it again on every
 * stage, with nothing to add by hand (`languages` and `catalog`: tests give their own).
 */
export function catalogTextsMigration(
  id: number,
  {
    languages = TRANSLATED,
    catalog = DEFAULT_CATALOG,
  }: { languages?: readonly TranslatedLanguage[]; catalog?: readonly Product[] } = {},
): Migration {
  const defaults = [...catalog].sort((a, b) => a.id.localeCompare(b.id));
  return {
    id,
    name: 'catalog-texts',
    summary: 'Give stored default products their texts in each host language they have none in',
    revision: languages.join(','),
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
