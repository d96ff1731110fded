import { readFile, stat } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { activationClaimProblems } from '../core/domain/activation-token';
import { quoted } from '../core/domain/text';
import type { HostRow, MintedHostLink } from '../operations/link-batch';
import { UsageError } from './command';
import { displayName, emailAddress, pmsHotelId, productList } from './inputs';

/**
 * The hosts file of `links create --file hosts.csv`: one host per row of a CSV file. Every row is
 * checked with the rules of a single link's options before any link is minted; a file with a bad
 * row mints nothing and is a usage mistake (exit 2), each bad row named by its line.
 */
const MAX_HOST_ROWS = 1_000;
const MAX_HOST_FILE_BYTES = 1024 * 1024;
const HOST_COLUMNS = ['email', 'name', 'pms_hotel_id', 'products'] as const;
const REQUIRED_COLUMNS = ['email', 'name', 'pms_hotel_id'] as const;
/** The file's column for each claim of a link: operators never read the token's own field names. */
const COLUMN_OF_CLAIM: Readonly<Record<string, (typeof HOST_COLUMNS)[number]>> = {
  contact_email: 'email',
  contact_name: 'name',
  pms_hotel_id: 'pms_hotel_id',
  requested_product_ids: 'products',
};

/** A mistake in the file itself (its shape or a row): nothing was minted. */
export class HostFileError extends UsageError {
  constructor(readonly problems: readonly string[]) {
    super(
      `Nothing was minted: ${problems.length === 1 ? problems[0] : `\n${problems.map((p) => `  - ${p}`).join('\n')}`}`,
    );
    this.name = 'HostFileError';
  }
}

/** A line break as RFC 4180 has it (CRLF), or as spreadsheets also write it (LF, or CR alone). */
const LINE_BREAKS = ['\r\n', '\n', '\r'];

/** Line breaks before a byte offset of the file: the line a record starts on is one more. */
const lineBreaksBefore = (bytes: Buffer, offset: number) =>
  bytes
    .subarray(0, offset)
    .toString('utf8')
    .match(/\r\n|\n|\r/g)?.length ?? 0;

/** What an operator reads for csv-parse's refusals, by their code. */
const CSV_MISTAKES: Readonly<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed.',
  CSV_INVALID_CLOSING_QUOTE:
    'a quoted field goes on after its closing quote; inside quotes, write a quote as two ("").',
};

/**
 * CSV records (RFC 4180: quoted fields, doubled quotes; CRLF, LF or CR), each with the line it starts
 * on, read by csv-parse. The line comes from where the record starts in the file (the `bytes` of
 * csv-parse's info after the record before it), not from its `lines`, which counts a CRLF inside a
 * quoted field as two lines. A quote inside an unquoted field is a character of it.
 */
export function csvRecords(text: string): { line: number; fields: string[] }[] {
  const bytes = Buffer.from(text, 'utf8');
  const records: { line: number; fields: string[] }[] = [];
  let recordStart = 0;
  try {
    parse(bytes, {
      record_delimiter: LINE_BREAKS,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      on_record: (fields, info) => {
        records.push({ line: lineBreaksBefore(bytes, recordStart) + 1, fields });
        recordStart = info.bytes;
        return null;
      },
    });
  } catch (error) {
    const line = lineBreaksBefore(bytes, recordStart) + 1;
    const code = (error as { code?: string }).code ?? '';
    throw new HostFileError([
      `line ${line}: ${CSV_MISTAKES[code] ?? `not CSV (${(error as Error).message}).`}`,
    ]);
  }
  // Blank lines (a trailing newline, spacing) are not rows.
  return records.filter((record) => record.fields.some((value) => value.trim() !== ''));
}

/**
 * The rows of a hosts file, each checked as `links create` checks one link (the same input rules,
 * then the activation page's own claim rules): every problem of every row is reported, by line.
 * A row without products takes `defaultProducts` (the `--products` option).
 */
export function parseHostFile(
  text: string,
  { defaultProducts, ttlSeconds, nowMs }: { defaultProducts?: string; ttlSeconds: number; nowMs: number },
): HostRow[] {
  const [header, ...records] = csvRecords(text.replace(/^\uFEFF/, ''));
  if (!header)
    throw new HostFileError([
      `the file is empty: its first line names the columns (${HOST_COLUMNS.join(',')}).`,
    ]);
  const columns = header.fields.map((name) => name.trim().toLowerCase());
  const unknown = columns.filter((name) => !(HOST_COLUMNS as readonly string[]).includes(name));
  const missing = REQUIRED_COLUMNS.filter((name) => !columns.includes(name));
  if (unknown.length > 0 || missing.length > 0 || new Set(columns).size !== columns.length)
    throw new HostFileError([
      `line 1 must name the columns ${REQUIRED_COLUMNS.join(', ')} and optionally products, once each; got ${columns.map((name) => quoted(name, 30)).join(',')}.`,
    ]);
  if (records.length === 0) throw new HostFileError(['the file has no rows after its header line.']);
  if (records.length > MAX_HOST_ROWS)
    throw new HostFileError([`the file has ${records.length} rows; at most ${MAX_HOST_ROWS} per file.`]);
  const problems: string[] = [];
  const rows: HostRow[] = [];
  const firstLineOfHotel = new Map<string, number>();
  for (const { line, fields } of records) {
    if (fields.length !== columns.length) {
      problems.push(`line ${line}: ${fields.length} fields where the header has ${columns.length}.`);
      continue;
    }
    const value = (column: string) => fields[columns.indexOf(column)] ?? '';
    const rowProblems: string[] = [];
    const check = <T>(column: string, parse: () => T): T | undefined => {
      try {
        return parse();
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        rowProblems.push(`line ${line}, ${column}: ${error.message}`);
        return undefined;
      }
    };
    const email = check('email', () => emailAddress('email', value('email')));
    const name = check('name', () => displayName('name', value('name')));
    const hotel = check('pms_hotel_id', () => pmsHotelId(value('pms_hotel_id')));
    // Products in a cell: separated by spaces or semicolons, or by commas inside quotes.
    const listed = value('products')
      .trim()
      .replace(/[;\s]+/g, ',');
    const products =
      listed || defaultProducts
        ? check('products', () =>
            productList(listed || (defaultProducts ?? ''), listed ? 'products' : '--products'),
          )
        : undefined;
    if (!listed && !defaultProducts)
      rowProblems.push(
        `line ${line}, products: empty; name them in the row, or for every row with --products.`,
      );
    if (hotel !== undefined) {
      const earlier = firstLineOfHotel.get(hotel);
      if (earlier !== undefined)
        rowProblems.push(
          `line ${line}, pms_hotel_id: "${quoted(hotel, 60)}" is on line ${earlier} too; one link per hotel.`,
        );
      else firstLineOfHotel.set(hotel, line);
    }
    if (email !== undefined && name !== undefined && hotel !== undefined && products !== undefined) {
      // The activation page's own rules, on the claims this row would carry.
      const claimProblems = activationClaimProblems({
        contact_email: email,
        contact_name: name,
        pms_hotel_id: hotel,
        requested_product_ids: products,
        exp: Math.floor(nowMs / 1000) + ttlSeconds,
        nonce: 'A'.repeat(22),
      });
      for (const problem of claimProblems) {
        const column = COLUMN_OF_CLAIM[problem.split(' ')[0] ?? ''];
        rowProblems.push(`line ${line}${column ? `, ${column}` : ''}: the activation page would refuse it.`);
      }
      if (rowProblems.length === 0) rows.push({ line, email, name, pmsHotelId: hotel, products });
    }
    problems.push(...rowProblems);
  }
  if (problems.length > 0) throw new HostFileError(problems);
  return rows;
}

/** Strict: a byte that is not UTF-8 is refused, never replaced by U+FFFD in a host's name. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a hosts file: UTF-8 (a byte order mark is ignored), refused from its size before it is read. */
export async function readHostFile(path: string): Promise<string> {
  const size = await stat(path).then(
    (stats) => (stats.isFile() ? stats.size : -1),
    () => undefined,
  );
  if (size === undefined)
    throw new HostFileError([`cannot read --file "${quoted(path, 200)}": no such file.`]);
  if (size < 0) throw new HostFileError([`--file "${quoted(path, 200)}" is not a file.`]);
  if (size > MAX_HOST_FILE_BYTES)
    throw new HostFileError([
      `--file is ${size} bytes; at most ${MAX_HOST_FILE_BYTES} (${MAX_HOST_ROWS} rows).`,
    ]);
  try {
    return UTF8.decode(await readFile(path));
  } catch {
    throw new HostFileError([
      `--file "${quoted(path, 200)}" is not UTF-8 text: save it as "CSV UTF-8" and try again.`,
    ]);
  }
}

/** What a spreadsheet takes for the start of a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The minted links as CSV (RFC 4180), one row per host in the order of the file. A cell of the
 * operator's input that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, tab or carriage
 * return first) gets a leading apostrophe, as OWASP's CSV-injection advice says: people open the
 * file. Cells we make (URL, time, nonce) are left exactly as the link needs them, so csv-stringify's
 * own `escape_formulas`, which would change a nonce that starts with `-`, stays off. csv-stringify
 * quotes a cell with a comma, a quote or a line break.
 */
export function linksCsv(links: readonly MintedHostLink[]): string {
  const columns = [
    'line',
    'email',
    'name',
    'pms_hotel_id',
    'products',
    'url',
    'expires_at',
    'nonce',
  ] as const;
  const typed = new Set<string>(['email', 'name', 'pms_hotel_id']);
  const cell = (column: string, value: string | number | readonly string[]) => {
    // Products as a hosts file takes them back: comma-separated in one quoted cell.
    const raw = typeof value === 'object' ? value.join(',') : String(value);
    return typed.has(column) && FORMULA_START.test(raw) ? `'${raw}` : raw;
  };
  return stringify(
    links.map((link) => columns.map((column) => cell(column, link[column]))),
    { header: true, columns: [...columns] },
  );
}
