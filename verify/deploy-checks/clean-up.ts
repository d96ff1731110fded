import { getHostIdByEmail, getHostRecord, getHostStanding } from '../../lambdas/data/hosts';
import { publishEventsFile } from '../../operations/events';
import { revokeKey } from '../../operations/keys';
import { suspendPartner } from '../../operations/partners';
import type { Check, Verdict } from '../checks';
import { fail, pass, skip } from '../checks';
import { BULK_PROPERTIES, deleteItems } from '../test-data';
import type { StageRun } from './stage-run';

/** How long the clean-up waits for the consumer to erase the test host. */
const ERASURE_WAIT_MS = 60_000;

/**
 * Erases the test host the way the platform asks for any host's erasure (`HostErasureRequested` on
 * the stage's bus of the platform's events, applied by the consumer), so that everything of it goes,
 * here and, through the `HostErased` this service then sends, on the platform's side, which heard of
 * it by `HostProvisioned`. Only a host that this run's partner alone sponsors is erased: an erasure
 * is global, and the address could (however unlikely) be a real host's. Its id, or nothing when no
 * activation got as far as making it.
 */
async function eraseTestHost(run: StageRun, partnerId: number): Promise<number | undefined> {
  const hostId = await getHostIdByEmail(run.hostEmail);
  if (hostId === undefined) return undefined;
  const host = await getHostRecord(hostId);
  if (host?.sponsors.length !== 1 || host.sponsors[0] !== partnerId)
    throw new Error(
      `host ${hostId} has the test host's address but is sponsored by partners ${host?.sponsors.join(', ') || 'none'}, not only the test partner: not erased`,
    );
  await publishEventsFile(
    run.context.target,
    [
      {
        type: 'HostErasureRequested',
        detail: { host_user_id: hostId, requested_at: new Date().toISOString() },
      },
    ],
    Date.now(),
  );
  for (const deadline = Date.now() + ERASURE_WAIT_MS; Date.now() < deadline; ) {
    if ((await getHostStanding(hostId)) === 'erased') return hostId;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(
    `host ${hostId} was not erased within ${ERASURE_WAIT_MS / 1000} s of its HostErasureRequested (the consumer may be behind): see npm run admin -- --stage ${run.context.target.stage} events failed`,
  );
}

/**
 * Removes what the run created, so nothing of it is in use or heard of: the key revoked (its API
 * Gateway key deleted with it) and the partner suspended first, so its links and reveal pages answer
 * "not available"; the properties it wrote straight into the table deleted; and last the test host
 * erased as the platform would ask (the platform, told of it by `HostProvisioned`, is told
 * `HostErased`). Each step runs whatever the others did, and a failed one says how to finish it.
 * The partner record stays, suspended and named as test data (no other partner sees it), as do the
 * audit events (the trail is append-only).
 */
async function cleanUp(run: StageRun): Promise<Verdict> {
  const { context, created } = run;
  const partner = created.partner;
  if (!partner) return skip('nothing was created');
  const admin = `npm run admin -- --stage ${context.target.stage}`;
  const removed: string[] = [];
  const left: string[] = [];
  const step = async (what: () => Promise<string | undefined>, byHand: string) => {
    try {
      const done = await what();
      if (done) removed.push(done);
    } catch (error) {
      left.push(`${(error as Error).name}: ${(error as Error).message}; ${byHand}`);
    }
  };
  const { keyPrefix } = created;
  if (keyPrefix)
    await step(async () => {
      await revokeKey(context.target, keyPrefix, Date.now());
      return `key ${keyPrefix} revoked${context.target.usagePlanKeys ? ' and its API Gateway key deleted' : ''}`;
    }, `revoke it by hand: ${admin} keys revoke --prefix ${keyPrefix}`);
  await step(async () => {
    await suspendPartner(
      context.target,
      { slug: partner, reason: 'Deploy verification finished: test data' },
      Date.now(),
    );
    return `partner ${partner} suspended`;
  }, `suspend it by hand: ${admin} partners suspend --partner ${partner} --reason "Deploy verification test data"`);
  if (created.bulk.length > 0)
    await step(async () => {
      await deleteItems(created.bulk);
      return `${BULK_PROPERTIES} bulk properties deleted`;
    }, 'they belong to the test partner only; delete them with the next run or leave them');
  if (created.indexProperty.length > 0)
    await step(async () => {
      await deleteItems(created.indexProperty);
      return "the index check's property deleted";
    }, 'it belongs to the test partner only');
  const partnerId = run.partnerId;
  if (partnerId !== undefined)
    await step(async () => {
      const hostId = await eraseTestHost(run, partnerId);
      return hostId === undefined
        ? undefined
        : `host ${hostId} erased (HostErasureRequested; HostErased sent back)`;
    }, `erase it as the platform would: ${admin} events publish --file <a file with its HostErasureRequested> (docs/operators.md)`);
  if (left.length > 0)
    return fail(
      `${removed.length > 0 ? `${removed.join('; ')}; ` : ''}not done: ${left.join(' | ')}`,
      "your own credentials: apigateway:DELETE /apikeys/*, dynamodb:BatchWriteItem, TransactWriteItems and UpdateItem on the table, events:PutEvents on the stage's bus of the platform's events (EventBusName output)",
    );
  return pass(
    `${removed.join('; ') || 'nothing to remove'}; the partner is kept as test data (its name says so)`,
  );
}

export const cleanUpCheck: Check<StageRun> = { name: 'clean up', run: cleanUp };
