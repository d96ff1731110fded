import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesFilterPattern, parseFilterPattern, wildcardMatch } from '../../emulator/log-filter-pattern';

const matches = (pattern: string, event: unknown) =>
  matchesFilterPattern(
    parseFilterPattern(pattern),
    typeof event === 'string' ? event : JSON.stringify(event),
  );

/** An access-log line of an authorizer failure, in the fields of the stage's format. */
const authorizerFailure = {
  requestId: 'f3c1',
  httpMethod: 'GET',
  integrationStatus: '-',
  responseType: 'AUTHORIZER_FAILURE',
  status: 503,
};

describe('CloudWatch Logs JSON filter patterns (the local endpoint)', () => {
  it('reads the patterns the stack renders with FilterPattern, and decides them on access-log lines', () => {
    const serverErrors = FilterPattern.numberValue('$.status', '>=', 500).logPatternString;
    const authorizer = FilterPattern.any(
      FilterPattern.stringValue('$.responseType', '=', 'AUTHORIZER_FAILURE'),
      FilterPattern.stringValue('$.responseType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
    ).logPatternString;
    const limiter = FilterPattern.all(
      FilterPattern.numberValue('$.status', '=', 429),
      FilterPattern.stringValue('$.integrationStatus', '=', '200'),
    ).logPatternString;

    expect(serverErrors).toBe('{ $.status >= 500 }');
    expect(matches(serverErrors, authorizerFailure)).toBe(true);
    expect(matches(serverErrors, { ...authorizerFailure, status: 401 })).toBe(false);
    expect(matches(authorizer, authorizerFailure)).toBe(true);
    expect(
      matches(authorizer, { ...authorizerFailure, responseType: 'AUTHORIZER_CONFIGURATION_ERROR' }),
    ).toBe(true);
    expect(matches(authorizer, { ...authorizerFailure, responseType: 'UNAUTHORIZED' })).toBe(false);
    expect(matches(limiter, { status: 429, integrationStatus: '200' })).toBe(true);
    expect(matches(limiter, { status: 429, integrationStatus: '-' })).toBe(false);
  });

  it('compares numbers with numbers and strings with strings; a missing field matches nothing', () => {
    expect(matches('{ $.status = 503 }', { status: 503 })).toBe(true);
    expect(matches('{ $.status = 503 }', { status: '503' })).toBe(false);
    expect(matches('{ $.status = "503" }', { status: 503 })).toBe(false);
    expect(matches('{ $.status != 200 }', { status: 503 })).toBe(true);
    expect(matches('{ $.status != 200 }', {})).toBe(false);
    expect(matches('{ $.status < 500 }', { status: 499.5 })).toBe(true);
    expect(matches('{ $.a.b[1] = "x" }', { a: { b: ['w', 'x'] } })).toBe(true);
    expect(matches('{ $.a.b[2] = "x" }', { a: { b: ['w', 'x'] } })).toBe(false);
  });

  it('has wildcards in strings, bare words, IS and NOT EXISTS, and && before ||', () => {
    expect(matches('{ $.responseType = AUTHORIZER_* }', authorizerFailure)).toBe(true);
    expect(matches('{ $.path = "/partner-api/*/usage" }', { path: '/partner-api/v1/usage' })).toBe(true);
    expect(matches('{ $.x IS NULL }', { x: null })).toBe(true);
    expect(matches('{ $.x IS TRUE }', { x: true })).toBe(true);
    expect(matches('{ $.x NOT EXISTS }', { y: 1 })).toBe(true);
    expect(matches('{ $.x NOT EXISTS }', { x: null })).toBe(false);
    expect(matches('{ $.a = 1 || $.b = 1 && $.c = 1 }', { a: 1, b: 0, c: 0 })).toBe(true);
    expect(matches('{ ($.a = 1 || $.b = 1) && $.c = 1 }', { a: 1, b: 0, c: 0 })).toBe(false);
  });

  it('matches wildcards as a regular expression would, without one a crafted pattern can stall', () => {
    const reference = (text: string, pattern: string) =>
      new RegExp(
        `^${pattern
          .split('*')
          .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
        's',
      ).test(text);
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '*', '.'), maxLength: 12 });
    fc.assert(
      fc.property(text, text, (line, pattern) => wildcardMatch(line, pattern) === reference(line, pattern)),
      { numRuns: 2_000 },
    );
    // A pattern that makes a backtracking expression take exponential time (the security review's).
    expect(wildcardMatch('a'.repeat(50_000), `${'*a'.repeat(40)}*b`)).toBe(false);
    expect(matches(`{ $.path = "${'*a'.repeat(40)}*b" }`, { path: 'a'.repeat(50_000) })).toBe(false);
  });

  it('matches no line that is not a JSON object, and refuses what it cannot read', () => {
    expect(matches('{ $.status >= 500 }', 'status 503')).toBe(false);
    expect(matches('{ $.status >= 500 }', '[503]')).toBe(false);
    for (const pattern of [
      'ERROR',
      '[ip, user, status=5*]',
      '{ $.status >= "5xx" }',
      '{ $.status >= 500',
      '{ }',
    ])
      expect(() => parseFilterPattern(pattern), pattern).toThrow(/pattern|Expected|compares|Cannot/);
  });
});
