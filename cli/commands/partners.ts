import type { Command } from 'commander';
import { checkAccentColor, checkWebsite } from '../../core/domain/branding';
import { BASE_SCOPES, SCOPES } from '../../core/domain/scopes';
import { brandPartner } from '../../operations/branding';
import {
  approvePartner,
  listAllPartners,
  resumePartner,
  showPartner,
  suspendPartner,
  updateAgreement,
} from '../../operations/partners';
import type { Define, Options } from '../command';
import { ADMIN, commandGroup, minuteOf, table, text, UsageError } from '../command';
import {
  checkedBy,
  displayName,
  emailAddress,
  inputFile,
  partnerSlug,
  productList,
  scopeList,
} from '../inputs';
import { checkMail, sendAfterPrinting } from '../mail';

/** `partners ...`: what `operations/partners.ts` and `branding.ts` do, as commands. */
export function partnerCommands(program: Command, define: Define): void {
  const partners = commandGroup(program, 'partners', 'Partners');
  for (const command of [
    approveCommand,
    updateCommand,
    listCommand,
    showCommand,
    suspendCommand,
    resumeCommand,
    brandCommand,
  ])
    command(partners, define);
}

/** `partners approve`: a new partner with its first key, and the one-time reveal link. */
function approveCommand(partners: Command, define: Define): void {
  define(partners, 'approve', {
    summary: 'Create an approved partner with its first API key; prints and e-mails the one-time reveal link',
    examples: [
      'partners approve --name "Acme PMS" --slug acme --email api@acme.example --products assistant,checkin',
      'partners approve --name "Acme PMS" --slug acme --email api@acme.example --products assistant --scopes revenue:read --no-mail --json',
    ],
    action: (options) => {
      const approval = {
        name: displayName('--name', text(options, 'name')),
        slug: partnerSlug(text(options, 'slug'), '--slug'),
        email: emailAddress('--email', text(options, 'email')),
        products: productList(text(options, 'products')),
        scopes: scopeList(text(options, 'scopes')),
      };
      const mail = options.mail !== false;
      return async (target, io) => {
        if (mail) await checkMail(target, approval.email);
        const approved = await approvePartner(target, approval, Date.now());
        const { result, sampleData } = approved;
        if (sampleData)
          io.err(
            `Sandbox sample data: ${sampleData.properties} properties with ${sampleData.reservations} reservations.`,
          );
        if (target.stage === 'local')
          io.err(
            `No hosts yet. For sample hosts, properties and reservations: ${ADMIN} sample-data add --partner ${approval.slug}`,
          );
        return {
          json: result,
          text: [
            `Partner "${result.slug}" approved (id ${result.partner_id}).`,
            `  key prefix:  ${result.key_prefix}`,
            `  reveal link: ${result.reveal_url}`,
            '  The link shows the key once. The key itself is never printed or stored.',
          ],
          ...(mail
            ? {
                afterPrinting: sendAfterPrinting(
                  target,
                  approved.mail,
                  io,
                  `keys rotate --partner ${approval.slug}`,
                ),
              }
            : {}),
        };
      };
    },
  })
    .requiredOption('--name <name>', 'partner name as hosts see it')
    .requiredOption('--slug <slug>', 'the partner in activation links: lower-case letters, digits, hyphens')
    .requiredOption('--email <email>', 'technical contact: receives the reveal link')
    .requiredOption('--products <ids>', 'products of the agreement, comma-separated')
    .option(
      '--scopes <scopes>',
      `scopes the agreement grants beyond ${BASE_SCOPES.join(', ')}, comma-separated (${SCOPES.join(', ')})`,
      '',
    )
    .option('--no-mail', 'print the reveal link without e-mailing it');
}

/** `partners update`: the partner's agreement (products, scopes). */
function updateCommand(partners: Command, define: Define): void {
  define(partners, 'update', {
    summary:
      "Change a partner's agreement: narrower scopes apply to its keys at once, wider ones to keys not yet revealed and to keys issued from now on",
    examples: [
      'partners update --partner acme --products assistant,checkin',
      'partners update --partner acme --scopes "" --json',
    ],
    action: (options) => {
      if (options.products === undefined && options.scopes === undefined)
        throw new UsageError('Nothing to change: pass --products, --scopes or both.');
      const change = {
        slug: partnerSlug(text(options, 'partner'), '--partner'),
        products: options.products === undefined ? undefined : productList(text(options, 'products')),
        scopes: options.scopes === undefined ? undefined : scopeList(text(options, 'scopes')),
      };
      return async (target) => {
        const result = await updateAgreement(target, change, Date.now());
        const added = result.after.scopes.filter((scope) => !result.before.scopes.includes(scope));
        // A key in use lacks what was added: only a new key carries it.
        const revealedKeysLack = added.length > 0 && result.widened_keys.length === 0;
        return {
          json: result,
          text: [
            `Agreement of "${result.partner}" ${result.unchanged ? 'unchanged: it already was this' : 'updated'}.`,
            `  products: ${result.after.products.join(', ')}`,
            `  scopes:   ${result.after.scopes.join(' ')}`,
            ...result.narrowed_keys.map(
              (key) => `  key ${key.key_prefix} now carries ${key.scopes.join(' ')} (in effect within 30 s)`,
            ),
            ...result.widened_keys.map(
              (key) =>
                `  key ${key.key_prefix} (not revealed yet: its link in the partner's e-mail still works) now carries ${key.scopes.join(' ')}; a key in use gets none of it until this one is revealed`,
            ),
            ...(revealedKeysLack
              ? [
                  `  ${added.join(' ')} reach new keys only: ${ADMIN} keys rotate --partner ${result.partner} --widen-to-agreement`,
                ]
              : []),
          ],
        };
      };
    },
  })
    .requiredOption('--partner <slug>', 'the partner')
    .option('--products <ids>', 'the products of the agreement, comma-separated (replaces the list)')
    .option(
      '--scopes <scopes>',
      `scopes granted beyond ${BASE_SCOPES.join(', ')}, comma-separated (replaces the list; "" for none)`,
    );
}

/** `partners list`: every partner, one line each. */
function listCommand(partners: Command, define: Define): void {
  define(partners, 'list', {
    summary: 'List partners',
    examples: ['partners list', 'partners list --json'],
    action: () => async () => {
      const result = await listAllPartners();
      return {
        json: result,
        text:
          result.partners.length === 0
            ? [`No partners yet. Approve one with: ${ADMIN} partners approve --help`]
            : table(
                ['ID', 'SLUG', 'NAME', 'SCOPES', 'PRODUCTS', 'STATE'],
                result.partners.map((partner) => [
                  String(partner.partner_id),
                  partner.slug,
                  partner.name,
                  partner.scopes.join(' '),
                  partner.products.join(','),
                  partner.suspended ? 'SUSPENDED' : 'active',
                ]),
              ),
      };
    },
  });
}

/** `partners show`: one partner, its hosts, seats and properties. */
function showCommand(partners: Command, define: Define): void {
  define(partners, 'show', {
    summary: 'Show a partner, its hosts, seats and properties',
    examples: ['partners show demo-pms', 'partners show demo-pms --json'],
    action: (_options, [slug = '']) => {
      const checked = partnerSlug(slug, '<slug>');
      return async () => {
        const partner = await showPartner(checked);
        return {
          json: partner,
          text: [
            `${partner.name} (${partner.slug}, id ${partner.partner_id})`,
            `  contact:  ${partner.contact_email}`,
            `  scopes:   ${partner.scopes.join(' ')}`,
            `  products: ${partner.products.join(', ')}`,
            ...(partner.suspended
              ? [`  SUSPENDED since ${partner.suspended.at}: ${partner.suspended.reason}`]
              : []),
            `  hosts: ${partner.sponsored_hosts}, active seats: ${partner.active_seats}`,
            ...partner.leaked_keys.map(
              (leak) =>
                `  LEAKED key ${leak.key_prefix}: revoked ${minuteOf(leak.revoked_at ?? '')}, found at ${leak.url}${leak.source ? ` (${leak.source})` : ''}, reported by ${leak.reported_by}${leak.replaced_by ? `; replaced by ${leak.replaced_by}` : `; not replaced yet: ${ADMIN} keys replace --prefix ${leak.key_prefix}`}`,
            ),
            ...(partner.properties.length === 0
              ? ['  properties: none']
              : [
                  '  properties:',
                  ...table(
                    ['PROPERTY ID', 'PMS HOTEL ID', 'NAME'],
                    partner.properties.map((property) => [
                      String(property.id),
                      property.pms_hotel_id,
                      property.name,
                    ]),
                  ).map((line) => `    ${line}`),
                ]),
          ],
        };
      };
    },
  }).argument('<slug>', 'the partner');
}

/** `partners suspend`: keys refused, links and reveals not available; nothing deleted. */
function suspendCommand(partners: Command, define: Define): void {
  define(partners, 'suspend', {
    summary:
      "Suspend a partner: its keys get 401 partner-suspended (within 30 s), its links and reveals show a 'not available' page from the next page opened; nothing is deleted",
    examples: ['partners suspend --partner acme --reason "Invoice 2026-11 overdue"'],
    action: (options) => {
      const suspension = {
        slug: partnerSlug(text(options, 'partner'), '--partner'),
        reason: displayName('--reason', text(options, 'reason'), 200),
      };
      return async (target) => {
        const result = await suspendPartner(target, suspension, Date.now());
        return {
          json: result,
          text: [
            result.changed
              ? `Partner "${result.partner}" suspended at ${result.suspended_at}: its keys are refused within 30 s; links and reveals show "not available" from the next page opened. Undo with: ${ADMIN} partners resume --partner ${result.partner}`
              : `Partner "${result.partner}" was already suspended at ${result.suspended_at} (${result.reason}); nothing changed.`,
          ],
        };
      };
    },
  })
    .requiredOption('--partner <slug>', 'the partner')
    .requiredOption('--reason <text>', 'why, for the audit trail (one line)');
}

/** `partners resume`: lifts a suspension. */
function resumeCommand(partners: Command, define: Define): void {
  define(partners, 'resume', {
    summary: "Lift a partner's suspension: its keys, links and reveals work again as they were",
    examples: ['partners resume --partner acme'],
    action: (options) => {
      const slug = partnerSlug(text(options, 'partner'), '--partner');
      return async (target) => {
        const result = await resumePartner(target, slug, Date.now());
        return {
          json: result,
          text: [
            result.changed
              ? `Partner "${result.partner}" resumed: its keys work again within 30 s.`
              : `Partner "${result.partner}" is not suspended; nothing changed.`,
          ],
        };
      };
    },
  }).requiredOption('--partner <slug>', 'the partner');
}

/** `partners brand`: the partner's logo, accent colour and website on the host pages. */
function brandCommand(partners: Command, define: Define): void {
  define(partners, 'brand', {
    summary: "How a partner's hosts see it: logo, accent colour, website (activation pages)",
    examples: [
      "partners brand --partner acme --logo acme.svg --accent '#0B5394' --website https://www.acme.example",
      'partners brand --partner acme --no-logo',
    ],
    action: (options) => {
      const change = brandingChange(options);
      return async (target) => {
        const result = await brandPartner(target, change, Date.now());
        return {
          json: result,
          text: [
            `Branding of "${result.partner}" updated (pages show it within a minute).`,
            `  logo:    ${result.logo ? `${result.logo.content_type}${result.logo.bytes === undefined ? '' : `, ${result.logo.bytes} bytes`}` : 'none'}`,
            `  accent:  ${result.accent_color ?? 'none (the default)'}`,
            `  website: ${result.website ?? 'none'}`,
          ],
        };
      };
    },
  })
    .requiredOption('--partner <slug>', 'the partner')
    .option('--logo <file>', 'a PNG, WebP or SVG logo of at most 24 KB, shown on every host page')
    .option('--no-logo', 'remove the logo')
    .option('--accent <colour>', "the pages' accent as #RRGGBB; white text on it must meet WCAG AA (4.5:1)")
    .option('--no-accent', 'back to the default accent')
    .option('--website <url>', "the partner's https website: error pages offer a way back to it")
    .option('--no-website', 'remove the website');
}

/**
 * The options of `partners brand`: a value sets, `--no-...` removes (null), absent keeps. The
 * accent and website are checked here by the pages' own rules; the logo file when it is read.
 */
function brandingChange(options: Options) {
  const slug = partnerSlug(text(options, 'partner'), '--partner');
  const given = (name: string) =>
    options[name] === false ? null : typeof options[name] === 'string' ? options[name] : undefined;
  const logo = given('logo');
  const accent = given('accent');
  const website = given('website');
  if (logo === undefined && accent === undefined && website === undefined)
    throw new UsageError(
      'Nothing to change: pass --logo, --accent or --website (or --no-logo, --no-accent, --no-website).',
    );
  return {
    slug,
    logoFile:
      typeof logo === 'string' ? inputFile('--logo', logo, 'the path of a PNG, WebP or SVG file') : logo,
    accentColor: typeof accent === 'string' ? checkedBy('--accent', checkAccentColor(accent)) : accent,
    website: typeof website === 'string' ? checkedBy('--website', checkWebsite(website)) : website,
  };
}
