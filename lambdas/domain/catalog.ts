/** The product catalog (DESIGN.md): names and descriptions, never a price. */
export const PRODUCT_IDS = ['assistant', 'upsells', 'guidebook', 'checkin'] as const;
export type ProductId = (typeof PRODUCT_IDS)[number];

export interface Product {
  readonly id: ProductId;
  readonly name: string;
  readonly description: string;
}

export const DEFAULT_CATALOG: readonly Product[] = [
  {
    id: 'assistant',
    name: 'AI guest assistant',
    description: 'Answers guest questions day and night from your property knowledge base.',
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

export function isProductId(value: string): value is ProductId {
  return (PRODUCT_IDS as readonly string[]).includes(value);
}
