import type { ParseArgsConfig } from 'node:util';
import { parseArgs } from 'node:util';
import type { MailReceipt } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';

/** Where the CLI writes: results to `out`, problems to `err`. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  readonly summary: string;
  readonly usage: string;
  readonly options: Options;
  /** Returns the JSON result and the human-readable lines. */
  run(
    values: Values,
    positionals: string[],
    target: OperatorTarget,
    io: CliIo,
  ): Promise<{ json: unknown; text: string[] }>;
}

const GLOBAL_OPTIONS: Options = {
  stage: { type: 'string', default: 'local' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

function required(values: Values, name: string, usage: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`--${name} is required.\n\nUsage: ${usage}`);
  return value;
}

class UsageError extends Error {}

function mailNote(mail: MailReceipt, to: string): string {
  return mail.delivery === 'outbox'
    ? `Reveal link e-mailed to ${to} (local outbox: ${mail.path})`
    : `Reveal link e-mailed to ${to} (SES message ${mail.messageId})`;
}

const commands: Record<string, Command> = {
  'partners approve': {
    summary: 'Create an approved partner with its first API key; e-mails the one-time reveal link',
    usage: 'partners approve --name NAME --slug SLUG --email EMAIL --products a,b [--revenue] [--json]',
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      email: { type: 'string' },
      products: { type: 'string' },
      revenue: { type: 'boolean', default: false },
    },
    async run(values, _positionals, target, io) {
      const usage = commands['partners approve']?.usage ?? '';
      const inputs = await import('../operations/inputs');
      const approval = {
        name: inputs.displayName('--name', required(values, 'name', usage)),
        slug: inputs.partnerSlug(required(values, 'slug', usage)),
        email: inputs.emailAddress('--email', required(values, 'email', usage)),
        products: inputs.productList(required(values, 'products', usage)),
        revenueAccess: values.revenue === true,
      };
      const { approvePartner } = await import('../operations/partners');
      const { result, mail, sampleData } = await approvePartner(target, approval, Date.now());
      io.err(mailNote(mail, approval.email));
      if (sampleData)
        io.err(
          `Sandbox sample data: ${sampleData.properties} properties with ${sampleData.reservations} reservations.`,
        );
      if (target.stage === 'local') {
        io.err(
          `No hosts yet. For sample hosts, properties and reservations: npm run admin -- sample-data add --partner ${approval.slug}`,
        );
      }
      return {
        json: result,
        text: [
          `Partner "${result.slug}" approved (id ${result.partner_id}).`,
          `  key prefix:  ${result.key_prefix}`,
          `  reveal link: ${result.reveal_url}`,
          '  The link shows the key once. The key itself is never printed or stored.',
        ],
      };
    },
  },
  'partners list': {
    summary: 'List partners',
    usage: 'partners list [--json]',
    options: {},
    async run() {
      const { listAllPartners } = await import('../operations/partners');
      const result = await listAllPartners();
      return {
        json: result,
        text:
          result.partners.length === 0
            ? ['No partners yet. Approve one with: npm run admin -- partners approve --help']
            : result.partners.map(
                (p) =>
                  `${String(p.partner_id).padStart(4)}  ${p.slug.padEnd(24)} ${p.name}  [${p.scopes.join(' ')}]  products: ${p.products.join(',')}`,
              ),
      };
    },
  },
  'partners show': {
    summary: 'Show a partner, its hosts, seats and properties',
    usage: 'partners show SLUG [--json]',
    options: {},
    async run(_values, positionals) {
      const slug = positionals[0];
      if (!slug) throw new UsageError('Give the partner slug.\n\nUsage: partners show SLUG');
      const { showPartner } = await import('../operations/partners');
      const partner = await showPartner(slug);
      return {
        json: partner,
        text: [
          `${partner.name} (${partner.slug}, id ${partner.partner_id})`,
          `  contact:  ${partner.contact_email}`,
          `  scopes:   ${partner.scopes.join(' ')}`,
          `  products: ${partner.products.join(', ')}`,
          `  hosts: ${partner.sponsored_hosts}, active seats: ${partner.active_seats}`,
          '  properties:',
          ...partner.properties.map((property) => `    ${String(property.id).padStart(6)}  ${property.name}`),
        ],
      };
    },
  },
  'keys rotate': {
    summary: "Issue a new key; the partner's current key expires after a grace period",
    usage: 'keys rotate --partner SLUG [--grace-hours H] [--json]',
    options: { partner: { type: 'string' }, 'grace-hours': { type: 'string', default: '24' } },
    async run(values, _positionals, target, io) {
      const usage = commands['keys rotate']?.usage ?? '';
      const inputs = await import('../operations/inputs');
      const { rotateKey, MAX_GRACE_HOURS } = await import('../operations/keys');
      const slug = required(values, 'partner', usage);
      const graceHours = inputs.integerInRange(
        '--grace-hours',
        String(values['grace-hours']),
        0,
        MAX_GRACE_HOURS,
      );
      const { result, mail } = await rotateKey(target, { slug, graceHours }, Date.now());
      io.err(mailNote(mail, `the contact of ${slug}`));
      return {
        json: result,
        text: [
          `New key ${result.key_prefix} issued for "${slug}".`,
          `  reveal link: ${result.reveal_url}`,
          result.previous_key_prefix
            ? `  previous key ${result.previous_key_prefix} keeps working until ${result.previous_key_expires_at}`
            : '  (there was no active key to retire)',
        ],
      };
    },
  },
  'keys revoke': {
    summary: 'Revoke a key at once (refused by the API within 30 s)',
    usage: 'keys revoke --prefix svc_XXXXXXXX [--json]',
    options: { prefix: { type: 'string' } },
    async run(values, _positionals, target) {
      const inputs = await import('../operations/inputs');
      const prefix = inputs.keyPrefix(required(values, 'prefix', commands['keys revoke']?.usage ?? ''));
      const { revokeKey } = await import('../operations/keys');
      const result = await revokeKey(target, prefix, Date.now());
      return { json: result, text: [`Key ${result.key_prefix} revoked at ${result.revoked_at}.`] };
    },
  },
  'keys list': {
    summary: "List a partner's keys (prefixes, state, last use)",
    usage: 'keys list --partner SLUG [--json]',
    options: { partner: { type: 'string' } },
    async run(values) {
      const { listKeys } = await import('../operations/keys');
      const result = await listKeys(
        required(values, 'partner', commands['keys list']?.usage ?? ''),
        Date.now(),
      );
      return {
        json: result,
        text: result.keys.map(
          (key) =>
            `${key.key_prefix}  ${key.state.padEnd(8)} created ${key.created_at}${key.expires_at ? `  expires ${key.expires_at}` : ''}${key.revoked_at ? `  revoked ${key.revoked_at}` : ''}  last used ${key.last_used_at ?? 'never'}`,
        ),
      };
    },
  },
  'links create': {
    summary: 'Mint a one-hour host activation link (operators only)',
    usage:
      'links create --partner SLUG --email E --name N --pms-hotel-id X --products a,b [--ttl-seconds T] [--json]',
    options: {
      partner: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      'pms-hotel-id': { type: 'string' },
      products: { type: 'string' },
      'ttl-seconds': { type: 'string', default: '3600' },
    },
    async run(values, _positionals, target) {
      const usage = commands['links create']?.usage ?? '';
      const inputs = await import('../operations/inputs');
      const { createActivationLink } = await import('../operations/links');
      const link = await createActivationLink(
        target,
        {
          slug: required(values, 'partner', usage),
          email: inputs.emailAddress('--email', required(values, 'email', usage)),
          name: inputs.displayName('--name', required(values, 'name', usage)),
          pmsHotelId: inputs.pmsHotelId(required(values, 'pms-hotel-id', usage)),
          products: inputs.productList(required(values, 'products', usage)),
          ttlSeconds: inputs.integerInRange(
            '--ttl-seconds',
            String(values['ttl-seconds']),
            60,
            7 * 24 * 3_600,
          ),
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
  },
  'sample-data add': {
    summary: 'Give a partner sample hosts, properties and a year of reservations (local and sandbox only)',
    usage: 'sample-data add --partner SLUG [--json]',
    options: { partner: { type: 'string' } },
    async run(values, _positionals, target) {
      const { addSampleData } = await import('../operations/partners');
      const added = await addSampleData(
        target,
        required(values, 'partner', commands['sample-data add']?.usage ?? ''),
        Date.now(),
      );
      return {
        json: added,
        text: [
          `Partner "${added.partner}" sponsors ${added.properties} sample properties with ${added.reservations} reservations.`,
        ],
      };
    },
  },
  'reservations import': {
    summary: "Import a property's reservations from a JSON array (idempotent by id)",
    usage: 'reservations import --property ID --file F.json [--units N] [--json]',
    options: { property: { type: 'string' }, file: { type: 'string' }, units: { type: 'string' } },
    async run(values) {
      const usage = commands['reservations import']?.usage ?? '';
      const inputs = await import('../operations/inputs');
      const propertyId = inputs.integerInRange(
        '--property',
        required(values, 'property', usage),
        1,
        Number.MAX_SAFE_INTEGER,
      );
      const units =
        typeof values.units === 'string'
          ? inputs.integerInRange('--units', values.units, 1, 10_000)
          : undefined;
      const { importReservationFile } = await import('../operations/reservations');
      const result = await importReservationFile(
        { propertyId, file: required(values, 'file', usage), units },
        Date.now(),
      );
      return {
        json: result,
        text: [`Imported ${result.imported} reservation(s); ${result.unchanged} unchanged.`],
      };
    },
  },
};

function overview(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    'Operator CLI for the partner API.',
    '',
    'Usage: npm run admin -- <command> [options] [--stage local|sandbox|production] [--json]',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    '',
    'By default commands act on the local server (npm start). --stage sandbox|production acts on a',
    'deployed stage with your AWS credentials. --json prints one JSON object on stdout.',
  ].join('\n');
}

async function resolveTarget(stage: string): Promise<OperatorTarget> {
  if (stage === 'local') return (await import('./local-target')).localTarget();
  if (stage === 'sandbox' || stage === 'production')
    return (await import('./deployed-target')).deployedTarget(stage);
  throw new UsageError(`--stage must be local, sandbox or production; got "${stage}".`);
}

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const words = argv
    .filter((arg) => !arg.startsWith('-'))
    .slice(0, 2)
    .join(' ');
  const name = Object.keys(commands).find(
    (candidate) => words === candidate || words.startsWith(`${candidate} `),
  );
  const command = name ? commands[name] : undefined;
  if (!command || !name) {
    const wantsHelp = argv.length === 0 || argv.includes('--help') || argv.includes('-h');
    if (wantsHelp) {
      io.out(overview());
      return 0;
    }
    io.err(`Unknown command "${words || argv.join(' ')}".\n\n${overview()}`);
    return 2;
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    }) as {
      values: Values;
      positionals: string[];
    };
  } catch (error) {
    io.err(`${(error as Error).message}\n\nUsage: npm run admin -- ${command.usage}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(`${command.summary}.\n\nUsage: npm run admin -- ${command.usage}`);
    return 0;
  }
  const positionals = parsed.positionals.slice(name.split(' ').length);
  try {
    const target = await resolveTarget(String(parsed.values.stage));
    const { json, text } = await command.run(parsed.values, positionals, target, io);
    io.out(parsed.values.json ? JSON.stringify(json) : text.join('\n'));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(error.message);
      return 2;
    }
    if (error instanceof OperatorError) {
      io.err(`Error: ${error.message}`);
      return 1;
    }
    const reason =
      (error as Error).name === 'CredentialsProviderError'
        ? ' (no AWS credentials: configure them, e.g. AWS_PROFILE)'
        : '';
    io.err(`Error: ${(error as Error).message}${reason}`);
    if (process.env.DEBUG) io.err(String((error as Error).stack));
    return 1;
  }
}
