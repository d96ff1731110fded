import { InvalidActivationClaimsError, mintActivationToken } from '../core/domain/activation-token';
import type { ProductId } from '../core/domain/catalog';
import { unseal } from '../lambdas/common/secret-box';
import { loadServiceKey } from '../lambdas/common/service-secrets';
import {
  HostBeingErasedError,
  listIssuedLinksOfPartner,
  recordIssuedLink,
} from '../lambdas/data/activation-links';
import { getConsumedNonce } from '../lambdas/data/activation-nonces';
import type { Partner } from '../lambdas/data/partners';
import { getSealedSigningSecret } from '../lambdas/data/partners';
import { recordOperatorEvent } from './audit';
import { OperatorError } from './operator-error';
import { requirePartner } from './partner-lookup';
import type { OperatorTarget } from './target';

export interface LinkRequest {
  readonly slug: string;
  /** Mint even when the property already has an open link (`--again`). */
  readonly again?: boolean;
  readonly email: string;
  readonly name: string;
  readonly pmsHotelId: string;
  readonly products: readonly ProductId[];
  readonly ttlSeconds: number;
}

/**
 * Mints a host activation link for a partner (operators only: partner self-service minting is
 * not live). Products outside the partner's agreement are refused by name.
 */
export async function createActivationLink(target: OperatorTarget, request: LinkRequest, nowMs: number) {
  const partner = await requirePartner(request.slug);
  const outside = request.products.filter((product) => !partner.products.includes(product));
  if (outside.length > 0) {
    throw new OperatorError(
      `Not in ${partner.slug}'s agreement: ${outside.join(', ')}. Its agreement includes: ${partner.products.join(', ') || 'no products'}.`,
    );
  }
  await refuseOpenLinks(partner, [{ pmsHotelId: request.pmsHotelId, where: '' }], {
    again: request.again ?? false,
    nowMs,
  });
  const { token, claims } = mintOrExplain(
    {
      contact_email: request.email,
      contact_name: request.name,
      pms_hotel_id: request.pmsHotelId,
      requested_product_ids: request.products,
    },
    await partnerSigningSecret(partner),
    nowMs,
    request.ttlSeconds,
  );
  return issueMintedLink(target, partner, { token, claims }, nowMs);
}

/** The partner's activation signing secret, unsealed (only operators and the activation page can). */
export async function partnerSigningSecret(partner: Pick<Partner, 'id' | 'slug'>): Promise<Buffer> {
  const sealed = await getSealedSigningSecret(partner.id);
  if (!sealed)
    throw new OperatorError(
      `Partner ${partner.slug} has no signing secret; it was not created by "partners approve".`,
    );
  return unseal(sealed, await loadServiceKey('sealing'));
}

/**
 * Records a minted link (its nonce, partner and expiry, which tell a foreign link from a forged
 * one; what `links list` shows) and its audit event, and returns what the operator hands over.
 */
export async function issueMintedLink(
  target: OperatorTarget,
  partner: Pick<Partner, 'id' | 'slug'>,
  { token, claims }: ReturnType<typeof mintActivationToken>,
  nowMs: number,
) {
  const expiresAt = new Date(claims.exp * 1000).toISOString();
  await recordIssuedLink(
    {
      nonce: claims.nonce,
      partnerId: partner.id,
      issuedAt: new Date(nowMs).toISOString(),
      expiresAt,
      hostEmailMasked: maskedEmail(claims.contact_email),
      pmsHotelId: claims.pms_hotel_id,
      products: claims.requested_product_ids,
    },
    claims.contact_email,
  ).catch((error: unknown) => {
    if (error instanceof HostBeingErasedError)
      throw new OperatorError(
        `The host account of ${claims.contact_email} is being erased. Try again in a minute: the link will then create a new account.`,
      );
    throw error;
  });
  await recordOperatorEvent(
    target,
    'link.created',
    {
      partnerId: partner.id,
      linkNonce: claims.nonce,
      details: { products: claims.requested_product_ids, expires_at: expiresAt },
    },
    nowMs,
  );
  return {
    url: `${target.activationBaseUrl}/partner/${partner.slug}/activate?token=${token}`,
    expires_at: expiresAt,
    nonce: claims.nonce,
  };
}

const FLAG_OF_CLAIM: Record<string, string> = {
  contact_email: '--email',
  contact_name: '--name',
  pms_hotel_id: '--pms-hotel-id',
  requested_product_ids: '--products',
};

/** Mints with the page's own claim rules, naming the flag to fix when a claim would be refused. */
function mintOrExplain(
  ...args: Parameters<typeof mintActivationToken>
): ReturnType<typeof mintActivationToken> {
  try {
    return mintActivationToken(...args);
  } catch (error) {
    if (!(error instanceof InvalidActivationClaimsError)) throw error;
    const flags = error.problems.map((problem) => FLAG_OF_CLAIM[problem.split(' ')[0] ?? ''] ?? problem);
    throw new OperatorError(
      `The activation page would refuse this link: check ${[...new Set(flags)].join(', ')}.`,
    );
  }
}

/** An e-mail address shown to recognise it, not to read it: `j…@example.com`. */
function maskedEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 1 ? '…' : `${email.slice(0, 1)}…${email.slice(at)}`;
}

/**
 * A partner's activation links, newest first, until a day after each expires: nonce, masked
 * host e-mail, products, expiry, and whether the link was used (its nonce, in the table until
 * a day after the link's expiry too).
 */
export async function listLinks(slug: string, nowMs: number) {
  const partner = await requirePartner(slug);
  return { partner: partner.slug, links: await linksOf(partner, nowMs) };
}

/**
 * Refuses to mint for a property whose host already has an open link (unused, unexpired) from
 * this partner, unless `again`: a hosts file run twice would otherwise hand out a second set.
 * `rows` name each property by its `pms_hotel_id` and where the operator wrote it.
 */
export async function refuseOpenLinks(
  partner: Pick<Partner, 'id' | 'slug'>,
  rows: readonly { readonly pmsHotelId: string; readonly where: string }[],
  { again, nowMs }: { again: boolean; nowMs: number },
): Promise<void> {
  if (again) return;
  const open = new Map(
    (await linksOf(partner, nowMs))
      .filter((link) => link.state === 'open')
      .map((link) => [link.pms_hotel_id, link] as const),
  );
  const repeated = rows.flatMap(({ pmsHotelId, where }) => {
    const link = open.get(pmsHotelId);
    return link ? [`${where}${pmsHotelId}: link ${link.nonce} is open until ${link.expires_at}`] : [];
  });
  if (repeated.length > 0)
    throw new OperatorError(
      `Nothing was minted: ${repeated.length === 1 ? 'this property already has' : `${repeated.length} properties already have`} an open link from ${partner.slug} (was this run before?):\n${repeated.map((line) => `  - ${line}`).join('\n')}\nPass --again to mint new ones as well; the open links keep working until they expire or are used.`,
    );
}

/** A partner's links and their states, newest first. */
async function linksOf(partner: Pick<Partner, 'id'>, nowMs: number) {
  const links = await listIssuedLinksOfPartner(partner.id);
  const used = await Promise.all(links.map((link) => getConsumedNonce(partner.id, link.nonce)));
  return links.map((link, index) => ({
    nonce: link.nonce,
    host_email: link.hostEmailMasked,
    pms_hotel_id: link.pmsHotelId,
    products: link.products,
    issued_at: link.issuedAt,
    expires_at: link.expiresAt,
    state: used[index]?.withdrawn
      ? 'withdrawn'
      : used[index]
        ? 'used'
        : Date.parse(link.expiresAt) <= nowMs
          ? 'expired'
          : 'open',
    used_at: used[index]?.withdrawn ? null : (used[index]?.consumedAt ?? null),
    /** When an erasure of the host withdrew it unused. */
    withdrawn_at: used[index]?.withdrawn ? used[index]?.consumedAt : null,
  }));
}
