import { MAX_PRICE_MINOR } from './knowledge-base';

/**
 * A guest price as a host types it, in minor units, read with the host's language's own number
 * format and the chosen currency's signs (both from Intl, never a list kept here): `12,50 €` and
 * `1.234,56` in German, `€12.50` and `1,234.56` in English, `1 234,56 €` in French. A price written
 * with the other common decimal mark (`19.90` typed in German) is read too, when it cannot be a
 * grouping. What cannot be a price says why: negative, more decimals than the currency has, over
 * the most an offer takes, or not a number.
 */
export type PriceProblem = 'negative' | 'decimals' | 'too-high' | 'unreadable';
export type PriceReading =
  | { readonly ok: true; readonly minor: number }
  | { readonly ok: false; readonly problem: PriceProblem };

/** Decimal digits of every offer currency (`OFFER_CURRENCIES`: all have cents). */
const MINOR_DIGITS = 2;
const SPACE = /[\s\u00a0\u202f]/g;
const MINUS = /^[-\u2212\u2013]/;

function partOf(
  format: Intl.NumberFormat,
  value: number,
  type: Intl.NumberFormatPartTypes,
): string | undefined {
  return format.formatToParts(value).find((part) => part.type === type)?.value;
}

/** The language's decimal mark and grouping separator (none when it groups with a space). */
function separators(language: string): { decimal: string; group?: string } {
  const format = new Intl.NumberFormat(language);
  const decimal = partOf(format, 1.5, 'decimal') ?? '.';
  const group = partOf(format, 12_345_678, 'group')?.replace(SPACE, '');
  return group ? { decimal, group } : { decimal };
}

/** How the currency may be written around the number: its symbols in the language, and its code. */
function currencySigns(language: string, currency: string): string[] {
  const signs = new Set([currency]);
  for (const currencyDisplay of ['symbol', 'narrowSymbol'] as const) {
    const sign = partOf(
      new Intl.NumberFormat(language, { style: 'currency', currency, currencyDisplay }),
      1,
      'currency',
    );
    if (sign) signs.add(sign);
  }
  return [...signs].sort((a, b) => b.length - a.length);
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whole and decimal digits, if `text` is a number written with these marks: thousands grouped by
 * `group` or a space (the French way, and what anyone may type), each group of three digits after
 * a first of one to three that is not a zero (`0.500` is not five hundred), or not grouped at all.
 */
function digitsWith(text: string, decimal: string, group?: string): [string, string] | undefined {
  const separator = group ? `(?:${literal(group)}|[ \\u00a0\\u202f])` : '[ \\u00a0\\u202f]';
  const grouped = `[1-9]\\d{0,2}(?:${separator}\\d{3})+`;
  const match = new RegExp(`^(${grouped}|\\d+)(?:${literal(decimal)}(\\d+))?$`).exec(text);
  return match ? [(match[1] ?? '').replace(/\D/g, ''), match[2] ?? ''] : undefined;
}

export function readPrice(value: string, language: string, currency: string): PriceReading {
  let text = value.trim();
  for (const sign of currencySigns(language, currency)) {
    if (text.startsWith(sign)) text = text.slice(sign.length).trim();
    else if (text.endsWith(sign)) text = text.slice(0, -sign.length).trim();
  }
  const negative = MINUS.test(text);
  text = text.replace(MINUS, '').trim();
  const own = separators(language);
  const other = own.decimal === ',' ? { decimal: '.', group: ',' } : { decimal: ',', group: '.' };
  const digits =
    digitsWith(text, own.decimal, own.group) ??
    // The other mark as a decimal one (`19.90` in German), or the other convention whole.
    digitsWith(text, other.decimal, own.group === other.decimal ? undefined : other.group) ??
    digitsWith(text, other.decimal, other.group);
  if (!digits) return { ok: false, problem: 'unreadable' };
  if (negative) return { ok: false, problem: 'negative' };
  const [whole, decimals] = digits;
  if (decimals.length > MINOR_DIGITS) return { ok: false, problem: 'decimals' };
  const minor = Number(whole) * 10 ** MINOR_DIGITS + Number(decimals.padEnd(MINOR_DIGITS, '0'));
  if (!Number.isSafeInteger(minor) || minor > MAX_PRICE_MINOR) return { ok: false, problem: 'too-high' };
  return { ok: true, minor };
}
