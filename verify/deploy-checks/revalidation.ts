import type { CheckRow, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { header, rawRequest, revalidationDifferences } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, getRoutes, withKey } from './stage-run';

/** A GET with its answer's ETag: a 304 with no body, its caching and rate-limit headers. */
async function revalidation(run: StageRun, route: { path: string }): Promise<Verdict> {
  const { timeoutMs } = run.context;
  const get = await rawRequest(api(run, route.path), 'GET', withKey(run), timeoutMs);
  const tag = header(get, 'etag');
  const revalidated = tag
    ? await rawRequest(api(run, route.path), 'GET', { ...withKey(run), 'If-None-Match': tag }, timeoutMs)
    : undefined;
  const differences = !revalidated
    ? [`GET ${get.status} without an ETag`]
    : revalidationDifferences(get, revalidated);
  if (differences.length === 0)
    return pass(`304, no body, ETag and ${header(revalidated ?? get, 'ratelimit')}`);
  return fail(
    differences.join('; '),
    "the handler's conditional answer (lambdas/api/middleware.ts) and API Gateway's Lambda proxy passing a 304 and its headers on",
  );
}

/** If-None-Match with the tag of an answer: a 304 with no body that still carries the rate-limit headers. */
export const revalidationChecks: CheckRow<StageRun> = (run) =>
  getRoutes(run)
    .filter((route) => route.keyed)
    .map((route) => ({
      name: `GET ${route.path}, If-None-Match: its ETag`,
      needs: revealCheck.name,
      run: () => revalidation(run, route),
    }));
