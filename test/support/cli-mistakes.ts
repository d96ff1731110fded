import { MAX_TOKEN_TTL_SECONDS } from '../../core/domain/activation-token';
import { LANGUAGES } from '../../core/domain/languages';
import { MAX_GRACE_HOURS } from '../../operations/keys';
import { MAX_TRAFFIC_DAYS } from '../../operations/traffic';

/**
 * Every kind of mistake, per command, with the exit code and the message an operator sees, run
 * through the CLI's own parsing against the suite's local server:
 *   2  a usage mistake: one "Usage error:" line with the reason, then where help is; nothing on stdout;
 *   1  a refusal by the data (an unknown partner, a slug taken): one "Error:" message.
 */
type Case = readonly [what: string, argv: readonly string[], code: 1 | 2, message: string | RegExp];

const NO_PARTNER = 'No partner with slug "no-such-partner"';
const APPROVE = ['partners', 'approve', '--name', 'Acme PMS', '--email', 'api@acme.example'] as const;
const LINK = [
  'links',
  'create',
  '--partner',
  'demo-pms',
  '--email',
  'host@exit.example',
  '--name',
  'Exit Inn',
  '--pms-hotel-id',
  'EXIT-1',
  '--products',
  'assistant',
] as const;

/** The commands and each kind of mistake they can be given. */
export const COMMANDS: Record<string, readonly Case[]> = {
  'partners approve': [
    [
      'a missing option',
      [...APPROVE, '--slug', 'acme-x'],
      2,
      "required option '--products <ids>' not specified",
    ],
    [
      'a malformed slug',
      [...APPROVE, '--slug', 'Acme X', '--products', 'assistant'],
      2,
      '--slug "Acme X" is not a partner slug',
    ],
    [
      'a malformed e-mail',
      [
        'partners',
        'approve',
        '--name',
        'A',
        '--slug',
        'acme-x',
        '--email',
        'api(at)acme',
        '--products',
        'assistant',
      ],
      2,
      '--email "api(at)acme" is not an e-mail address',
    ],
    [
      'a malformed product id',
      [...APPROVE, '--slug', 'acme-x', '--products', 'Assistant!'],
      2,
      'Not a product id: Assistant!',
    ],
    [
      'an unknown scope',
      [...APPROVE, '--slug', 'acme-x', '--products', 'assistant', '--scopes', 'admin:write'],
      2,
      'Unknown scope(s): admin:write',
    ],
    [
      'an unknown option',
      [...APPROVE, '--slug', 'acme-x', '--products', 'assistant', '--colour'],
      2,
      "unknown option '--colour'",
    ],
    [
      'a taken slug (refused)',
      [...APPROVE, '--slug', 'demo-pms', '--products', 'assistant', '--no-mail'],
      1,
      'slug "demo-pms" is taken',
    ],
  ],
  'partners update': [
    [
      'nothing to change',
      ['partners', 'update', '--partner', 'demo-pms'],
      2,
      'Nothing to change: pass --products, --scopes or both.',
    ],
    [
      'an unknown scope',
      ['partners', 'update', '--partner', 'demo-pms', '--scopes', 'all'],
      2,
      'Unknown scope(s): all',
    ],
    [
      'an unknown partner (refused)',
      ['partners', 'update', '--partner', 'no-such-partner', '--scopes', ''],
      1,
      NO_PARTNER,
    ],
  ],
  'partners list': [
    ['an argument too many', ['partners', 'list', 'demo-pms'], 2, 'too many arguments'],
    ['an unknown option', ['partners', 'list', '--all'], 2, "unknown option '--all'"],
  ],
  'partners show': [
    ['a missing argument', ['partners', 'show'], 2, "missing required argument 'slug'"],
    ['a malformed slug', ['partners', 'show', 'Demo_PMS'], 2, '<slug> "Demo_PMS" is not a partner slug'],
    ['an unknown partner (refused)', ['partners', 'show', 'no-such-partner'], 1, NO_PARTNER],
    [
      'a mistyped partner (refused, the nearest named)',
      ['partners', 'show', 'demo-pmz'],
      1,
      'No partner with slug "demo-pmz". Did you mean "demo-pms"?',
    ],
  ],
  'partners suspend': [
    [
      'a missing option',
      ['partners', 'suspend', '--partner', 'demo-pms'],
      2,
      "required option '--reason <text>' not specified",
    ],
    [
      'an empty reason',
      ['partners', 'suspend', '--partner', 'demo-pms', '--reason', ' '],
      2,
      '--reason must be 1-200 characters on one line.',
    ],
    [
      'an unknown partner (refused)',
      ['partners', 'suspend', '--partner', 'no-such-partner', '--reason', 'Test'],
      1,
      NO_PARTNER,
    ],
  ],
  'partners resume': [
    [
      'a malformed slug',
      ['partners', 'resume', '--partner', 'a b'],
      2,
      '--partner "a b" is not a partner slug',
    ],
    ['an unknown partner (refused)', ['partners', 'resume', '--partner', 'no-such-partner'], 1, NO_PARTNER],
  ],
  'partners brand': [
    [
      'nothing to change',
      ['partners', 'brand', '--partner', 'demo-pms'],
      2,
      'Nothing to change: pass --logo, --accent or --website',
    ],
    [
      'a malformed colour',
      ['partners', 'brand', '--partner', 'demo-pms', '--accent', 'blue'],
      2,
      '--accent must be a colour as #RRGGBB',
    ],
    [
      'a website without https',
      ['partners', 'brand', '--partner', 'demo-pms', '--website', 'http://a.example'],
      2,
      '--website must start with https://',
    ],
    [
      'an unknown partner (refused)',
      ['partners', 'brand', '--partner', 'no-such-partner', '--accent', '#0b5394'],
      1,
      NO_PARTNER,
    ],
  ],
  'keys rotate': [
    ['a missing option', ['keys', 'rotate'], 2, "required option '--partner <slug>' not specified"],
    [
      'a grace period out of range',
      ['keys', 'rotate', '--partner', 'demo-pms', '--grace-hours', String(MAX_GRACE_HOURS + 1)],
      2,
      `--grace-hours must be an integer from 0 to ${MAX_GRACE_HOURS}; got "${MAX_GRACE_HOURS + 1}".`,
    ],
    [
      'an option without its value',
      ['keys', 'rotate', '--partner'],
      2,
      "option '--partner <slug>' argument missing",
    ],
    ['an unknown partner (refused)', ['keys', 'rotate', '--partner', 'no-such-partner'], 1, NO_PARTNER],
  ],
  'keys revoke': [
    ['a malformed prefix', ['keys', 'revoke', '--prefix', 'abc'], 2, '--prefix "abc" is not a key prefix'],
    [
      'a whole key pasted as the prefix, never shown back',
      ['keys', 'revoke', '--prefix', 'svc_AbC123xyTHEREST0fTheKeyIsASecretNeverToBePrinted'],
      2,
      /^(?![\s\S]*THEREST)[\s\S]*--prefix "svc_AbC123xy…" is not a key prefix.*give svc_AbC123xy; never paste a whole key/,
    ],
    [
      'an unknown key (refused)',
      ['keys', 'revoke', '--prefix', 'svc_AbC123xy'],
      1,
      'No key with prefix svc_AbC123xy.',
    ],
  ],
  'keys report-leak': [
    [
      'a missing --url',
      ['keys', 'report-leak', '--key', 'svc_x'],
      2,
      "required option '--url <where>' not specified",
    ],
    [
      'a whole key typed on the command line, never shown back',
      [
        'keys',
        'report-leak',
        '--key',
        'svc_AbC123xyTHEREST0fTheKeyIsASecretNeverToBePrinted',
        '--url',
        'https://a',
      ],
      2,
      /^(?![\s\S]*THEREST)[\s\S]*--key takes a file that holds the key, or - to read it from standard input.*svc_AbC123xy… was not used/,
    ],
    [
      'a file with no key in it',
      ['keys', 'report-leak', '--key', 'tsconfig.json', '--url', 'https://github.com/a/b'],
      2,
      /--key: ".*tsconfig\.json" holds no partner key/,
    ],
    [
      'a key file that does not exist',
      ['keys', 'report-leak', '--key', 'no-such-leak.txt', '--url', 'https://github.com/a/b'],
      2,
      /--key: there is no file ".*no-such-leak\.txt"/,
    ],
    [
      'a --url of two lines',
      ['keys', 'report-leak', '--key', 'tsconfig.json', '--url', 'https://a\nhttps://b'],
      2,
      '--url must be one line of 1 to 2000 characters',
    ],
  ],
  'keys replace': [
    ['a malformed prefix', ['keys', 'replace', '--prefix', 'abc'], 2, '--prefix "abc" is not a key prefix'],
    [
      'an unknown key (refused)',
      ['keys', 'replace', '--prefix', 'svc_AbC123xy'],
      1,
      'No key with prefix svc_AbC123xy.',
    ],
  ],
  'keys list': [
    ['a missing option', ['keys', 'list'], 2, "required option '--partner <slug>' not specified"],
    ['an unknown partner (refused)', ['keys', 'list', '--partner', 'no-such-partner'], 1, NO_PARTNER],
  ],
  'keys prune': [['an unknown option', ['keys', 'prune', '--all'], 2, "unknown option '--all'"]],
  'links create': [
    [
      'a lifetime out of range',
      [...LINK, '--ttl-seconds', '10'],
      2,
      `--ttl-seconds must be an integer from 60 to ${MAX_TOKEN_TTL_SECONDS}; got "10".`,
    ],
    [
      'options missing without --file',
      ['links', 'create', '--partner', 'demo-pms', '--email', 'a@b.example'],
      2,
      'links create needs --name, --pms-hotel-id, --products (or --file hosts.csv for many hosts).',
    ],
    [
      '--out without --file',
      [...LINK, '--out', 'links.csv'],
      2,
      '--out goes with --file: one link is printed.',
    ],
    [
      'a malformed e-mail',
      [...LINK.slice(0, 4), '--email', 'x', ...LINK.slice(6)],
      2,
      '--email "x" is not an e-mail address',
    ],
    [
      'a hosts file that is not there',
      ['links', 'create', '--partner', 'demo-pms', '--file', 'no-such.csv'],
      2,
      'no such file',
    ],
    ['an argument too many', ['links', 'create', 'x', ...LINK.slice(2)], 2, 'too many arguments'],
    [
      'an unknown partner (refused)',
      [...LINK.slice(0, 3), 'no-such-partner', ...LINK.slice(4)],
      1,
      NO_PARTNER,
    ],
  ],
  'links list': [
    ['a malformed slug', ['links', 'list', '--partner', 'A'], 2, '--partner "A" is not a partner slug'],
    ['an unknown partner (refused)', ['links', 'list', '--partner', 'no-such-partner'], 1, NO_PARTNER],
  ],
  'sample-data add': [
    ['a missing option', ['sample-data', 'add'], 2, "required option '--partner <slug>' not specified"],
    ['an unknown partner (refused)', ['sample-data', 'add', '--partner', 'no-such-partner'], 1, NO_PARTNER],
  ],
  'catalog list': [['an argument too many', ['catalog', 'list', 'spa'], 2, 'too many arguments']],
  'catalog add': [
    [
      'a missing option',
      ['catalog', 'add', 'spa', '--name', 'Spa'],
      2,
      "required option '--description <text>' not specified",
    ],
    [
      'a malformed id',
      ['catalog', 'add', 'Spa!', '--name', 'Spa', '--description', 'D'],
      2,
      'Not a product id: Spa!',
    ],
    [
      'half of a pair of options',
      ['catalog', 'add', 'spa', '--name', 'Spa', '--description', 'D', '--goes-live', 'Go'],
      2,
      '--goes-live and --live-message go together.',
    ],
    [
      'a product that exists (refused)',
      ['catalog', 'add', 'assistant', '--name', 'A', '--description', 'D'],
      1,
      'already has a product "assistant"',
    ],
  ],
  'catalog edit': [
    [
      'nothing to change',
      ['catalog', 'edit', 'assistant'],
      2,
      'Nothing to change: pass --name, --description',
    ],
    [
      'an unknown language',
      ['catalog', 'edit', 'assistant', '--lang', 'xx', '--name', 'A'],
      2,
      `--lang must be one of ${LANGUAGES.filter((language) => language !== 'en').join(', ')}; got "xx".`,
    ],
    ['nothing to translate', ['catalog', 'edit', 'assistant', '--lang', 'de'], 2, 'Nothing to translate'],
    [
      'an unknown product (refused)',
      ['catalog', 'edit', 'no-such-product', '--name', 'A'],
      1,
      'No product "no-such-product"',
    ],
    [
      'a mistyped product (refused, the nearest named)',
      ['catalog', 'edit', 'upsels', '--name', 'A'],
      1,
      'No product "upsels" in the catalog. Did you mean "upsells"?',
    ],
  ],
  'audit list': [
    [
      'an unknown action',
      ['audit', 'list', '--action', 'key.stolen'],
      2,
      '--action must be one of partner.approved',
    ],
    ['a malformed time', ['audit', 'list', '--since', 'yesterday'], 2, '--since must be an ISO 8601 date'],
    [
      'a limit out of range',
      ['audit', 'list', '--limit', '0'],
      2,
      '--limit must be an integer from 1 to 1000; got "0".',
    ],
    ['an unknown partner (refused)', ['audit', 'list', '--partner', 'no-such-partner'], 1, NO_PARTNER],
  ],
  'reservations import': [
    [
      'a missing option',
      ['reservations', 'import', '--property', '2'],
      2,
      "required option '--file <path>' not specified",
    ],
    [
      'a malformed property id',
      ['reservations', 'import', '--property', 'two', '--file', 'r.json'],
      2,
      '--property must be an integer from 1',
    ],
    [
      'units out of range',
      ['reservations', 'import', '--property', '2', '--file', 'r.json', '--units', '0'],
      2,
      '--units must be an integer from 1 to 10000',
    ],
    [
      'an unknown property (refused)',
      ['reservations', 'import', '--property', '99999999', '--file', '<reservations>'],
      1,
      'No property 99999999.',
    ],
  ],
  'events publish': [
    ['a missing option', ['events', 'publish'], 2, "required option '--file <path>' not specified"],
    ['a file that is not there', ['events', 'publish', '--file', 'no-such.jsonl'], 2, 'there is no file'],
    ['an unknown option', ['events', 'publish', '--file', 'e.jsonl', '--all'], 2, "unknown option '--all'"],
  ],
  'events failed': [['an argument too many', ['events', 'failed', 'all'], 2, 'too many arguments']],
  'events redrive': [['an unknown option', ['events', 'redrive', '--force'], 2, "unknown option '--force'"]],
  'events sent': [
    [
      'a malformed time',
      ['events', 'sent', '--since', 'yesterday'],
      2,
      '--since must be an ISO 8601 date or date-time with a zone, like 2026-11-01 or 2026-11-01T09:30:00Z; got "yesterday".',
    ],
    [
      'a day that does not exist',
      ['events', 'sent', '--since', '2026-02-30'],
      2,
      '--since must be an ISO 8601 date or date-time with a zone',
    ],
    [
      'a malformed host id',
      ['events', 'sent', '--host', 'abc'],
      2,
      `--host must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}; got "abc".`,
    ],
    [
      'a host id out of range',
      ['events', 'sent', '--host', '0'],
      2,
      `--host must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}; got "0".`,
    ],
    ['an argument too many', ['events', 'sent', 'all'], 2, 'too many arguments'],
  ],
  'events resend': [
    [
      'no events named',
      ['events', 'resend'],
      2,
      'events resend needs --host <id>, --since <time>, or both: which events to send again.',
    ],
    [
      'a malformed host id',
      ['events', 'resend', '--host', 'x1'],
      2,
      `--host must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}; got "x1".`,
    ],
    ['a malformed time', ['events', 'resend', '--since', 'now'], 2, '--since must be an ISO 8601 date'],
  ],
  traffic: [
    ['a missing option', ['traffic'], 2, "required option '--partner <slug>' not specified"],
    [
      'days out of range',
      ['traffic', '--partner', 'demo-pms', '--days', '0'],
      2,
      `--days must be an integer from 1 to ${MAX_TRAFFIC_DAYS}; got "0".`,
    ],
    [
      'days not a number',
      ['traffic', '--partner', 'demo-pms', '--days', 'week'],
      2,
      '--days must be an integer',
    ],
    ['an unknown partner (refused)', ['traffic', '--partner', 'no-such-partner'], 1, NO_PARTNER],
  ],
  'data migrate': [['an argument too many', ['data', 'migrate', 'now'], 2, 'too many arguments']],
  'data migrations': [['an argument too many', ['data', 'migrations', 'all'], 2, 'too many arguments']],
  '(any command)': [
    ['an unknown command', ['partner', 'list'], 2, "unknown command 'partner'"],
    ['an unknown command of a group', ['keys', 'delete'], 2, "unknown command 'delete'"],
    [
      'an unknown stage',
      ['--stage', 'staging', 'partners', 'list'],
      2,
      "option '--stage <stage>' argument 'staging' is invalid",
    ],
    ['an unknown global option', ['--verbose', 'partners', 'list'], 2, "unknown option '--verbose'"],
  ],
};
