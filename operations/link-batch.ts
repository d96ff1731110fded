import { mintActivationToken } from '../core/domain/activation-token';
import type { ProductId } from '../core/domain/catalog';
import { isEmailBeingErased } from '../lambdas/data/hosts';
import { issueMintedLink, partnerSigningSecret, refuseOpenLinks } from './links';
import { OperatorError } from './operator-error';
import { requirePartner } from './partner-lookup';
import type { OperatorTarget } from './target';

/**
 * `links create --file hosts.csv`: one activation link per host, for partners that onboard many
 * hosts at once. The rows arrive checked with the rules of a single link (the CLI reads the file);
 * a refusal here names every row it concerns and mints nothing.
 */

/** A host of the file, its options checked as `links create` checks a single link's. */
export interface HostRow {
  /** The line of the file (the header is line 1), as the operator's editor shows it. */
  readonly line: number;
  readonly email: string;
  readonly name: string;
  readonly pmsHotelId: string;
  readonly products: readonly ProductId[];
}

export interface MintedHostLink {
  readonly line: number;
  readonly email: string;
  readonly name: string;
  readonly pms_hotel_id: string;
  readonly products: readonly ProductId[];
  readonly url: string;
  readonly expires_at: string;
  readonly nonce: string;
}

/**
 * Mints one link per row. The partner and every row's products are checked against the agreement
 * first: a refusal (exit 1) names every row it concerns and mints nothing. Each link is recorded
 * and audited (`link.created`) as a single one is.
 */
export async function createActivationLinks(
  target: OperatorTarget,
  {
    slug,
    rows,
    ttlSeconds,
    again = false,
  }: { slug: string; rows: readonly HostRow[]; ttlSeconds: number; again?: boolean },
  nowMs: number,
): Promise<MintedHostLink[]> {
  const partner = await requirePartner(slug);
  const outside = rows.flatMap((row) => {
    const refused = row.products.filter((product) => !partner.products.includes(product));
    return refused.length > 0 ? [`line ${row.line}: ${refused.join(', ')}`] : [];
  });
  if (outside.length > 0)
    throw new OperatorError(
      `Nothing was minted: products not in ${partner.slug}'s agreement (${partner.products.join(', ') || 'no products'}):\n${outside.map((problem) => `  - ${problem}`).join('\n')}`,
    );
  await refuseOpenLinks(
    partner,
    rows.map((row) => ({ pmsHotelId: row.pmsHotelId, where: `line ${row.line}: ` })),
    { again, nowMs },
  );
  // A link for an address being erased would be refused part-way: all are checked before any is made.
  const erasing = (
    await Promise.all(rows.map(async (row) => ((await isEmailBeingErased(row.email)) ? [row] : [])))
  ).flat();
  if (erasing.length > 0)
    throw new OperatorError(
      `Nothing was minted: the host account of ${erasing.map((row) => `line ${row.line} (${row.email})`).join(', ')} is being erased. Run the file again in a minute: the link will then create a new account.`,
    );
  const secret = await partnerSigningSecret(partner);
  // Minted in memory first (the claims were checked row by row): recording starts only when all are.
  const minted = rows.map((row) => ({
    row,
    link: mintActivationToken(
      {
        contact_email: row.email,
        contact_name: row.name,
        pms_hotel_id: row.pmsHotelId,
        requested_product_ids: [...row.products],
      },
      secret,
      nowMs,
      ttlSeconds,
    ),
  }));
  const issued: MintedHostLink[] = [];
  for (const { row, link } of minted) {
    const { url, expires_at, nonce } = await issueMintedLink(target, partner, link, nowMs);
    issued.push({
      line: row.line,
      email: row.email,
      name: row.name,
      pms_hotel_id: row.pmsHotelId,
      products: row.products,
      url,
      expires_at,
      nonce,
    });
  }
  return issued;
}
