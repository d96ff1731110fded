import type { Product, ProductId, ProductTexts } from '../core/domain/catalog';
import { DEFAULT_CATALOG } from '../core/domain/catalog';
import type { Language } from '../core/domain/languages';
import type { ProductEdit } from '../lambdas/data/catalog';
import {
  addProduct,
  editProduct,
  ensureCatalog,
  listCatalog,
  translateProduct,
} from '../lambdas/data/catalog';
import { recordOperatorEvent } from './audit';
import { didYouMean } from './did-you-mean';
import { OperatorError } from './operator-error';
import type { OperatorTarget } from './target';

/**
 * The product catalog as operators see it. A deployment starts with `DEFAULT_CATALOG`, written
 * by the first command that needs it; from then on the table is the catalog.
 */
export async function catalogProducts(): Promise<Product[]> {
  await ensureCatalog(DEFAULT_CATALOG);
  return listCatalog();
}

/** The error for a product id the catalog does not have, naming the nearest one it has. */
async function noSuchProduct(id: string): Promise<OperatorError> {
  const ids = (await listCatalog()).map((product) => product.id);
  return new OperatorError(
    `No product "${id}" in the catalog.${didYouMean(id, ids)} List it with: npm run admin -- catalog list`,
  );
}

/** The requested products, refused unless each is in the catalog. */
export async function requireCatalogProducts(requested: readonly ProductId[]): Promise<ProductId[]> {
  const catalog = await catalogProducts();
  const known = new Set(catalog.map((product) => product.id));
  const unknown = requested.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const hints = unknown.map((id) => didYouMean(id, known)).join('');
    throw new OperatorError(
      `Unknown product(s): ${unknown.join(', ')}.${hints} Products: ${[...known].join(', ')}. Add one with: npm run admin -- catalog add --help`,
    );
  }
  return [...requested];
}

const describe = (product: Product) => ({
  id: product.id,
  name: product.name,
  description: product.description,
  goes_live: product.goesLive
    ? { submit_label: product.goesLive.submitLabel, live_message: product.goesLive.liveMessage }
    : null,
  translations: Object.fromEntries(
    Object.entries(product.translations ?? {}).map(([language, texts]) => [
      language,
      {
        ...(texts.name ? { name: texts.name } : {}),
        ...(texts.description ? { description: texts.description } : {}),
        ...(texts.goesLive
          ? {
              goes_live: {
                submit_label: texts.goesLive.submitLabel,
                live_message: texts.goesLive.liveMessage,
              },
            }
          : {}),
      },
    ]),
  ),
});

export async function listProducts() {
  return { products: (await catalogProducts()).map(describe) };
}

export async function addCatalogProduct(
  target: Pick<OperatorTarget, 'actor'>,
  product: Product,
  nowMs: number,
) {
  await ensureCatalog(DEFAULT_CATALOG);
  if (!(await addProduct(product))) {
    throw new OperatorError(
      `The catalog already has a product "${product.id}". Change it with: npm run admin -- catalog edit ${product.id}`,
    );
  }
  await recordOperatorEvent(
    target,
    'catalog.changed',
    { details: { product: product.id, change: 'added' } },
    nowMs,
  );
  return describe(product);
}

export async function editCatalogProduct(
  target: Pick<OperatorTarget, 'actor'>,
  id: ProductId,
  edit: ProductEdit,
  nowMs: number,
) {
  if (Object.values(edit).every((value) => value === undefined))
    throw new OperatorError('Nothing to change: pass --name, --description, --goes-live or --no-goes-live.');
  await ensureCatalog(DEFAULT_CATALOG);
  const product = await editProduct(id, edit);
  if (!product) throw await noSuchProduct(id);
  const changed = Object.entries(edit).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  await recordOperatorEvent(
    target,
    'catalog.changed',
    { details: { product: id, change: 'edited', fields: changed } },
    nowMs,
  );
  return describe(product);
}

/**
 * Sets a product's texts in another language than English (`catalog edit --lang`); hosts whose
 * pages are in that language read them, and English where a text has no translation.
 */
export async function translateCatalogProduct(
  target: Pick<OperatorTarget, 'actor'>,
  id: ProductId,
  language: Exclude<Language, 'en'>,
  texts: ProductTexts,
  nowMs: number,
) {
  const fields = Object.entries(texts).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  if (fields.length === 0)
    throw new OperatorError(
      'Nothing to translate: pass --name, --description or --goes-live with --live-message.',
    );
  await ensureCatalog(DEFAULT_CATALOG);
  const product = await translateProduct(id, language, texts);
  if (!product) throw await noSuchProduct(id);
  await recordOperatorEvent(
    target,
    'catalog.changed',
    { details: { product: id, change: 'translated', language, fields } },
    nowMs,
  );
  return describe(product);
}
