import { API_BASE_PATH } from '../../core/routes';
import type { CheckRow, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { headDifferences, RATE_LIMIT_HEADERS, rawHeadRequest, rawRequest } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, getRoutes, withKey } from './stage-run';

/** HEAD answers as the GET does, without a body (read from the raw connection). */
async function head(run: StageRun, route: { path: string; keyed: boolean }): Promise<Verdict> {
  const headers = route.keyed ? withKey(run) : { Accept: 'application/json' };
  const get = await rawRequest(api(run, route.path), 'GET', headers, run.context.timeoutMs);
  const answer = await rawHeadRequest(api(run, route.path), headers, run.context.timeoutMs);
  const differences = get.status === 200 ? headDifferences(get, answer) : [`GET ${get.status}`];
  if (differences.length === 0)
    return pass(
      `${answer.status}, no body, the GET's headers (${Object.keys(answer.headers)
        .filter((name) => ['etag', 'content-type', 'cache-control', ...RATE_LIMIT_HEADERS].includes(name))
        .join(', ')})`,
    );
  return fail(
    differences.join('; '),
    `the HEAD method of ${API_BASE_PATH}${route.path} (API Gateway strips the body of a HEAD answer; the handler answers it as a GET)`,
  );
}

/** HEAD on every GET route: the GET's status and headers, no body. */
export const headChecks: CheckRow<StageRun> = (run) =>
  getRoutes(run).map((route) => ({
    name: `HEAD ${route.path}`,
    needs: revealCheck.name,
    run: () => head(run, route),
  }));
