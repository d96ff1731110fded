/**
 * The product catalog: names and descriptions, never a price. Products live in the table
 * (`lambdas/data/catalog.ts`); operators add and edit them with `npm run admin -- catalog`.
 * This list is what a new deployment starts with. A product id is a short lower-case name, so a
 * new product needs no code change (docs/design/activation-links.md).
 */
export type ProductId = string;

/** Lower-case letters, digits and hyphens, starting with a letter, at most 32 characters. */
export const PRODUCT_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** Products one agreement or one activation link may name. */
export const MAX_PRODUCTS = 20;

export interface Product {
  readonly id: ProductId;
  readonly name: string;
  readonly description: string;
  /**
   * For a product that answers guests from the knowledge base the onboarding wizard fills: the
   * wizard's last button and its closing message say that the product goes live.
   */
  readonly goesLive?: { readonly submitLabel: string; readonly liveMessage: string };
}

export const DEFAULT_CATALOG: readonly Product[] = [
  {
    id: 'assistant',
    name: 'AI guest assistant',
    description: 'Answers guest questions day and night from your property knowledge base.',
    goesLive: {
      submitLabel: 'Make my assistant live',
      liveMessage: 'Your assistant now answers guests.',
    },
  },
  {
    id: 'upsells',
    name: 'Upsells',
    description: 'Offers early check-in, late check-out and extras to guests before and during their stay.',
  },
  {
    id: 'guidebook',
    name: 'Digital guidebook',
    description: 'A mobile guide to your property and neighbourhood, shared with every booking.',
  },
  {
    id: 'checkin',
    name: 'Online check-in',
    description: 'Collects guest details and arrival times before the guest arrives.',
  },
];

export function isProductId(value: unknown): value is ProductId {
  return typeof value === 'string' && PRODUCT_ID_PATTERN.test(value);
}

/** The first of the chosen products that goes live with the wizard, in catalog order. */
export function productGoingLive(catalog: readonly Product[], chosen: readonly ProductId[]) {
  return catalog.find((product) => product.goesLive && chosen.includes(product.id));
}
