import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { LANGUAGES } from '../core/domain/languages';
import { partnerApiRoutes } from '../core/routes';

/**
 * `npm run lint:counts` (part of `npm run check`): a number written next to a counted noun in the
 * repository's prose (docs, README, CONTRIBUTING, comments, test names, help texts, bench labels)
 * must be the count of its table: the partner routes, the host languages. Prose that names no
 * count ("each route", "every host language") never goes stale and is preferred; a count that is
 * written must be right, so adding a route or a language fails this check wherever the old count
 * is still written.
 */

/** What prose counts, the table it is the count of, and the words that may stand between. */
const COUNTED = [
  {
    what: 'partner API routes',
    source: 'partnerApiRoutes in core/routes.ts',
    count: partnerApiRoutes.length,
    // "the N routes", "N endpoints", "N GETs", "N partner API routes", "N keyed GET routes"…
    nouns: ['routes', 'endpoints', 'GETs'],
    qualifiers: ['API', 'partner', 'keyed', 'GET', 'data', 'read-only', 'HTTP', 'REST', 'documented', 'live'],
    instead: '"each route", "every partner route"',
  },
  {
    what: 'host languages',
    source: 'LANGUAGES in core/domain/languages.ts',
    count: LANGUAGES.length,
    // "all N languages", "the N host languages", "N message catalogues" (one per language)…
    nouns: ['languages', 'catalogues', 'locales', 'translations'],
    qualifiers: ['host', 'page', 'UI', 'supported', 'message', 'our', 'its', 'their'],
    instead: '"every host language", "each language"',
  },
] as const;

const NUMBER_WORDS = [
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
] as const;
const numberOf = (word: string) =>
  /^\d+$/.test(word) ? Number(word) : NUMBER_WORDS.indexOf(word.toLowerCase() as never) + 1;
/** A number word in any case of its first letter ("Three", "three"), or digits. */
const NUMBER = `(${NUMBER_WORDS.map((word) => `[${word[0]}${word[0]?.toUpperCase()}]${word.slice(1)}`).join('|')}|\\d+)`;

/** Files whose prose is read: tracked or new (not ignored) text, generated files aside. */
const EXTENSIONS = /\.(md|ts|tsx|ya?ml)$/;
const GENERATED = /^(clients\/typescript\/src\/generated\/|openapi\/partner-api\.json$)/;
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => EXTENSIONS.test(file) && !GENERATED.test(file));

const wrong: string[] = [];
for (const file of files) {
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const counted of COUNTED) {
    const pattern = new RegExp(
      `\\b${NUMBER}\\s+((?:(?:${counted.qualifiers.join('|')})\\s+){0,3}(?:${counted.nouns.join('|')}))\\b`,
      'g',
    );
    for (const match of text.matchAll(pattern)) {
      const [phrase, number = ''] = match;
      if (numberOf(number) === counted.count) continue;
      const line = text.slice(0, match.index).split('\n').length;
      wrong.push(
        `${file}:${line}: "${phrase.replace(/\s+/g, ' ')}" says ${numberOf(number)}; ${counted.source} has ${counted.count} ${counted.what}. Write it without a count (${counted.instead}), or with the table's.`,
      );
    }
  }
}

if (wrong.length > 0) {
  console.error(wrong.join('\n'));
  process.exit(1);
}
console.log(
  `${files.length} files name no wrong count of ${COUNTED.map((counted) => `${counted.what} (${counted.count})`).join(', ')}.`,
);
