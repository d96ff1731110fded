import { createHash } from 'node:crypto';
import { openReveal } from '../../core/contract/reveal-crypto';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { rawRequest } from '../http-answers';
import { approveCheck } from './approve-test-partner';
import type { StageRun } from './stage-run';
import { grantsOf, known } from './stage-run';

/** The one-time reveal, as the page's script does it. */
async function revealTheKey(run: StageRun): Promise<Verdict> {
  const { timeoutMs } = run.context;
  const [revealPage = '', fragmentSecret = ''] = known(run.revealUrl, 'reveal URL').split('#');
  const revealGet = await rawRequest(revealPage, 'GET', { Accept: 'text/html' }, timeoutMs);
  const revealPost = await fetch(revealPage, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      secret_digest: createHash('sha256')
        .update(Buffer.from(fragmentSecret, 'base64url'))
        .digest('base64url'),
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const sealed = (await revealPost.json().catch(() => ({}))) as { iv?: string; ciphertext?: string };
  if (revealGet.status !== 200 || revealPost.status !== 200 || !sealed.iv || !sealed.ciphertext)
    return fail(
      `GET ${revealGet.status}, POST ${revealPost.status}`,
      `dynamodb:GetItem, UpdateItem REVEAL# and PutItem AUDIT#: ${grantsOf('revealPage')}`,
    );
  run.key = openReveal({ fragmentSecret, iv: sealed.iv, ciphertext: sealed.ciphertext });
  return pass('GET 200, POST 200, key decrypted in the client');
}

export const revealCheck: Check<StageRun> = {
  name: 'reveal the key (GET and POST /reveal/{revealId})',
  needs: approveCheck.name,
  run: revealTheKey,
};
