import type { Command } from 'commander';
import { isLanguage, LANGUAGES } from '../../core/domain/languages';
import { quoted } from '../../core/domain/text';
import {
  addCatalogProduct,
  editCatalogProduct,
  listProducts,
  translateCatalogProduct,
} from '../../operations/catalog';
import type { Define, Options } from '../command';
import { commandGroup, table, text, UsageError } from '../command';
import { displayName, productList } from '../inputs';

/** The languages a product's texts are translated into (English is the product's own). */
const TRANSLATIONS = LANGUAGES.filter((language) => language !== 'en').join(', ');

/** The texts of `catalog add` and `catalog edit`: a value sets, absent keeps, `--no-goes-live` removes. */
function productTexts(options: Options) {
  const goesLive = options.goesLive;
  if ((typeof goesLive === 'string') !== (typeof options.liveMessage === 'string'))
    throw new UsageError('--goes-live and --live-message go together.');
  return {
    name: typeof options.name === 'string' ? displayName('--name', options.name, 80) : undefined,
    description:
      typeof options.description === 'string'
        ? displayName('--description', options.description, 300)
        : undefined,
    goesLive:
      typeof goesLive === 'string'
        ? {
            submitLabel: displayName('--goes-live', goesLive, 60),
            liveMessage: displayName('--live-message', text(options, 'liveMessage'), 200),
          }
        : goesLive === false
          ? null
          : undefined,
  };
}

/** The options both `catalog add` and `catalog edit` take; `add` requires the name and description. */
function productOptions(command: Command, required: boolean): Command {
  const option = (flags: string, description: string) =>
    required ? command.requiredOption(flags, description) : command.option(flags, description);
  option('--name <name>', 'the product as hosts see it (1-80 characters)');
  option('--description <text>', 'one sentence on what it does for a host (1-300 characters)');
  return command
    .option('--goes-live <label>', "the wizard's last button when the host chose this product")
    .option('--live-message <text>', 'what the wizard says once this product is live (with --goes-live)');
}

/** `catalog ...`: what `operations/catalog.ts` does, as commands. */
export function catalogCommands(program: Command, define: Define): void {
  const catalog = commandGroup(program, 'catalog', 'The product catalog');
  for (const command of [listCommand, addCommand, editCommand]) command(catalog, define);
}

/** `catalog list`: the products partners can offer. */
function listCommand(catalog: Command, define: Define): void {
  define(catalog, 'list', {
    summary: 'List the products partners can offer hosts',
    examples: ['catalog list', 'catalog list --json'],
    action: () => async () => {
      const result = await listProducts();
      return {
        json: result,
        text: table(
          ['ID', 'NAME', 'GOES LIVE'],
          result.products.map((product) => [
            product.id,
            product.name,
            product.goes_live ? 'with the wizard' : '-',
          ]),
        ),
      };
    },
  });
}

/** `catalog add`: a product in the catalog, no code change. */
function addCommand(catalog: Command, define: Define): void {
  productOptions(
    define(catalog, 'add', {
      summary: 'Add a product to the catalog',
      examples: [
        'catalog add spa --name "Spa booking" --description "Lets guests book the spa."',
        'catalog add spa --name "Spa booking" --description "Lets guests book the spa." --goes-live "Open the spa" --live-message "Guests can book the spa." --json',
      ],
      action: (options, [id = '']) => {
        const [productId = ''] = productList(id, '<id>');
        const { name = '', description = '', goesLive } = productTexts(options);
        const product = { id: productId, name, description, ...(goesLive ? { goesLive } : {}) };
        return async (target) => {
          const added = await addCatalogProduct(target, product, Date.now());
          return { json: added, text: [`Product "${added.id}" added: ${added.name}.`] };
        };
      },
    }).argument('<id>', 'the product id: lower-case letters, digits and hyphens'),
    true,
  );
}

/** `catalog edit`: a product's texts, or their translation into one language. */
function editCommand(catalog: Command, define: Define): void {
  productOptions(
    define(catalog, 'edit', {
      summary: "Change a product's texts, or set their translation into one language",
      examples: [
        'catalog edit spa --name "Spa and sauna"',
        'catalog edit spa --lang de --name "Spa und Sauna" --json',
      ],
      action: (options, [id = '']) => {
        const [productId = ''] = productList(id, '<id>');
        const edit = productTexts(options);
        const language = typeof options.lang === 'string' ? options.lang : 'en';
        if (language === 'en') {
          if (Object.values(edit).every((value) => value === undefined))
            throw new UsageError(
              'Nothing to change: pass --name, --description, --goes-live or --no-goes-live.',
            );
          return async (target) => {
            const product = await editCatalogProduct(target, productId, edit, Date.now());
            return { json: product, text: [`Product "${product.id}" updated: ${product.name}.`] };
          };
        }
        if (edit.goesLive === null)
          throw new UsageError('--no-goes-live applies to the product, not to one language.');
        if (!isLanguage(language) || language === 'en')
          throw new UsageError(`--lang must be one of ${TRANSLATIONS}; got "${quoted(language, 20)}".`);
        const { goesLive, ...texts } = edit;
        const translation = { ...texts, ...(goesLive ? { goesLive } : {}) };
        if (Object.values(translation).every((value) => value === undefined))
          throw new UsageError(
            'Nothing to translate: pass --name, --description or --goes-live with --live-message.',
          );
        return async (target) => {
          const product = await translateCatalogProduct(target, productId, language, translation, Date.now());
          return { json: product, text: [`Product "${product.id}" translated (${language}).`] };
        };
      },
    }).argument('<id>', 'the product id'),
    false,
  )
    .option('--no-goes-live', 'the product no longer goes live with the wizard')
    .option(
      '--lang <language>',
      `the texts are this language's translation (${TRANSLATIONS}); hosts fall back to English`,
    );
}
