import { gunzipSync } from 'node:zlib';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { header, rawRequest } from '../http-answers';
import { BULK_PROPERTIES } from '../test-data';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, json, withBulk, withKey } from './stage-run';

function safeGunzip(bytes: Buffer): Buffer | undefined {
  try {
    return gunzipSync(bytes);
  } catch {
    return undefined;
  }
}

/** A list over the threshold comes gzip-compressed when asked for with JSON. */
async function gzipped(run: StageRun): Promise<Verdict> {
  await withBulk(run);
  const answer = await rawRequest(
    api(run, '/properties'),
    'GET',
    { ...withKey(run), 'Accept-Encoding': 'gzip' },
    run.context.timeoutMs,
  );
  const gunzipped = header(answer, 'content-encoding') === 'gzip' ? safeGunzip(answer.bytes) : undefined;
  if (answer.status === 200 && gunzipped && json(gunzipped))
    return pass(
      `200 gzip, ${answer.bytes.length} bytes for ${gunzipped.length} bytes of JSON (${BULK_PROPERTIES} bulk properties added)`,
    );
  return fail(
    `${answer.status}, Content-Encoding "${header(answer, 'content-encoding')}", ${gunzipped ? 'JSON' : 'not gzip JSON'}`,
    "API Gateway's binaryMediaTypes (*/*) turning the function's base64 body into bytes",
  );
}

export const gzipCheck: Check<StageRun> = {
  name: 'GET /properties, Accept: application/json and Accept-Encoding: gzip',
  needs: revealCheck.name,
  run: gzipped,
};
