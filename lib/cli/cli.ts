import { Command, CommanderError, Option } from 'commander';
import { BASE_SCOPES, SCOPES } from '../../core/domain/scopes';
import { quoted, withoutControlCharacters, withUnsafeEscaped } from '../../core/domain/text';
import type { MailReceipt, OutgoingMail } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import type { CliIo } from './command';
import { UsageError } from './command';

/** What a command hands back: the JSON of `--json`, the lines otherwise, and what to do after printing. */
interface CommandOutput {
  readonly json: unknown;
  readonly text: readonly string[];
  /** Runs once the result is printed (mail), so a failure there cannot hide the result. */
  readonly afterPrinting?: () => Promise<void>;
}

interface GlobalOptions {
  readonly stage: string;
  readonly json: boolean;
}

const STAGES = ['local', 'sandbox', 'production'] as const;

async function resolveTarget(stage: string): Promise<OperatorTarget> {
  if (stage === 'local') return (await import('./local-target')).localTarget();
  if (stage === 'sandbox' || stage === 'production')
    return (await import('./deployed-target')).deployedTarget(stage);
  throw new UsageError(`--stage must be local, sandbox or production; got "${stage}".`);
}

function mailNote(receipt: MailReceipt, to: string): string {
  return receipt.delivery === 'outbox'
    ? `Reveal link e-mailed to ${to} (local outbox: ${receipt.path})`
    : `Reveal link e-mailed to ${to} (SES message ${receipt.messageId})`;
}

/**
 * Refuses before anything is issued when the mail could not go out (an unverified sender, an SES
 * sandbox recipient): better no key than a key whose link nobody receives.
 */
async function checkMail(target: OperatorTarget, to: string): Promise<void> {
  const problems = (await target.mailer.check?.(to)) ?? [];
  if (problems.length > 0)
    throw new OperatorError(
      `Nothing was issued: the reveal link could not be e-mailed.\n${problems.map((problem) => `  - ${problem}`).join('\n')}\nFix the mail setup, or pass --no-mail to print the link only.`,
    );
}

/** Sends the reveal link once the result (with the link) is printed; a failure is a warning. */
function sendAfterPrinting(target: OperatorTarget, mail: OutgoingMail, io: CliIo, retry: string) {
  return async () => {
    try {
      io.err(mailNote(await target.mailer.send(mail), mail.to));
    } catch (error) {
      io.err(
        `Warning: the reveal link was NOT e-mailed to ${mail.to} (${(error as Error).message}). The link printed above works: send it to ${mail.to} yourself over a channel you trust (it is as sensitive as the key), or fix the mail setup and run "npm run admin -- ${retry}" for a new link.`,
      );
    }
  };
}

type Action = (
  options: Record<string, unknown>,
  args: string[],
  target: OperatorTarget,
  io: CliIo,
) => Promise<CommandOutput>;

function text(options: Record<string, unknown>, name: string): string {
  const value = options[name];
  return typeof value === 'string' ? value : '';
}

/** An ISO time as operators read it in a table: to the minute, in UTC. */
function minuteOf(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** Rows under a header, in columns as wide as their widest cell. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  return [header, ...rows].map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  '),
  );
}

/** A key's state with the times that go with it, as `keys list` shows it. */
function keyStateInWords(key: {
  state: string;
  reveal_expires_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  superseded_at: string | null;
  retires_after_reveal_of: readonly { key_prefix: string; grace_hours: number }[];
}): string {
  const waiting = key.retires_after_reveal_of
    .map((next) => `, retires ${next.grace_hours} h after ${next.key_prefix} is revealed`)
    .join('');
  switch (key.state) {
    case 'pending':
      return `pending reveal (link works until ${minuteOf(key.reveal_expires_at ?? '')})`;
    case 'retiring':
      return `retiring until ${minuteOf(key.expires_at ?? '')}${waiting}`;
    case 'expired':
      return `expired since ${minuteOf(key.expires_at ?? '')}`;
    case 'revoked':
      return `revoked at ${minuteOf(key.revoked_at ?? '')}`;
    case 'superseded':
      return `superseded at ${minuteOf(key.superseded_at ?? '')} (never revealed)`;
    default:
      return `active${waiting}`;
  }
}

/** The commands, each with its options and `--help`; global options work before or after them. */
function buildProgram(
  io: CliIo,
  run: (
    action: Action,
    options: Record<string, unknown>,
    args: string[],
    globals: GlobalOptions,
  ) => Promise<void>,
): Command {
  const program = new Command('npm run admin --')
    .description(
      'Operator CLI for the partner API. Acts on the local server (npm start) by default; --stage sandbox|production acts on a deployed stage with your AWS credentials.',
    )
    .addOption(new Option('--stage <stage>', 'where to act').choices(STAGES).default('local'))
    .option('--json', 'print one JSON object on stdout', false)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (output) => io.out(output.trimEnd()),
      writeErr: (output) => io.err(output.trimEnd()),
    });
  const define = (parent: Command, name: string, summary: string, action: Action) =>
    parent
      .command(name)
      .description(summary)
      .action(async (...received: unknown[]) => {
        const command = received.at(-1) as Command;
        const args = received.slice(0, -2).map(String);
        await run(action, command.opts(), args, command.optsWithGlobals() as unknown as GlobalOptions);
      });

  const partners = program
    .command('partners')
    .description('Partners: approve, update, brand, list, show, suspend, resume');
  define(
    partners,
    'approve',
    'Create an approved partner with its first API key; prints and e-mails the one-time reveal link',
    async (options, _args, target, io) => {
      const inputs = await import('../operations/inputs');
      const approval = {
        name: inputs.displayName('--name', text(options, 'name')),
        slug: inputs.partnerSlug(text(options, 'slug'), '--slug'),
        email: inputs.emailAddress('--email', text(options, 'email')),
        products: inputs.productList(text(options, 'products')),
        scopes: inputs.scopeList(text(options, 'scopes')),
      };
      if (options.mail !== false) await checkMail(target, approval.email);
      const { approvePartner } = await import('../operations/partners');
      const { result, mail, sampleData } = await approvePartner(target, approval, Date.now());
      if (sampleData)
        io.err(
          `Sandbox sample data: ${sampleData.properties} properties with ${sampleData.reservations} reservations.`,
        );
      if (target.stage === 'local')
        io.err(
          `No hosts yet. For sample hosts, properties and reservations: npm run admin -- sample-data add --partner ${approval.slug}`,
        );
      return {
        json: result,
        text: [
          `Partner "${result.slug}" approved (id ${result.partner_id}).`,
          `  key prefix:  ${result.key_prefix}`,
          `  reveal link: ${result.reveal_url}`,
          '  The link shows the key once. The key itself is never printed or stored.',
        ],
        ...(options.mail === false
          ? {}
          : { afterPrinting: sendAfterPrinting(target, mail, io, `keys rotate --partner ${approval.slug}`) }),
      };
    },
  )
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

  define(
    partners,
    'update',
    "Change a partner's agreement: narrower scopes apply to its keys at once, wider ones to keys issued from now on",
    async (options, _args, target) => {
      const inputs = await import('../operations/inputs');
      const { updateAgreement } = await import('../operations/partners');
      if (options.products === undefined && options.scopes === undefined)
        throw new UsageError('Nothing to change: pass --products, --scopes or both.');
      const result = await updateAgreement(
        target,
        {
          slug: inputs.partnerSlug(text(options, 'partner'), '--partner'),
          products:
            options.products === undefined ? undefined : inputs.productList(text(options, 'products')),
          scopes: options.scopes === undefined ? undefined : inputs.scopeList(text(options, 'scopes')),
        },
        Date.now(),
      );
      const widened = result.after.scopes.filter((scope) => !result.before.scopes.includes(scope));
      return {
        json: result,
        text: [
          `Agreement of "${result.partner}" ${result.unchanged ? 'unchanged: it already was this' : 'updated'}.`,
          `  products: ${result.after.products.join(', ')}`,
          `  scopes:   ${result.after.scopes.join(' ')}`,
          ...result.narrowed_keys.map(
            (key) => `  key ${key.key_prefix} now carries ${key.scopes.join(' ')} (in effect within 30 s)`,
          ),
          ...(widened.length > 0
            ? [
                `  ${widened.join(' ')} reach new keys only: npm run admin -- keys rotate --partner ${result.partner} --widen-to-agreement`,
              ]
            : []),
        ],
      };
    },
  )
    .requiredOption('--partner <slug>', 'the partner')
    .option('--products <ids>', 'the products of the agreement, comma-separated (replaces the list)')
    .option(
      '--scopes <scopes>',
      `scopes granted beyond ${BASE_SCOPES.join(', ')}, comma-separated (replaces the list; "" for none)`,
    );

  define(partners, 'list', 'List partners', async () => {
    const { listAllPartners } = await import('../operations/partners');
    const result = await listAllPartners();
    return {
      json: result,
      text:
        result.partners.length === 0
          ? ['No partners yet. Approve one with: npm run admin -- partners approve --help']
          : result.partners.map(
              (p) =>
                `${String(p.partner_id).padStart(4)}  ${p.slug.padEnd(24)} ${p.name}  [${p.scopes.join(' ')}]  products: ${p.products.join(',')}${p.suspended ? '  SUSPENDED' : ''}`,
            ),
    };
  });

  define(
    partners,
    'show',
    'Show a partner, its hosts, seats and properties',
    async (_options, [slug = ''], _target) => {
      const { showPartner } = await import('../operations/partners');
      const inputs = await import('../operations/inputs');
      const partner = await showPartner(inputs.partnerSlug(slug, '<slug>'));
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
          '  properties:',
          ...partner.properties.map((property) => `    ${String(property.id).padStart(6)}  ${property.name}`),
        ],
      };
    },
  ).argument('<slug>', 'the partner');

  define(
    partners,
    'suspend',
    "Suspend a partner: its keys get 401 partner-suspended (within 30 s), its links and reveals show a 'not available' page; nothing is deleted",
    async (options, _args, target) => {
      const inputs = await import('../operations/inputs');
      const { suspendPartner } = await import('../operations/partners');
      const result = await suspendPartner(
        target,
        {
          slug: inputs.partnerSlug(text(options, 'partner'), '--partner'),
          reason: inputs.displayName('--reason', text(options, 'reason'), 200),
        },
        Date.now(),
      );
      return {
        json: result,
        text: [
          result.changed
            ? `Partner "${result.partner}" suspended at ${result.suspended_at}: its keys are refused within 30 s; links and reveals show "not available". Undo with: npm run admin -- partners resume --partner ${result.partner}`
            : `Partner "${result.partner}" was already suspended at ${result.suspended_at} (${result.reason}); nothing changed.`,
        ],
      };
    },
  )
    .requiredOption('--partner <slug>', 'the partner')
    .requiredOption('--reason <text>', 'why, for the audit trail (one line)');

  define(
    partners,
    'resume',
    "Lift a partner's suspension: its keys, links and reveals work again as they were",
    async (options, _args, target) => {
      const inputs = await import('../operations/inputs');
      const { resumePartner } = await import('../operations/partners');
      const result = await resumePartner(
        target,
        inputs.partnerSlug(text(options, 'partner'), '--partner'),
        Date.now(),
      );
      return {
        json: result,
        text: [
          result.changed
            ? `Partner "${result.partner}" resumed: its keys work again within 30 s.`
            : `Partner "${result.partner}" is not suspended; nothing changed.`,
        ],
      };
    },
  ).requiredOption('--partner <slug>', 'the partner');

  define(
    partners,
    'brand',
    "How a partner's hosts see it: logo, accent colour, website (activation pages)",
    async (options, _args, target) => {
      const inputs = await import('../operations/inputs');
      const { brandPartner } = await import('../operations/branding');
      const optional = (name: string) =>
        options[name] === false ? null : typeof options[name] === 'string' ? options[name] : undefined;
      const result = await brandPartner(
        target,
        {
          slug: inputs.partnerSlug(text(options, 'partner'), '--partner'),
          logoFile: typeof options.logo === 'string' ? inputs.operatorFile(options.logo) : optional('logo'),
          accentColor: optional('accent'),
          website: optional('website'),
        },
        Date.now(),
      );
      return {
        json: result,
        text: [
          `Branding of "${result.partner}" updated (pages show it within a minute).`,
          `  logo:    ${result.logo ? `${result.logo.content_type}${result.logo.bytes === undefined ? '' : `, ${result.logo.bytes} bytes`}` : 'none'}`,
          `  accent:  ${result.accent_color ?? 'none (the default)'}`,
          `  website: ${result.website ?? 'none'}`,
        ],
      };
    },
  )
    .requiredOption('--partner <slug>', 'the partner')
    .option('--logo <file>', 'a PNG, WebP or SVG logo of at most 24 KB, shown on every host page')
    .option('--no-logo', 'remove the logo')
    .option('--accent <colour>', "the pages' accent as #RRGGBB; white text on it must meet WCAG AA (4.5:1)")
    .option('--no-accent', 'back to the default accent')
    .option('--website <url>', "the partner's https website: error pages offer a way back to it")
    .option('--no-website', 'remove the website');

  const keys = program.command('keys').description("Partners' API keys: rotate, revoke, list, prune");
  define(
    keys,
    'rotate',
    "Issue a new key; the partner's current key retires a grace period after the new one is revealed",
    async (options, _args, target, io) => {
      const inputs = await import('../operations/inputs');
      const { rotateKey, MAX_GRACE_HOURS } = await import('../operations/keys');
      const { requirePartner } = await import('../operations/partner-lookup');
      const slug = inputs.partnerSlug(text(options, 'partner'), '--partner');
      const graceHours = inputs.integerInRange(
        '--grace-hours',
        text(options, 'graceHours'),
        0,
        MAX_GRACE_HOURS,
      );
      if (options.mail !== false) await checkMail(target, (await requirePartner(slug)).contactEmail);
      const { result, mail } = await rotateKey(
        target,
        { slug, graceHours, widenToAgreement: options.widenToAgreement === true },
        Date.now(),
      );
      return {
        json: result,
        text: [
          `New key ${result.key_prefix} issued for "${slug}".`,
          `  reveal link: ${result.reveal_url}`,
          `  the link works until ${minuteOf(result.reveal_expires_at)}`,
          ...result.retiring.map(
            (prefix) => `  key ${prefix} keeps working until ${graceHours} h after the new key is revealed`,
          ),
          ...result.superseded.map(
            (prefix) =>
              `  key ${prefix} was never revealed: superseded (its link now says so and shows nothing)`,
          ),
        ],
        ...(options.mail === false
          ? {}
          : { afterPrinting: sendAfterPrinting(target, mail, io, `keys rotate --partner ${slug}`) }),
      };
    },
  )
    .requiredOption('--partner <slug>', 'the partner')
    .option(
      '--grace-hours <hours>',
      'how long the current key keeps working once the new one is revealed',
      '24',
    )
    .option(
      '--widen-to-agreement',
      "give the new key every scope of the partner's agreement, not only those of the key it replaces",
      false,
    )
    .option('--no-mail', 'print the reveal link without e-mailing it');

  define(
    keys,
    'revoke',
    "Revoke a key at once (refused by the API within 30 s); an unrevealed key's link stops working too",
    async (options, _args, target, io) => {
      const inputs = await import('../operations/inputs');
      const prefix = inputs.keyPrefix(text(options, 'prefix'));
      const { revokeKey } = await import('../operations/keys');
      const result = await revokeKey(target, prefix, Date.now());
      if (result.warning) io.err(`Warning: ${result.warning}`);
      const line = result.changed
        ? `Key ${result.key_prefix} revoked at ${result.revoked_at}.`
        : result.state === 'revoked'
          ? `Key ${result.key_prefix} was already revoked at ${result.revoked_at}; nothing changed.`
          : `Key ${result.key_prefix} was superseded at ${result.superseded_at} before anyone revealed it: it never worked and its link is dead; nothing changed.`;
      return { json: result, text: [line] };
    },
  ).requiredOption('--prefix <prefix>', 'the key prefix, e.g. svc_AbC123xy');

  define(keys, 'list', "List a partner's keys: state, times, scopes, last use", async (options) => {
    const { listKeys } = await import('../operations/keys');
    const inputs = await import('../operations/inputs');
    const result = await listKeys(inputs.partnerSlug(text(options, 'partner'), '--partner'), Date.now());
    return {
      json: result,
      text: [
        ...(result.suspended
          ? [`Partner ${result.partner} is suspended: none of its keys work until it is resumed.`]
          : []),
        ...table(
          ['PREFIX', 'STATE', 'SCOPES', 'CREATED', 'LAST USED'],
          result.keys.map((key) => [
            key.key_prefix,
            keyStateInWords(key),
            key.scopes.join(' '),
            minuteOf(key.created_at),
            key.last_used_at ? minuteOf(key.last_used_at) : 'never',
          ]),
        ),
      ],
    };
  }).requiredOption('--partner <slug>', 'the partner');

  define(
    keys,
    'prune',
    'Remove the API Gateway keys of revoked and expired partner keys from the usage plan (deployed stages)',
    async (_options, _args, target) => {
      const { pruneUsagePlanKeys } = await import('../operations/keys');
      const result = await pruneUsagePlanKeys(target, Date.now());
      return {
        json: result,
        text: [
          `Removed ${result.removed.length} API Gateway key(s)${result.removed.length > 0 ? `: ${result.removed.join(', ')}` : ''}.`,
        ],
      };
    },
  );

  const links = program.command('links').description('Host activation links');
  define(
    links,
    'create',
    'Mint a host activation link (operators only); with --file, one per row of a CSV file',
    async (options, _args, target, io) => {
      const inputs = await import('../operations/inputs');
      const { MAX_TOKEN_TTL_SECONDS } = await import('../../core/domain/activation-token');
      const ttlSeconds = inputs.integerInRange(
        '--ttl-seconds',
        text(options, 'ttlSeconds'),
        60,
        MAX_TOKEN_TTL_SECONDS,
      );
      if (typeof options.file === 'string')
        return (await import('./links-file-command')).linksFileCommand(options, ttlSeconds, target, io);
      const missing = ['email', 'name', 'pmsHotelId', 'products'].filter(
        (name) => options[name] === undefined,
      );
      if (missing.length > 0)
        throw new UsageError(
          `links create needs ${missing.map((name) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} (or --file hosts.csv for many hosts).`,
        );
      const { createActivationLink } = await import('../operations/links');
      const link = await createActivationLink(
        target,
        {
          slug: inputs.partnerSlug(text(options, 'partner'), '--partner'),
          email: inputs.emailAddress('--email', text(options, 'email')),
          name: inputs.displayName('--name', text(options, 'name')),
          pmsHotelId: inputs.pmsHotelId(text(options, 'pmsHotelId')),
          products: inputs.productList(text(options, 'products')),
          ttlSeconds,
        },
        Date.now(),
      );
      return {
        json: link,
        text: [
          link.url,
          `  expires ${link.expires_at}; works once. Open it in a browser, or embed it behind a button.`,
        ],
      };
    },
  )
    .requiredOption('--partner <slug>', 'the partner')
    .option('--email <email>', "the host's contact e-mail")
    .option('--name <name>', "the host's contact or business name")
    .option('--pms-hotel-id <id>', "the property's id in the partner's system")
    .option('--products <ids>', 'products to offer, comma-separated (with --file: for rows without products)')
    .option('--ttl-seconds <seconds>', 'lifetime of the link(s)', '3600')
    .option(
      '--file <path>',
      'CSV of hosts: email,name,pms_hotel_id[,products]; one link per row, all rows checked first',
    )
    .option(
      '--out <path>',
      'with --file: write the links there (.json for JSON, else CSV) instead of printing them',
    );

  define(
    links,
    'list',
    "A partner's activation links, newest first, until a day after each expires: used, open or expired",
    async (options) => {
      const inputs = await import('../operations/inputs');
      const { listLinks } = await import('../operations/links');
      const result = await listLinks(inputs.partnerSlug(text(options, 'partner'), '--partner'), Date.now());
      return {
        json: result,
        text:
          result.links.length === 0
            ? [`No activation links of ${result.partner} in the last day or still open.`]
            : table(
                ['NONCE', 'HOST', 'PMS HOTEL', 'PRODUCTS', 'EXPIRES', 'STATE'],
                result.links.map((link) => [
                  link.nonce,
                  link.host_email,
                  link.pms_hotel_id,
                  link.products.join(','),
                  minuteOf(link.expires_at),
                  link.used_at ? `used ${minuteOf(link.used_at)}` : link.state,
                ]),
              ),
      };
    },
  ).requiredOption('--partner <slug>', 'the partner');

  const sampleData = program
    .command('sample-data')
    .description('Sample data for a partner (local and sandbox)');
  define(
    sampleData,
    'add',
    'Give a partner sample hosts, properties and a year of reservations (local and sandbox only)',
    async (options, _args, target) => {
      const { addSampleData } = await import('../operations/partners');
      const inputs = await import('../operations/inputs');
      const added = await addSampleData(
        target,
        inputs.partnerSlug(text(options, 'partner'), '--partner'),
        Date.now(),
      );
      return {
        json: added,
        text: [
          `Partner "${added.partner}" sponsors ${added.properties} sample properties with ${added.reservations} reservations.`,
        ],
      };
    },
  ).requiredOption('--partner <slug>', 'the partner');

  const catalog = program.command('catalog').description('The product catalog: list, add, edit');
  define(catalog, 'list', 'List the products partners can offer hosts', async () => {
    const { listProducts } = await import('../operations/catalog');
    const result = await listProducts();
    return {
      json: result,
      text: result.products.map(
        (product) =>
          `${product.id.padEnd(16)} ${product.name}${product.goes_live ? '  (goes live with the wizard)' : ''}`,
      ),
    };
  });
  const productOptions = (command: Command, required: boolean) => {
    const option = (flags: string, description: string) =>
      required ? command.requiredOption(flags, description) : command.option(flags, description);
    option('--name <name>', 'the product as hosts see it');
    option('--description <text>', 'one sentence on what it does for a host');
    return command
      .option('--goes-live <label>', "the wizard's last button when the host chose this product")
      .option('--live-message <text>', 'what the wizard says once this product is live');
  };
  const productInput = async (options: Record<string, unknown>) => {
    const inputs = await import('../operations/inputs');
    const goesLive = options.goesLive;
    if ((typeof goesLive === 'string') !== (typeof options.liveMessage === 'string'))
      throw new UsageError('--goes-live and --live-message go together.');
    return {
      name: typeof options.name === 'string' ? inputs.displayName('--name', options.name, 80) : undefined,
      description:
        typeof options.description === 'string'
          ? inputs.displayName('--description', options.description, 300)
          : undefined,
      goesLive:
        typeof goesLive === 'string'
          ? {
              submitLabel: inputs.displayName('--goes-live', goesLive, 60),
              liveMessage: inputs.displayName('--live-message', text(options, 'liveMessage'), 200),
            }
          : options.goesLive === false
            ? null
            : undefined,
    };
  };
  productOptions(
    define(catalog, 'add', 'Add a product to the catalog', async (options, [id = ''], target) => {
      const inputs = await import('../operations/inputs');
      const { addCatalogProduct } = await import('../operations/catalog');
      const [productId = ''] = inputs.productList(id, '<id>');
      const { name = '', description = '', goesLive } = await productInput(options);
      const product = await addCatalogProduct(
        target,
        { id: productId, name, description, ...(goesLive ? { goesLive } : {}) },
        Date.now(),
      );
      return { json: product, text: [`Product "${product.id}" added: ${product.name}.`] };
    }).argument('<id>', 'the product id: lower-case letters, digits and hyphens'),
    true,
  );
  productOptions(
    define(catalog, 'edit', "Change a product's texts", async (options, [id = ''], target) => {
      const inputs = await import('../operations/inputs');
      const { editCatalogProduct, translateCatalogProduct } = await import('../operations/catalog');
      const [productId = ''] = inputs.productList(id, '<id>');
      const edit = await productInput(options);
      const language = typeof options.lang === 'string' ? options.lang : 'en';
      if (language !== 'en') {
        if (edit.goesLive === null)
          throw new UsageError('--no-goes-live applies to the product, not to one language.');
        const { isLanguage } = await import('../../core/domain/languages');
        if (!isLanguage(language) || language === 'en')
          throw new UsageError(`--lang must be one of de, fr, es, it; got "${quoted(language, 20)}".`);
        const { goesLive, ...texts } = edit;
        const product = await translateCatalogProduct(
          target,
          productId,
          language,
          { ...texts, ...(goesLive ? { goesLive } : {}) },
          Date.now(),
        );
        return { json: product, text: [`Product "${product.id}" translated (${language}).`] };
      }
      const product = await editCatalogProduct(target, productId, edit, Date.now());
      return { json: product, text: [`Product "${product.id}" updated: ${product.name}.`] };
    }).argument('<id>', 'the product id'),
    false,
  )
    .option('--no-goes-live', 'the product no longer goes live with the wizard')
    .option(
      '--lang <language>',
      "the texts are this language's translation (de, fr, es, it); hosts fall back to English",
    );

  const audit = program.command('audit').description('The audit trail: who did what, and when');
  define(
    audit,
    'list',
    'Audit events, newest first (operator actions, reveals, activations)',
    async (options) => {
      const inputs = await import('../operations/inputs');
      const { isAuditAction, AUDIT_ACTIONS } = await import('../../lambdas/data/audit');
      const action = typeof options.action === 'string' ? options.action : undefined;
      if (action !== undefined && !isAuditAction(action))
        throw new UsageError(
          `--action must be one of ${AUDIT_ACTIONS.join(', ')}; got "${quoted(action, 60)}".`,
        );
      const { listAudit } = await import('../operations/audit');
      const result = await listAudit({
        partner:
          typeof options.partner === 'string' ? inputs.partnerSlug(options.partner, '--partner') : undefined,
        action,
        since: typeof options.since === 'string' ? inputs.isoTime('--since', options.since) : undefined,
        limit: inputs.integerInRange('--limit', text(options, 'limit'), 1, 1_000),
      });
      return {
        json: result,
        text:
          result.events.length === 0
            ? ['No events.']
            : result.events.map((event) =>
                [
                  event.at,
                  event.action.padEnd(21),
                  (event.partner ?? '-').padEnd(20),
                  event.actor,
                  ...['key_prefix', 'host_id', 'property_id', 'link_nonce', 'request_id'].flatMap((field) =>
                    field in event ? [`${field}=${String(event[field as keyof typeof event])}`] : [],
                  ),
                ].join('  '),
              ),
      };
    },
  )
    .option('--partner <slug>', "only this partner's events")
    .option('--action <action>', 'only this action, e.g. key.revealed')
    .option('--since <time>', 'only events at or after this ISO 8601 date or time (UTC)')
    .option('--limit <count>', 'at most this many events (1-1000)', '50');

  const reservations = program.command('reservations').description("Properties' reservations");
  define(
    reservations,
    'import',
    "Import a property's reservations from a JSON array (idempotent by id)",
    async (options, _args, target) => {
      const inputs = await import('../operations/inputs');
      const propertyId = inputs.integerInRange(
        '--property',
        text(options, 'property'),
        1,
        Number.MAX_SAFE_INTEGER,
      );
      const units =
        typeof options.units === 'string'
          ? inputs.integerInRange('--units', options.units, 1, 10_000)
          : undefined;
      const { importReservationFile } = await import('../operations/reservations');
      const result = await importReservationFile(
        target,
        { propertyId, file: inputs.operatorFile(text(options, 'file')), units },
        Date.now(),
      );
      return {
        json: result,
        text: [`Imported ${result.imported} reservation(s); ${result.unchanged} unchanged.`],
      };
    },
  )
    .requiredOption('--property <id>', 'the property id (from partners show)')
    .requiredOption('--file <path>', 'a JSON array of reservations')
    .option('--units <count>', 'rentable units of the property');

  define(
    program,
    'traffic',
    "A partner's requests per UTC day and key, by HTTP status, from the API access log (401s carry no key: not counted)",
    async (options, _args, target, io) =>
      (await import('./traffic-command')).trafficCommand(options, target, io),
  )
    .requiredOption('--partner <slug>', 'the partner')
    .option(
      '--days <n>',
      "UTC days to report, today included: 1 to 90 (on a deployed stage each query is billed per GB of access log scanned, every partner's, a whole day per day asked for)",
      '7',
    );

  return program;
}

/**
 * What reaches the terminal, on either stream: names from the table, values from a file or an
 * argument, a parser's message quoting its input. No control character gets through, so nothing
 * can move the cursor, rewrite a line or reorder text; line breaks between lines stay.
 */
function terminalSafe(terminal: CliIo): CliIo {
  const clean = (text: string) =>
    text
      .split('\n')
      .map((line) => withoutControlCharacters(line, '?'))
      .join('\n');
  return { out: (text) => terminal.out(clean(text)), err: (text) => terminal.err(clean(text)) };
}

/**
 * Runs one CLI invocation and returns its exit code: 0, 1 for a refusal, 2 for a usage mistake.
 * `target` replaces how `--stage` is resolved (tests give a target with a mailer of their own).
 */
export async function runCli(
  argv: readonly string[],
  terminal: CliIo,
  { target: targetOf = resolveTarget }: { target?: (stage: string) => Promise<OperatorTarget> } = {},
): Promise<number> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let exitCode = 0;
  const io = terminalSafe(terminal);
  const program = buildProgram(io, async (action, options, args, globals) => {
    try {
      const target = await targetOf(globals.stage);
      const { json, text: lines, afterPrinting } = await action(options, args, target, io);
      // JSON keeps its data: what the terminal must not see is written as a \u escape.
      io.out(globals.json ? withUnsafeEscaped(JSON.stringify(json)) : lines.join('\n'));
      await afterPrinting?.();
    } catch (error) {
      if (error instanceof UsageError) {
        io.err(error.message);
        exitCode = 2;
      } else if (error instanceof OperatorError) {
        io.err(`Error: ${error.message}`);
        exitCode = 1;
      } else {
        const reason =
          (error as Error).name === 'CredentialsProviderError'
            ? ' (no AWS credentials: configure them, e.g. AWS_PROFILE)'
            : '';
        // Unexpected (an AWS service refusing, a network failure): its name and a bounded message,
        // never a stack unless asked for.
        const { name, message } = error as Error;
        io.err(`Error: ${name && name !== 'Error' ? `${name}: ` : ''}${quoted(message, 300)}${reason}`);
        io.err('The command stopped there. Run it again with DEBUG=1 for details.');
        if (process.env.DEBUG) io.err(String((error as Error).stack));
        exitCode = 1;
      }
    }
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    // A group without a subcommand (`npm run admin -- keys`) shows its help.
    return exitCode;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help and a bare group print help and exit 0; every other parse error is a usage mistake.
    return ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code) ? 0 : 2;
  }
}
