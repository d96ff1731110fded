import type { Command } from 'commander';
import {
  listKeys,
  MAX_GRACE_HOURS,
  pruneUsagePlanKeys,
  replaceKey,
  revokeKey,
  rotateKey,
} from '../../operations/keys';
import { reportLeak } from '../../operations/leaks';
import { requirePartner } from '../../operations/partner-lookup';
import type { Define } from '../command';
import { ADMIN, commandGroup, minuteOf, table, text } from '../command';
import { integerInRange, keyPrefix, keySource, oneLineText, partnerSlug, reportedKey } from '../inputs';
import { checkMail, sendAfterPrinting } from '../mail';

/** A key's state with the times that go with it, as `keys list` shows it. */
function keyStateInWords(key: {
  state: string;
  reveal_expires_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  leak_url: string | null;
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
      return `revoked at ${minuteOf(key.revoked_at ?? '')}${key.leak_url === null ? '' : `: leaked, found at ${key.leak_url}`}`;
    case 'superseded':
      return `superseded at ${minuteOf(key.superseded_at ?? '')} (never revealed)`;
    default:
      return `active${waiting}`;
  }
}

/** `keys ...`: what `operations/keys.ts` does, as commands. */
export function keyCommands(program: Command, define: Define): void {
  const keys = commandGroup(program, 'keys', "Partners' API keys");
  for (const command of [
    rotateCommand,
    revokeCommand,
    reportLeakCommand,
    replaceCommand,
    listCommand,
    pruneCommand,
  ])
    command(keys, define);
}

/** `keys rotate`: a new key, and the reveal link; the current key retires after a grace period. */
function rotateCommand(keys: Command, define: Define): void {
  define(keys, 'rotate', {
    summary:
      "Issue a new key; the partner's current key retires a grace period after the new one is revealed",
    examples: [
      'keys rotate --partner acme',
      'keys rotate --partner acme --grace-hours 72 --widen-to-agreement --json',
    ],
    action: (options) => {
      const slug = partnerSlug(text(options, 'partner'), '--partner');
      const graceHours = integerInRange('--grace-hours', text(options, 'graceHours'), 0, MAX_GRACE_HOURS);
      const mail = options.mail !== false;
      const widenToAgreement = options.widenToAgreement === true;
      return async (target, io) => {
        if (mail) await checkMail(target, (await requirePartner(slug)).contactEmail);
        const rotated = await rotateKey(target, { slug, graceHours, widenToAgreement }, Date.now());
        const { result } = rotated;
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
          ...(mail
            ? { afterPrinting: sendAfterPrinting(target, rotated.mail, io, `keys rotate --partner ${slug}`) }
            : {}),
        };
      };
    },
  })
    .requiredOption('--partner <slug>', 'the partner')
    .option(
      '--grace-hours <hours>',
      `how long the current key keeps working once the new one is revealed (0-${MAX_GRACE_HOURS})`,
      '24',
    )
    .option(
      '--widen-to-agreement',
      "give the new key every scope of the partner's agreement, not only those of the key it replaces",
      false,
    )
    .option('--no-mail', 'print the reveal link without e-mailing it');
}

/** `keys revoke`: a key refused from now on (within the authorizer's cache). */
function revokeCommand(keys: Command, define: Define): void {
  define(keys, 'revoke', {
    summary:
      "Revoke a key at once (refused by the API within 30 s); an unrevealed key's link stops working too",
    examples: ['keys revoke --prefix svc_AbC123xy', 'keys revoke --prefix svc_AbC123xy --json'],
    action: (options) => {
      const prefix = keyPrefix(text(options, 'prefix'));
      return async (target, io) => {
        const result = await revokeKey(target, prefix, Date.now());
        if (result.warning) io.err(`Warning: ${result.warning}`);
        const line = result.changed
          ? `Key ${result.key_prefix} revoked at ${result.revoked_at}.`
          : result.state === 'revoked'
            ? `Key ${result.key_prefix} was already revoked at ${result.revoked_at}; nothing changed.`
            : `Key ${result.key_prefix} was superseded at ${result.superseded_at} before anyone revealed it: it never worked and its link is dead; nothing changed.`;
        return { json: result, text: [line] };
      };
    },
  }).requiredOption('--prefix <prefix>', 'the key prefix, e.g. svc_AbC123xy');
}

/** `keys report-leak`: a leak reported another way than by GitHub, acted on as GitHub's reports are. */
function reportLeakCommand(keys: Command, define: Define): void {
  define(keys, 'report-leak', {
    summary:
      'Report a leaked key: a key in force is revoked at once as leaked, and its partner told where it was found',
    examples: [
      'keys report-leak --key leaked.env --url https://github.com/acme/app/blob/main/.env',
      'keys report-leak --key - --url https://gitlab.com/acme/app --source "GitLab token revocation" --json',
    ],
    action: async (options) => {
      const keyFrom = keySource('--key', text(options, 'key'));
      const url = oneLineText('--url', text(options, 'url'), 2_000);
      const source =
        options.source === undefined
          ? 'reported to our team'
          : oneLineText('--source', text(options, 'source'), 200);
      const token = await reportedKey('--key', keyFrom);
      return async (target, io) => {
        const { result, mail } = await reportLeak(target, { token, url, source }, Date.now());
        const key = result.key_prefix ?? 'the token';
        const line =
          result.label === 'true_positive'
            ? `Key ${key} was in force: revoked as leaked${result.via === 'signed-report' ? ' by the local server, from a report signed as GitHub signs' : ''}. Its partner is told; issue its replacement with: ${ADMIN} keys replace --prefix ${key}`
            : `Key ${key} is not a key in force here (unknown here, or already revoked, superseded or expired): nothing changed.`;
        return {
          json: result,
          text: [line],
          ...(mail
            ? {
                afterPrinting: async () => {
                  try {
                    await target.mailer.send(mail);
                    io.err(`The notice went to ${mail.to}.`);
                  } catch (error) {
                    io.err(
                      `Warning: the notice was NOT e-mailed to ${mail.to} (${(error as Error).message}). Tell the partner yourself.`,
                    );
                  }
                },
              }
            : {}),
        };
      };
    },
  })
    .requiredOption(
      '--key <file>',
      'a file that holds the leaked key (an .env file will do), or - to read it from standard input',
    )
    .requiredOption('--url <where>', 'where it was found')
    .option('--source <text>', 'who found it, or how (e.g. "partner e-mail", "GitLab token revocation")');
}

/** `keys replace`: a revoked key's replacement, by reveal link, as a rotation delivers one. */
function replaceCommand(keys: Command, define: Define): void {
  define(keys, 'replace', {
    summary:
      'Issue the replacement of a revoked (leaked) key, with its scopes, and mail the partner its reveal link',
    examples: ['keys replace --prefix svc_AbC123xy', 'keys replace --prefix svc_AbC123xy --no-mail --json'],
    action: (options) => {
      const prefix = keyPrefix(text(options, 'prefix'));
      const mail = options.mail !== false;
      return async (target, io) => {
        const replaced = await replaceKey(target, prefix, Date.now(), async (partner) => {
          if (mail) await checkMail(target, partner.contactEmail);
        });
        const { result } = replaced;
        return {
          json: result,
          text: [
            `New key ${result.key_prefix} issued for "${result.partner}", replacing revoked ${prefix}.`,
            `  reveal link: ${result.reveal_url}`,
            `  the link works until ${minuteOf(result.reveal_expires_at)}`,
          ],
          ...(mail
            ? {
                afterPrinting: sendAfterPrinting(
                  target,
                  replaced.mail,
                  io,
                  `keys replace --prefix ${prefix}`,
                ),
              }
            : {}),
        };
      };
    },
  })
    .requiredOption('--prefix <prefix>', 'the revoked key, e.g. svc_AbC123xy')
    .option('--no-mail', 'print the reveal link without e-mailing it');
}

/** `keys list`: a partner's keys, their states, scopes and last use. */
function listCommand(keys: Command, define: Define): void {
  define(keys, 'list', {
    summary: "List a partner's keys: state, times, scopes, last use",
    examples: ['keys list --partner acme', 'keys list --partner acme --json'],
    action: (options) => {
      const slug = partnerSlug(text(options, 'partner'), '--partner');
      return async () => {
        const result = await listKeys(slug, Date.now());
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
      };
    },
  }).requiredOption('--partner <slug>', 'the partner');
}

/** `keys prune`: the usage plan rid of the API Gateway keys of keys that no longer work. */
function pruneCommand(keys: Command, define: Define): void {
  define(keys, 'prune', {
    summary:
      'Remove the API Gateway keys of revoked and expired partner keys from the usage plan (deployed stages)',
    examples: ['--stage production keys prune', '--stage sandbox keys prune --json'],
    action: () => async (target) => {
      const result = await pruneUsagePlanKeys(target, Date.now());
      return {
        json: result,
        text: [
          `Removed ${result.removed.length} API Gateway key(s)${result.removed.length > 0 ? `: ${result.removed.join(', ')}` : ''}.`,
        ],
      };
    },
  });
}
