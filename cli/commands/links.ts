import { open, rm } from 'node:fs/promises';
import type { Command } from 'commander';
import { MAX_TOKEN_TTL_SECONDS } from '../../core/domain/activation-token';
import { createActivationLinks } from '../../operations/link-batch';
import { createActivationLink, listLinks } from '../../operations/links';
import { OperatorError } from '../../operations/operator-error';
import type { CommandRun, Define, Options } from '../command';
import { ADMIN, commandGroup, minuteOf, table, text, UsageError } from '../command';
import { linksCsv, parseHostFile, readHostFile } from '../host-file';
import {
  displayName,
  emailAddress,
  integerInRange,
  newOutputFile,
  operatorFile,
  partnerSlug,
  pmsHotelId,
  productList,
} from '../inputs';

const SINGLE_LINK_OPTIONS = ['email', 'name', 'pmsHotelId', 'products'] as const;
const flagOf = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** `links ...`: what `operations/links.ts` and `link-batch.ts` do, as commands. */
export function linkCommands(program: Command, define: Define): void {
  const links = commandGroup(program, 'links', 'Host activation links');
  for (const command of [createCommand, listCommand]) command(links, define);
}

/** `links create`: one host activation link, or one per row of a hosts file. */
function createCommand(links: Command, define: Define): void {
  define(links, 'create', {
    summary: 'Mint a host activation link (operators only); with --file, one per row of a CSV file',
    examples: [
      'links create --partner acme --email host@casa-verde.example --name "Casa Verde" --pms-hotel-id PMS-42 --products assistant',
      'links create --partner acme --file hosts.csv --out links.csv',
      'links create --partner acme --file hosts.csv --products assistant --json',
    ],
    action: async (options) => {
      const slug = partnerSlug(text(options, 'partner'), '--partner');
      const ttlSeconds = integerInRange(
        '--ttl-seconds',
        text(options, 'ttlSeconds'),
        60,
        MAX_TOKEN_TTL_SECONDS,
      );
      if (typeof options.file === 'string') return linksFromFile(options, slug, ttlSeconds);
      const missing = SINGLE_LINK_OPTIONS.filter((name) => options[name] === undefined);
      if (missing.length > 0)
        throw new UsageError(
          `links create needs ${missing.map(flagOf).join(', ')} (or --file hosts.csv for many hosts).`,
        );
      if (options.out !== undefined) throw new UsageError('--out goes with --file: one link is printed.');
      const request = {
        slug,
        email: emailAddress('--email', text(options, 'email')),
        name: displayName('--name', text(options, 'name')),
        pmsHotelId: pmsHotelId(text(options, 'pmsHotelId')),
        products: productList(text(options, 'products')),
        ttlSeconds,
        again: options.again === true,
      };
      return async (target) => {
        const link = await createActivationLink(target, request, Date.now());
        return {
          json: link,
          text: [
            link.url,
            `  expires ${link.expires_at}; works once. Open it in a browser, or embed it behind a button.`,
          ],
        };
      };
    },
  })
    .requiredOption('--partner <slug>', 'the partner')
    .option('--email <email>', "the host's contact e-mail (required without --file)")
    .option('--name <name>', "the host's contact or business name (required without --file)")
    .option('--pms-hotel-id <id>', "the property's id in the partner's system (required without --file)")
    .option(
      '--products <ids>',
      'products to offer, comma-separated (required without --file; with it, for rows without products)',
    )
    .option('--ttl-seconds <seconds>', `lifetime of the link(s), 60-${MAX_TOKEN_TTL_SECONDS}`, '3600')
    .option(
      '--file <path>',
      'CSV of hosts: email,name,pms_hotel_id[,products]; one link per row, all rows checked first',
    )
    .option(
      '--out <path>',
      'with --file: write the links there (.json for JSON, else CSV) instead of printing them',
    )
    .option('--again', 'mint even for a property that already has an open link from the partner');
}

/** `links list`: a partner's activation links and their states. */
function listCommand(links: Command, define: Define): void {
  define(links, 'list', {
    summary:
      "A partner's activation links, newest first, until a day after each expires: used, open or expired",
    examples: ['links list --partner acme', 'links list --partner acme --json'],
    action: (options) => {
      const slug = partnerSlug(text(options, 'partner'), '--partner');
      return async () => {
        const result = await listLinks(slug, Date.now());
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
                    link.state === 'used' && link.used_at
                      ? `used ${minuteOf(link.used_at)}`
                      : link.state === 'withdrawn' && link.withdrawn_at
                        ? `withdrawn ${minuteOf(link.withdrawn_at)} (host erased)`
                        : link.state,
                  ]),
                ),
        };
      };
    },
  }).requiredOption('--partner <slug>', 'the partner');
}

/**
 * `links create --partner SLUG --file hosts.csv [--out links.csv|links.json]`: every row is
 * checked first (a malformed row is a usage mistake naming its line), then one link is minted per
 * row (refused as a whole, nothing minted, when the partner or its agreement refuses a row). The
 * links go to `--out` (a new file, readable by its owner only: each link onboards a host) or to stdout.
 */
async function linksFromFile(options: Options, slug: string, ttlSeconds: number): Promise<CommandRun> {
  const single = ['email', 'name', 'pmsHotelId'].filter((name) => options[name] !== undefined);
  if (single.length > 0)
    throw new UsageError(
      '--file takes the hosts from the file: leave out --email, --name and --pms-hotel-id.',
    );
  const out = typeof options.out === 'string' ? newOutputFile('--out', options.out) : undefined;
  const nowMs = Date.now();
  const rows = parseHostFile(await readHostFile(operatorFile(text(options, 'file'))), {
    ...(typeof options.products === 'string' ? { defaultProducts: options.products } : {}),
    ttlSeconds,
    nowMs,
  });
  return async (target, io) => {
    // Created before anything is minted, so links are never minted for a file that cannot be written.
    const file = out === undefined ? undefined : await open(out, 'wx', 0o600);
    try {
      const links = await createActivationLinks(
        target,
        { slug, rows, ttlSeconds, again: options.again === true },
        nowMs,
      );
      const result = { partner: slug, links };
      const expiry = `expire ${links[0]?.expires_at ?? ''}; each works once`;
      if (file === undefined) {
        io.err(`${links.length} link(s) for ${slug}; they ${expiry}.`);
        return { json: result, text: linksCsv(links).trimEnd().split('\n') };
      }
      await file.writeFile(out?.endsWith('.json') ? `${JSON.stringify(result, null, 2)}\n` : linksCsv(links));
      return {
        json: { ...result, file: out },
        text: [`Wrote ${links.length} link(s) for ${slug} to ${out}; they ${expiry}.`],
      };
    } catch (error) {
      // A refusal comes before any link is minted; any other failure may come after some were.
      if (!(error instanceof OperatorError))
        io.err(
          `Some links may have been minted before this failure: "${ADMIN} links list --partner ${slug}" lists them.`,
        );
      if (out !== undefined && file !== undefined) {
        await file.close();
        await rm(out, { force: true });
      }
      throw error;
    } finally {
      await file?.close().catch(() => undefined);
    }
  };
}
