import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Product, ProductTexts, ProductTranslations } from '../../core/domain/catalog';
import { isProductId } from '../../core/domain/catalog';
import type { Language, TranslatedLanguage } from '../../core/domain/languages';
import { LANGUAGES } from '../../core/domain/languages';
import { CATALOG_INDEX_PARTITION, PRODUCT_PARTITION } from '../../core/partitions';
import { isConditionFailure } from '../common/aws-errors';
import { dynamoDb, GSI1, tableName } from './db';

const productKey = (id: string) => ({ PK: `${PRODUCT_PARTITION}${id}`, SK: 'PRODUCT' });

/** Stores a product unless one with its id exists; false when it does. */
export async function addProduct(product: Product): Promise<boolean> {
  try {
    await dynamoDb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...productKey(product.id), GSI1PK: CATALOG_INDEX_PARTITION, GSI1SK: product.id, ...product },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** What a default product may have been stored without: items written before products carried it. */
const BACKFILLED = ['goesLive', 'translations'] as const;

/**
 * Gives a stored default product a `goesLive` or translations it was created without, unless an
 * operator set or removed it since (a removed `goesLive` stores `false`) or renamed the product:
 * never over an operator's texts.
 */
async function addMissing(product: Product, attribute: (typeof BACKFILLED)[number]): Promise<void> {
  const value = product[attribute];
  if (!value) return;
  try {
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: productKey(product.id),
        UpdateExpression: 'SET #attribute = :value',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#attribute) AND #name = :name',
        ExpressionAttributeNames: { '#attribute': attribute, '#name': 'name' },
        ExpressionAttributeValues: { ':value': value, ':name': product.name },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Creates the catalog's missing products; products already stored are left as they are, so
 * names or descriptions edited in the table are never overwritten (only a `goesLive` or
 * translations they were stored without are added).
 */
export async function ensureCatalog(products: readonly Product[]): Promise<void> {
  await Promise.all(
    products.map(async (product) => {
      if (!(await addProduct(product)))
        await Promise.all(BACKFILLED.map((attribute) => addMissing(product, attribute)));
    }),
  );
}

/**
 * Sets a product's texts in one language other than English, keeping that language's texts the
 * edit does not name; undefined when there is no such product. Three writes, each on condition
 * that the product exists: the map of translations, the language's map, then the texts (a
 * document path can only be set inside a map that exists). Each is idempotent, so a failure
 * between them leaves nothing a second run does not finish.
 */
export async function translateProduct(
  id: string,
  language: Exclude<Language, 'en'>,
  texts: ProductTexts,
): Promise<Product | undefined> {
  const update = async (expression: string, names: Record<string, string>, values: Record<string, unknown>) =>
    dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: productKey(id),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
  const names = { '#translations': 'translations', '#language': language };
  try {
    await update(
      'SET #translations = if_not_exists(#translations, :empty)',
      { '#translations': 'translations' },
      {
        ':empty': {},
      },
    );
    await update('SET #translations.#language = if_not_exists(#translations.#language, :empty)', names, {
      ':empty': {},
    });
    const fields = Object.entries(texts).filter(([, value]) => value !== undefined);
    if (fields.length === 0) throw new Error('A translation names at least one text.');
    const { Attributes } = await update(
      `SET ${fields.map(([field]) => `#translations.#language.#${field} = :${field}`).join(', ')}`,
      { ...names, ...Object.fromEntries(fields.map(([field]) => [`#${field}`, field])) },
      Object.fromEntries(fields.map(([field, value]) => [`:${field}`, value])),
    );
    return toProduct(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** What an edit may change: each text is optional; `goesLive: null` removes it (stored as `false`). */
export interface ProductEdit {
  readonly name?: string;
  readonly description?: string;
  readonly goesLive?: Product['goesLive'] | null;
}

/**
 * Where a stored default product stands with one language's default texts: `missing` (they can be
 * added), `present` (the product has texts in that language, an operator's or the defaults'),
 * `edited` (an operator changed its English name or description: the defaults may no longer say
 * what it is), `absent`.
 */
export type DefaultTextsState = 'missing' | 'present' | 'edited' | 'absent';

async function storedDefault(
  product: Product,
  language: TranslatedLanguage,
): Promise<{ state: DefaultTextsState; goesLive: boolean }> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: productKey(product.id), ConsistentRead: true }),
  );
  if (!Item) return { state: 'absent', goesLive: false };
  const goesLive = typeof Item.goesLive === 'object' && Item.goesLive !== null;
  if (Item.name !== product.name || Item.description !== product.description)
    return { state: 'edited', goesLive };
  const translations = Item.translations as Record<string, unknown> | undefined;
  return { state: translations?.[language] === undefined ? 'missing' : 'present', goesLive };
}

/**
 * Gives a stored default product its default `texts` in `language` when it has none in that
 * language and still bears its default English name and description (never over an operator's
 * texts); without the last button's texts when an operator removed that button. Returns the state
 * found; `missing` means they were added (or, with `dryRun`, would be). Two writes, each
 * conditioned on that state, so a second run, or one after an operator's edit, changes nothing.
 */
export async function addDefaultTexts(
  product: Product,
  language: TranslatedLanguage,
  texts: ProductTexts,
  dryRun: boolean,
): Promise<DefaultTextsState> {
  const { state, goesLive } = await storedDefault(product, language);
  if (state !== 'missing' || dryRun) return state;
  const { goesLive: lastButton, ...words } = texts;
  const update = (expression: string, condition: string, values: Record<string, unknown>) =>
    dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: productKey(product.id),
        UpdateExpression: expression,
        ConditionExpression: `attribute_exists(PK) AND #name = :name AND description = :description${condition}`,
        ExpressionAttributeNames: {
          '#name': 'name',
          '#translations': 'translations',
          ...(expression.includes('#language') ? { '#language': language } : {}),
        },
        ExpressionAttributeValues: { ':name': product.name, ':description': product.description, ...values },
      }),
    );
  try {
    await update('SET #translations = if_not_exists(#translations, :empty)', '', { ':empty': {} });
    await update(
      'SET #translations.#language = :texts',
      ' AND attribute_not_exists(#translations.#language)',
      {
        ':texts': goesLive && lastButton ? { ...words, goesLive: lastButton } : words,
      },
    );
    return 'missing';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // An operator's edit came between the read and the write: report what it left.
    return (await storedDefault(product, language)).state;
  }
}

/** Edits a stored product; undefined when there is no such product. */
export async function editProduct(id: string, edit: ProductEdit): Promise<Product | undefined> {
  const set: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const field of ['name', 'description', 'goesLive'] as const) {
    const value = edit[field];
    if (value === undefined) continue;
    // `name` is a reserved word of DynamoDB expressions: every field goes through a placeholder.
    names[`#${field}`] = field;
    set.push(`#${field} = :${field}`);
    // A removed `goesLive` stays as `false`, so the default catalog never brings it back.
    values[`:${field}`] = value === null ? false : value;
  }
  const expression = `SET ${set.join(', ')}`;
  try {
    const { Attributes } = await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: productKey(id),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toProduct(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

function goesLiveOf(value: unknown): Product['goesLive'] {
  const goesLive = value as Record<string, unknown> | undefined;
  return typeof goesLive?.submitLabel === 'string' && typeof goesLive.liveMessage === 'string'
    ? { submitLabel: goesLive.submitLabel, liveMessage: goesLive.liveMessage }
    : undefined;
}

function textsOf(value: unknown): ProductTexts | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  const goesLive = goesLiveOf(stored.goesLive);
  const texts: ProductTexts = {
    ...(typeof stored.name === 'string' ? { name: stored.name } : {}),
    ...(typeof stored.description === 'string' ? { description: stored.description } : {}),
    ...(goesLive ? { goesLive } : {}),
  };
  return Object.keys(texts).length > 0 ? texts : undefined;
}

function translationsOf(value: unknown): ProductTranslations | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  const entries = LANGUAGES.flatMap((language) => {
    const texts = language === 'en' ? undefined : textsOf(stored[language]);
    return texts ? [[language, texts] as const] : [];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function toProduct(item: Record<string, unknown> | undefined): Product | undefined {
  if (!item || !isProductId(item.id)) return undefined;
  const goesLive = goesLiveOf(item.goesLive);
  const translations = translationsOf(item.translations);
  return {
    id: item.id,
    name: String(item.name),
    description: String(item.description),
    ...(goesLive ? { goesLive } : {}),
    ...(translations ? { translations } : {}),
  };
}

/** The whole catalog, ordered by id. */
export async function listCatalog(): Promise<Product[]> {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: GSI1,
      KeyConditionExpression: 'GSI1PK = :products',
      ExpressionAttributeValues: { ':products': CATALOG_INDEX_PARTITION },
    }),
  );
  return Items.flatMap((item) => toProduct(item) ?? []);
}
