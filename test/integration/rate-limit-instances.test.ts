import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT } from '../../core/domain/rate-limit';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/**
 * What AWS does with one key's concurrent requests: they land on different Lambda instances
 * with nothing in common but DynamoDB. Here two servers (two processes) share one DynamoDB
 * Local, and each runs several instances of every function.
 */
const INSTANCES_PER_FUNCTION = '8';
let first: ServerProcess | undefined;
let second: ServerProcess | undefined;

beforeAll(async () => {
  first = await startServerProcess(
    { LOCAL_LAMBDA_MAX_INSTANCES: INSTANCES_PER_FUNCTION },
    { accessLog: true },
  );
  second = await startServerProcess(
    { LOCAL_LAMBDA_MAX_INSTANCES: INSTANCES_PER_FUNCTION, DYNAMODB_ENDPOINT: first.runtime.dynamoDbEndpoint },
    { accessLog: true, sameSecretAs: first },
  );
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
});

/** Distinct instances of a function that served requests, from a server's access log. */
function instancesOf(server: ServerProcess, functionName: string): Set<string> {
  return new Set(server.output().match(new RegExp(`${functionName}#\\d+`, 'g')) ?? []);
}

describe('the exact rate limit across Lambda instances and processes', () => {
  it('admits 100 concurrent requests of a fresh key, then exactly 20 of the next 100', async () => {
    if (!first || !second) throw new Error('servers did not start');
    const { key } = await first.approvedPartner('instances');
    const bases = [first.runtime.apiBaseUrl, second.runtime.apiBaseUrl];
    const burst = () =>
      Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          fetch(`${bases[index % bases.length]}/usage`, { headers: { Authorization: `Bearer ${key}` } }),
        ),
      );

    const underLimit = await burst();
    const overLimit = await burst();

    const statuses = (responses: Response[]) => responses.map((response) => response.status);
    const remaining = (responses: Response[]) =>
      responses
        .filter((response) => response.status === 200)
        .map((response) => Number(response.headers.get('x-ratelimit-remaining')))
        .sort((a, b) => b - a);
    expect(statuses(underLimit).filter((status) => status === 200)).toHaveLength(100);
    expect(statuses(overLimit).filter((status) => status === 200)).toHaveLength(RATE_LIMIT.limit - 100);
    expect(statuses(overLimit).filter((status) => status === 429)).toHaveLength(
      100 - (RATE_LIMIT.limit - 100),
    );
    // Each admission saw every earlier one: the counts it reports are exact, each exactly once.
    expect([...remaining(underLimit), ...remaining(overLimit)]).toEqual(
      Array.from({ length: RATE_LIMIT.limit }, (_, index) => RATE_LIMIT.limit - 1 - index),
    );
    for (const refused of overLimit.filter((response) => response.status === 429)) {
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(RATE_LIMIT.windowMs / 1000);
    }
    // Several instances of the handler served, in each process.
    expect(instancesOf(first, 'usage').size).toBeGreaterThan(1);
    expect(instancesOf(second, 'usage').size).toBeGreaterThan(1);
  });
});
