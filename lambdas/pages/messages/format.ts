import type { Language } from '../../../core/domain/languages';

/** Plural forms of a message; `#` stands for the formatted count. `other` is required by every language. */
type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { readonly other: string };

/**
 * Numbers, prices, times, lists and plurals in one language, through `Intl`: no page builds them
 * by concatenation. Times are in UTC and say so: the pages run no script, so they cannot know
 * the host's time zone.
 */
export interface Formats {
  readonly language: Language;
  number(value: number): string;
  /** A guest price from minor units (cents), e.g. `25,00 €` in German. */
  price(minor: number, currency: string): string;
  /** A price as a form field shows it for editing: the language's decimal mark, no grouping, no symbol. */
  decimal(minor: number): string;
  /** A point in time with its date, hour and minute, labelled UTC. */
  dateTime(epochMs: number): string;
  /** `A, B and C` in the language's own way. */
  list(items: readonly string[]): string;
  /** The form of `forms` that the language's plural rules choose for `count`. */
  plural(count: number, forms: PluralForms): string;
  /**
   * A text that is rightly the same in this language as in English ("Wi-Fi", "Check-in"),
   * returned as is and noted as meant: the test of the catalogues refuses any other text equal to
   * the English one as untranslated (`sameAsEnglish`).
   */
  same(text: string): string;
}

const cache = new Map<Language, Formats>();
const meantSame = new Map<Language, Set<string>>();

/** The texts a catalogue built so far marked as rightly the same as in English (`same`). */
export function sameAsEnglish(language: Language): ReadonlySet<string> {
  return meantSame.get(language) ?? new Set();
}

/** Made on first use: `Intl` constructors load locale data, and every catalogue asks at module load. */
function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

export function formatsFor(language: Language): Formats {
  const known = cache.get(language);
  if (known) return known;
  const numbers = lazy(() => new Intl.NumberFormat(language));
  const decimals = lazy(
    () =>
      new Intl.NumberFormat(language, {
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
        useGrouping: false,
      }),
  );
  const times = lazy(
    () =>
      new Intl.DateTimeFormat(language, {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: 'UTC',
        timeZoneName: 'short',
      }),
  );
  const lists = lazy(() => new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }));
  const plurals = lazy(() => new Intl.PluralRules(language));
  const formats: Formats = {
    language,
    number: (value) => numbers().format(value),
    price: (minor, currency) =>
      new Intl.NumberFormat(language, { style: 'currency', currency }).format(minor / 100),
    decimal: (minor) => decimals().format(minor / 100),
    dateTime: (epochMs) => times().format(epochMs),
    list: (items) => lists().format(items),
    plural: (count, forms) =>
      (forms[plurals().select(count)] ?? forms.other).replaceAll('#', numbers().format(count)),
    same: (text) => {
      const noted = meantSame.get(language) ?? new Set();
      meantSame.set(language, noted.add(text));
      return text;
    },
  };
  cache.set(language, formats);
  return formats;
}
