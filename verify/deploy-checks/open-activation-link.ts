import { createActivationLink } from '../../operations/links';
import { pageTitle } from '../browser-session';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { approveCheck } from './approve-test-partner';
import type { StageRun } from './stage-run';
import { grantsOf } from './stage-run';

/** A new host's activation link, opened in a browser session: a session cookie and the marketplace next. */
async function openActivationLink(run: StageRun): Promise<Verdict> {
  const link = await createActivationLink(
    run.context.target,
    {
      slug: run.slug,
      email: run.hostEmail,
      name: run.hostName,
      pmsHotelId: `VERIFY-${run.stamp}`,
      products: ['assistant', 'upsells'],
      ttlSeconds: 900,
    },
    Date.now(),
  );
  const activate = await run.browser.open(link.url);
  if (activate.status !== 303 || !activate.location)
    return fail(
      `${activate.status} ${pageTitle(activate.html)}`,
      `dynamodb:GetItem PARTNERSLUG#, PARTNER#, SIGNING_SECRET#, ACTIVATION_LINK#, NONCE# and both secrets: ${grantsOf('activatePage')}`,
    );
  run.next = activate.location;
  return pass('303 to the marketplace, session cookie set');
}

export const openLinkCheck: Check<StageRun> = {
  name: 'open the activation link',
  needs: approveCheck.name,
  run: openActivationLink,
};
