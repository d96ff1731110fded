import type { Check, Verdict } from '../checks';
import { fail, pass, skip } from '../checks';
import { rawRequest } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, problemName, withKey } from './stage-run';

/** A Log4Shell lookup, which AWSManagedRulesKnownBadInputsRuleSet blocks in a query string. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the text a malicious client sends, not a template
const LOG4J_LOOKUP = '${jndi:ldap://verify.invalid/a}';

/** What the firewall answers itself, on a stage that has one. */
async function blockedByTheFirewall(run: StageRun): Promise<Verdict> {
  if (!run.context.firewall) return skip('the local server has no WAF');
  const answer = await rawRequest(
    api(run, `/usage?q=${encodeURIComponent(LOG4J_LOOKUP)}`),
    'GET',
    withKey(run),
    run.context.timeoutMs,
  );
  if (answer.status === 403 && problemName(answer) === 'request-blocked')
    return pass('403 request-blocked (AWSManagedRulesKnownBadInputsRuleSet)');
  return fail(
    `${answer.status} ${problemName(answer)}`,
    'the web ACL association with the stage, and the WAF_FILTERED gateway response',
  );
}

export const firewallCheck: Check<StageRun> = {
  name: 'a request the WAF managed rules block',
  needs: revealCheck.name,
  run: blockedByTheFirewall,
};
