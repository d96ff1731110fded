import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { header, rawRequest } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, json, problemName, withBulk, withKey } from './stage-run';

/** The same list uncompressed (or a 406) to a client that sends no Accept header (Go's default client). */
async function withoutAccept(run: StageRun): Promise<Verdict> {
  await withBulk(run);
  const { Accept: _accept, ...headers } = withKey(run);
  const answer = await rawRequest(
    api(run, '/properties'),
    'GET',
    { ...headers, 'Accept-Encoding': 'gzip' },
    run.context.timeoutMs,
  );
  if (answer.status === 200 && header(answer, 'content-encoding') === '' && json(answer.bytes))
    return pass('200, uncompressed JSON');
  if (answer.status === 406 && problemName(answer) === 'not-acceptable')
    return pass('406 not-acceptable, saying what to send');
  return fail(
    `${answer.status}, Content-Encoding "${header(answer, 'content-encoding')}", ${json(answer.bytes) ? 'JSON' : 'not JSON'} body`,
    'the handler compressing for a request without Accept (lambdas/api/response-encoding.ts), which API Gateway may pass on as base64 text',
  );
}

export const noAcceptCheck: Check<StageRun> = {
  name: "GET /properties, Accept-Encoding: gzip and no Accept (Go's default client)",
  needs: revealCheck.name,
  run: withoutAccept,
};
