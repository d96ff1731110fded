import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS } from '../../core/domain/rate-limit';

/** The documents partners, operators and engineers read, where the limit is stated in words. */
const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  'test/README.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name))
    .sort(),
];

/** Every way the documents state the limit, with the numbers it states. */
const STATEMENTS: { pattern: RegExp; limit: number; windowSeconds?: number }[] = [
  { pattern: /(\d+) requests (?:per|in any) rolling (\d+) (?:s|seconds)\b/g, limit: 1, windowSeconds: 2 },
  { pattern: /more than (\d+) requests in the last (\d+) s\b/gi, limit: 1, windowSeconds: 2 },
  { pattern: /q=(\d+);w=(\d+)/g, limit: 1, windowSeconds: 2 },
  { pattern: /X-RateLimit-Limit: (\d+)/g, limit: 1 },
];

describe('the rate limit in the documents', () => {
  it.each(DOCUMENTS)('%s states the limit of RATE_LIMIT, or none', (document) => {
    const text = readFileSync(document, 'utf8');
    for (const statement of STATEMENTS) {
      for (const match of text.matchAll(statement.pattern)) {
        expect(Number(match[statement.limit]), `${document}: "${match[0]}"`).toBe(RATE_LIMIT.limit);
        if (statement.windowSeconds !== undefined)
          expect(Number(match[statement.windowSeconds]), `${document}: "${match[0]}"`).toBe(
            RATE_LIMIT_WINDOW_SECONDS,
          );
      }
    }
  });

  it('finds the statements it checks (the patterns match the documents as written)', () => {
    const all = DOCUMENTS.map((document) => readFileSync(document, 'utf8')).join('\n');
    for (const statement of STATEMENTS)
      expect([...all.matchAll(statement.pattern)].length).toBeGreaterThan(0);
  });
});
