import { createReadStream, lstatSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { API_KEY_SCANNER_PATTERN, isKeyPrefix, parseApiKey } from '../core/domain/api-key';
import type { ProductId } from '../core/domain/catalog';
import { isProductId, MAX_PRODUCTS } from '../core/domain/catalog';
import { isEmailAddress } from '../core/domain/email-address';
import { isPartnerSlug } from '../core/domain/partner-slug';
import { MAX_PMS_HOTEL_ID_LENGTH, PMS_HOTEL_ID_PATTERN } from '../core/domain/properties';
import type { Scope } from '../core/domain/scopes';
import { isScope, SCOPES } from '../core/domain/scopes';
import { isOneLine, quoted } from '../core/domain/text';
import { UsageError } from './command';

/**
 * A file an operator named, as their shell meant it: `npm run` starts the CLI in the package's
 * folder, so a relative path is resolved from where npm was started (`INIT_CWD`).
 */
export function operatorFile(value: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), value);
}

/**
 * A file the command will read: it must exist and be a regular file (a folder fails the read, a
 * pipe would block it forever). Its size and content are the operation's to judge.
 */
export function inputFile(flag: string, value: string, what: string, maxBytes?: number): string {
  const path = operatorFile(value);
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined)
    throw new UsageError(`${flag}: there is no file "${quoted(path, 200)}". Give ${what}.`);
  if (!stats.isFile()) throw new UsageError(`${flag}: "${quoted(path, 200)}" is not a file. Give ${what}.`);
  // Told from its size, before a byte is read (a file of gigabytes would not fit in memory).
  if (maxBytes !== undefined && stats.size > maxBytes)
    throw new UsageError(
      `${flag}: "${quoted(path, 200)}" is larger than ${maxBytes >= 1024 * 1024 ? `${maxBytes / 1024 / 1024} MB; split it into several files` : `${maxBytes} bytes`}.`,
    );
  return path;
}

/**
 * A file the command will create: a new name (never overwritten, and never a link, even one that
 * points nowhere) in a folder that exists.
 */
export function newOutputFile(flag: string, value: string): string {
  const path = operatorFile(value);
  if (lstatSync(path, { throwIfNoEntry: false }) !== undefined)
    throw new UsageError(`${flag} "${quoted(path, 200)}" exists: name a new file (it is never overwritten).`);
  if (!statSync(dirname(path), { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${flag}: there is no folder "${quoted(dirname(path), 200)}" to write into.`);
  return path;
}

/*
 * What operators type, checked before anything is contacted: each mistake is a `UsageError`
 * (exit 2) that names the option and says what to fix.
 */

export function partnerSlug(value: string, flag: string): string {
  const slug = value.trim();
  if (!isPartnerSlug(slug)) {
    throw new UsageError(
      `${flag} "${quoted(value, 60)}" is not a partner slug: 1-40 lower-case letters, digits and hyphens, not starting or ending with a hyphen.`,
    );
  }
  return slug;
}

export function emailAddress(flag: string, value: string): string {
  const email = value.trim();
  // One line of text too: no control or bidi character reaches a mail header or a terminal.
  if (!isEmailAddress(email) || !isOneLine(email)) {
    throw new UsageError(`${flag} "${quoted(value, 60)}" is not an e-mail address.`);
  }
  return email;
}

export function displayName(flag: string, value: string, maxLength = 120): string {
  const name = value.trim();
  if (name.length === 0 || name.length > maxLength || !isOneLine(name)) {
    throw new UsageError(`${flag} must be 1-${maxLength} characters on one line.`);
  }
  return name;
}

/** Comma-separated names, trimmed, without repeats. */
function nameList(value: string): string[] {
  return [
    ...new Set(
      value
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
}

/**
 * Product ids by their format; whether each is in the catalog is checked against the table
 * (`requireCatalogProducts` in `operations/catalog.ts`).
 */
export function productList(value: string, flag = '--products'): ProductId[] {
  const requested = nameList(value);
  const malformed = requested.filter((product) => !isProductId(product));
  if (requested.length === 0) throw new UsageError(`${flag} is empty: name at least one product.`);
  if (malformed.length > 0) {
    throw new UsageError(
      `${malformed.length === 1 ? 'Not a product id' : 'Not product ids'}: ${malformed.map((id) => quoted(id, 40)).join(', ')}. A product id is lower-case letters, digits and hyphens (see: npm run admin -- catalog list).`,
    );
  }
  if (requested.length > MAX_PRODUCTS)
    throw new UsageError(`${flag} names ${requested.length} products; at most ${MAX_PRODUCTS}.`);
  return requested;
}

/** Scopes granted by an agreement, beyond the base scopes every agreement has. */
export function scopeList(value: string): Scope[] {
  const requested = nameList(value);
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown scope(s): ${unknown.map((scope) => quoted(scope, 40)).join(', ')}. Scopes: ${SCOPES.join(', ')}.`,
    );
  }
  return requested.filter(isScope);
}

export function keyPrefix(value: string): string {
  const prefix = value.trim();
  if (!isKeyPrefix(prefix)) {
    // A whole key pasted by mistake is a secret: only its first 12 characters are ever shown back.
    const shown =
      prefix.startsWith('svc_') && prefix.length > 12 ? `${prefix.slice(0, 12)}…` : quoted(value, 60);
    throw new UsageError(
      `--prefix "${shown}" is not a key prefix: it is the first 12 characters of a key, like svc_AbC123xy${shown.endsWith('…') ? ` (give ${prefix.slice(0, 12)}; never paste a whole key)` : ''}.`,
    );
  }
  return prefix;
}

/** At most this much of a file or standard input is read for one reported key. */
const MAX_KEY_INPUT_BYTES = 4_096;

/**
 * Where a reported key is read from: a file that holds it, or `-` for standard input. Never the
 * key itself: on a command line it stays in the shell's history and npm's logs, so one typed there
 * is refused, and named back by its prefix only.
 */
export function keySource(flag: string, value: string): { readonly file: string } | { readonly stdin: true } {
  if (value.trim() === '-') return { stdin: true };
  const typed = /svc_[0-9A-Za-z]{8}[0-9A-Za-z]{12,}/i.exec(value);
  if (typed)
    throw new UsageError(
      `${flag} takes a file that holds the key, or - to read it from standard input, never the key itself: on a command line it stays in your shell's history and npm's logs (${typed[0].slice(0, 12)}… was not used).`,
    );
  return {
    file: inputFile(
      flag,
      value,
      'a file that holds the leaked key, or - for standard input',
      MAX_KEY_INPUT_BYTES,
    ),
  };
}

/**
 * The one key in what the source holds (a bare key, an .env line, a snippet of code): found as
 * scanners find it (`API_KEY_SCANNER_PATTERN`). None, or more than one, is a usage mistake.
 */
export async function reportedKey(
  flag: string,
  source: { readonly file: string } | { readonly stdin: true },
): Promise<string> {
  const where = 'file' in source ? `"${quoted(source.file, 200)}"` : 'standard input';
  const bytes: Buffer[] = [];
  let size = 0;
  for await (const chunk of 'file' in source ? createReadStream(source.file) : process.stdin) {
    bytes.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > MAX_KEY_INPUT_BYTES)
      throw new UsageError(
        `${flag}: ${where} holds more than ${MAX_KEY_INPUT_BYTES} bytes; give the key alone.`,
      );
  }
  const found = [
    ...new Set(
      [...Buffer.concat(bytes).toString('utf8').matchAll(new RegExp(API_KEY_SCANNER_PATTERN, 'g'))].map(
        (match) => match[0],
      ),
    ),
  ];
  if (found.length === 0)
    throw new UsageError(`${flag}: ${where} holds no partner key (svc_ followed by 46 letters and digits).`);
  if (found.length > 1)
    throw new UsageError(
      `${flag}: ${where} holds ${found.length} keys (${found.map((key) => `${key.slice(0, 12)}…`).join(', ')}); report them one at a time.`,
    );
  const [key = ''] = found;
  if (!parseApiKey(key).ok)
    throw new UsageError(
      `${flag}: ${key.slice(0, 12)}… in ${where} is not a whole key: its checksum does not match.`,
    );
  return key;
}

/** One line of text an operator gives (a URL, a source), at most `maxLength` characters. */
export function oneLineText(flag: string, value: string, maxLength: number): string {
  const text = value.trim();
  if (text === '' || text.length > maxLength || !isOneLine(text))
    throw new UsageError(
      `${flag} must be one line of 1 to ${maxLength} characters; got "${quoted(value, 60)}".`,
    );
  return text;
}

export function integerInRange(flag: string, value: string, minimum: number, maximum: number): number {
  const number = /^-?[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < minimum || number > maximum) {
    throw new UsageError(
      `${flag} must be an integer from ${minimum} to ${maximum}; got "${quoted(value, 60)}".`,
    );
  }
  return number;
}

/** The partner's own identifier of the property: printable ASCII without spaces (`PMS_HOTEL_ID_PATTERN`). */
export function pmsHotelId(value: string): string {
  const id = value.trim();
  if (!new RegExp(PMS_HOTEL_ID_PATTERN).test(id)) {
    throw new UsageError(
      `--pms-hotel-id "${quoted(value, 60)}" is not valid: use 1-${MAX_PMS_HOTEL_ID_LENGTH} printable characters without spaces.`,
    );
  }
  return id;
}

/** An ISO 8601 date (`2026-11-01`, midnight UTC) or date-time with a zone, as the stored format. */
export function isoTime(flag: string, value: string): string {
  const text = value.trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.exec(text);
  const ms = match ? Date.parse(text) : Number.NaN;
  // Date.parse rolls an impossible day over (2026-02-30 is 2 March): the day must exist as written.
  const day = match
    ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
    : undefined;
  const exists =
    day !== undefined &&
    day.getUTCFullYear() === Number(match?.[1]) &&
    day.getUTCMonth() === Number(match?.[2]) - 1 &&
    day.getUTCDate() === Number(match?.[3]);
  if (Number.isNaN(ms) || !exists) {
    throw new UsageError(
      `${flag} must be an ISO 8601 date or date-time with a zone, like 2026-11-01 or 2026-11-01T09:30:00Z; got "${quoted(value, 60)}".`,
    );
  }
  return new Date(ms).toISOString();
}

/** A value checked by a rule of the domain (an accent colour, a website): its problem, named by the option. */
export function checkedBy(
  flag: string,
  result: { ok: true; value: string } | { ok: false; problem: string },
): string {
  if (!result.ok) throw new UsageError(`${flag} ${result.problem}`);
  return result.value;
}
