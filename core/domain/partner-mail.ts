/*
 * Mail to partners: what the operator CLI sends (reveal links) and what the service sends on its
 * own (a leaked key's notice), as plain text. Delivered by SES on a deployed stage; locally written
 * as `.eml` files to the outbox folder (docs/design/local-runtime.md).
 */

export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** A time as a mail reader in any zone reads it without doubt: "Mon, 30 Nov 2026 14:05 UTC". */
export function mailTime(iso: string): string {
  return `${new Date(iso).toUTCString().replace(/:\d\d GMT$/, '')} UTC`;
}

/** A message as an RFC 5322 file that any mail client opens (the local outbox). */
export function emlFile(mail: OutgoingMail, from: string, date: Date): string {
  return [
    `From: ${from}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    `Date: ${date.toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    mail.text,
    '',
  ].join('\r\n');
}

/** The file name of a message in the local outbox: when, to whom, and a random tail (two in one millisecond). */
export function emlFileName(to: string, date: Date): string {
  const tail = Math.random().toString(36).slice(2, 8);
  return `${date.toISOString().replace(/[:.]/g, '-')}-${to.replace(/[^A-Za-z0-9@._-]/g, '_')}-${tail}.eml`;
}

/** Who reported a leak, as the partner reads it. */
function reporterName(reportedBy: string): string {
  return reportedBy === GITHUB_REPORTER ? 'GitHub secret scanning' : 'our team';
}

/** The reporter name of GitHub's secret scanning reports (audit actor, key record, mail). */
export const GITHUB_REPORTER = 'github-secret-scanning';

/**
 * The notice of a leaked key, to the partner's contact: which key (its prefix, never the key),
 * where it was found, that it no longer works, and what to do now.
 */
export function leakedKeyMail(input: {
  to: string;
  partnerName: string;
  keyPrefix: string;
  url: string;
  source: string;
  reportedBy: string;
  /** When it was revoked (ISO 8601). */
  revokedAt: string;
  /** Whether the partner still has a key in force. */
  otherKeysWork: boolean;
}): OutgoingMail {
  return {
    to: input.to,
    subject: `Your partner API key ${input.keyPrefix}… was found in public and is revoked`,
    text: [
      `The partner API key of ${input.partnerName} that starts with ${input.keyPrefix} was found where others can read it, so we revoked it at ${mailTime(input.revokedAt)}.`,
      '',
      `Where it was found: ${input.url || '(no address given)'}${input.source ? ` (${input.source})` : ''}`,
      `Reported by: ${reporterName(input.reportedBy)}`,
      '',
      'Calls with this key are refused within 30 seconds of that time (401, revoked-api-key).',
      input.otherKeysWork
        ? 'Your other key keeps working: switch every caller to it.'
        : 'You have no other key that works: until you have a new one, your API calls are refused.',
      '',
      'What to do now:',
      '1. Your new key comes in a separate message, with a one-time link to reveal it, as when you started: our team is told now. If it has not come within one working day, reply to this message.',
      '2. Remove the key from where it was found. Anyone may have copied it meanwhile; revoking it is what protects you, not deleting it.',
      '3. Keep keys out of code: read them from your secret store or an environment variable.',
    ].join('\n'),
  };
}
