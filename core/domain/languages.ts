/**
 * The languages of the host pages (activation, marketplace, onboarding wizard and their message
 * pages), and how a browser's `Accept-Language` picks one. The partner-facing reveal page and the
 * API stay English (docs/design/host-pages.md).
 */
/**
 * The host languages, each with its name in itself as the language switch shows it; English
 * first (the default, and the catalogue the others are checked against). Adding one here is what
 * makes the compiler ask for the rest: its message catalogue (`BUILDERS` in
 * `lambdas/pages/messages/index.ts`) and the default products' texts (`DEFAULT_CATALOG`).
 */
export const LANGUAGE_NAMES = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  it: 'Italiano',
} as const satisfies Readonly<Record<string, string>>;
export type Language = keyof typeof LANGUAGE_NAMES;
/** The languages in the order of `LANGUAGE_NAMES` (the switch's), as a tuple `z.enum` takes. */
export const LANGUAGES = Object.keys(LANGUAGE_NAMES) as readonly Language[] as readonly [
  Language,
  ...Language[],
];
/** The languages a product's texts are translated into: English is the product's own. */
export type TranslatedLanguage = Exclude<Language, 'en'>;
const DEFAULT_LANGUAGE: Language = 'en';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** A header with more ranges than this is read up to here: no browser sends as many. */
const MAX_RANGES = 32;
const RANGE = /^([a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*|\*)$/;
const QUALITY = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * The best of our languages for an `Accept-Language` header (RFC 9110 12.5.4): ranges by
 * quality, highest first, the header's order among equals; `de-CH` matches `de`; `de;q=0` excludes
 * German (also from `*`); a malformed range or quality is skipped. English when none fits.
 */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return DEFAULT_LANGUAGE;
  const ranges: { tag: string; quality: number; order: number }[] = [];
  for (const [order, part] of header.split(',').slice(0, MAX_RANGES).entries()) {
    const [rawTag = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    if (!RANGE.test(rawTag)) continue;
    let quality = 1;
    const q = parameters.find((parameter) => /^q=/i.test(parameter));
    if (q !== undefined) {
      if (!QUALITY.test(q)) continue;
      quality = Number(q.slice(2));
    }
    ranges.push({ tag: rawTag.toLowerCase(), quality, order });
  }
  const excluded = new Set(
    ranges.filter((range) => range.quality === 0 && !range.tag.includes('-')).map((range) => range.tag),
  );
  const wanted = ranges
    .filter((range) => range.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.order - b.order);
  for (const range of wanted) {
    if (range.tag === '*') {
      const any = LANGUAGES.find((language) => !excluded.has(language));
      if (any) return any;
      continue;
    }
    const language = primary(range.tag);
    if (isLanguage(language) && !excluded.has(language)) return language;
  }
  return DEFAULT_LANGUAGE;
}

const primary = (tag: string) => tag.split('-')[0] ?? tag;
