import { readFile, stat } from 'node:fs/promises';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LogoType, PartnerBranding } from '../core/domain/branding';
import { checkAccentColor, checkLogo, checkWebsite, MAX_LOGO_BYTES } from '../core/domain/branding';
import { isConditionFailure, transactionCancellationCodes } from '../lambdas/common/aws-errors';
import { dynamoDb } from '../lambdas/data/db';
import { brandingUpdateItems, logoDigest } from '../lambdas/data/partner-logos';
import { operatorEventItem } from './audit';
import { drawSvgLogo, rasterProblem } from './logo-drawing';
import { OperatorError } from './operator-error';
import { noSuchPartner, requirePartner } from './partner-lookup';
import type { OperatorTarget } from './target';

/** What `partners brand` changes: a value sets it, `null` removes it, `undefined` keeps it. */
export interface BrandingChange {
  readonly slug: string;
  /** A PNG, WebP or SVG file; an SVG is stored drawn as a PNG. */
  readonly logoFile?: string | null;
  readonly accentColor?: string | null;
  readonly website?: string | null;
}

async function readLogo(path: string): Promise<{ bytes: Uint8Array; contentType: LogoType }> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw new OperatorError(`--logo: cannot read "${path}". Give the path of a PNG, WebP or SVG file.`);
  }
  // Refused from its size before it is read, like a reservations file.
  if (size > MAX_LOGO_BYTES) {
    throw new OperatorError(
      `--logo: the file has ${size.toLocaleString('en-US')} bytes; a logo takes at most ${MAX_LOGO_BYTES.toLocaleString('en-US')}. Export it smaller (an SVG, or a PNG or WebP at most 96 px high).`,
    );
  }
  const bytes = new Uint8Array(await readFile(path));
  const checked = checkLogo(bytes);
  if (!checked.ok) throw new OperatorError(`--logo: ${checked.problem}`);
  if (checked.contentType !== 'image/svg+xml') {
    const problem = rasterProblem(bytes, checked.contentType);
    if (problem) throw new OperatorError(`--logo: ${problem}`);
    return { bytes, contentType: checked.contentType };
  }
  // Stored as pixels, never as markup: an SVG opened as a document could run script or fetch.
  const drawn = await drawSvgLogo(bytes);
  if (!drawn.ok) throw new OperatorError(`--logo: ${drawn.problem}`);
  return { bytes: drawn.png, contentType: 'image/png' };
}

function checked(flag: string, result: { ok: true; value: string } | { ok: false; problem: string }): string {
  if (!result.ok) throw new OperatorError(`${flag} ${result.problem}`);
  return result.value;
}

const describe = (slug: string, branding: PartnerBranding, logoBytes?: number) => ({
  partner: slug,
  accent_color: branding.accentColor ?? null,
  website: branding.website ?? null,
  logo: branding.logo
    ? {
        content_type: branding.logo.contentType,
        sha256: branding.logo.sha256,
        ...(logoBytes === undefined ? {} : { bytes: logoBytes }),
      }
    : null,
});

/**
 * Sets how a partner's hosts see it (docs/design/host-pages.md): every value checked first, then
 * the partner's branding, its logo item and the audit event in one transaction.
 */
export async function brandPartner(
  target: Pick<OperatorTarget, 'actor'>,
  change: BrandingChange,
  nowMs: number,
) {
  if (change.logoFile === undefined && change.accentColor === undefined && change.website === undefined)
    throw new OperatorError(
      'Nothing to change: pass --logo, --accent or --website (or --no-logo, --no-accent, --no-website).',
    );
  const partner = await requirePartner(change.slug);
  const logo = typeof change.logoFile === 'string' ? await readLogo(change.logoFile) : change.logoFile;
  const accentColor =
    typeof change.accentColor === 'string'
      ? checked('--accent', checkAccentColor(change.accentColor))
      : undefined;
  const website =
    typeof change.website === 'string' ? checked('--website', checkWebsite(change.website)) : undefined;
  const before = partner.branding ?? {};
  // A value sets, null removes, undefined keeps what is stored.
  const accent = change.accentColor === null ? undefined : (accentColor ?? before.accentColor);
  const site = change.website === null ? undefined : (website ?? before.website);
  const logoMeta =
    logo === null
      ? undefined
      : logo
        ? { contentType: logo.contentType, sha256: logoDigest(logo.bytes) }
        : before.logo;
  const next: PartnerBranding = {
    ...(accent ? { accentColor: accent } : {}),
    ...(site ? { website: site } : {}),
    ...(logoMeta ? { logo: logoMeta } : {}),
  };
  const changed = [
    ...(change.logoFile === undefined ? [] : [change.logoFile === null ? 'logo removed' : 'logo']),
    ...(change.accentColor === undefined
      ? []
      : [change.accentColor === null ? 'accent color removed' : 'accent color']),
    ...(change.website === undefined ? [] : [change.website === null ? 'website removed' : 'website']),
  ];
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          ...brandingUpdateItems(partner.id, next, logo),
          operatorEventItem(
            target,
            'partner.branded',
            {
              partnerId: partner.id,
              details: {
                changed,
                ...(next.accentColor ? { accent_color: next.accentColor } : {}),
                ...(next.website ? { website: next.website } : {}),
                ...(logo
                  ? {
                      logo_type: logo.contentType,
                      logo_bytes: logo.bytes.length,
                      logo_sha256: logoDigest(logo.bytes),
                    }
                  : {}),
              },
            },
            nowMs,
          ),
        ],
      }),
    );
  } catch (error) {
    if (isConditionFailure(error) || transactionCancellationCodes(error)?.includes('ConditionalCheckFailed'))
      throw await noSuchPartner(change.slug);
    throw error;
  }
  return describe(partner.slug, next, logo ? logo.bytes.length : undefined);
}
