import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutgoingMail } from '../core/domain/partner-mail';
import { emlFile, emlFileName, mailTime } from '../core/domain/partner-mail';

export type { OutgoingMail } from '../core/domain/partner-mail';

export type MailReceipt =
  | { readonly delivery: 'outbox'; readonly path: string }
  | { readonly delivery: 'ses'; readonly messageId: string };

/** Sends operator mail: SES in a deployed stage, `.eml` files in a local outbox folder. */
export interface Mailer {
  /** Why a message to `to` could not go out now (an unverified sender...), before anything is issued. */
  check?(to: string): Promise<string[]>;
  send(mail: OutgoingMail): Promise<MailReceipt>;
}

/** The sender of the local server's mail (the reveal pages name its address as ours). */
export const FROM_LOCAL = 'Partner Team <partners@localhost>';

/** Writes each message as an RFC 5322 `.eml` file that any mail client opens. */
export function outboxMailer(directory: string): Mailer {
  return {
    async send(mail) {
      await mkdir(directory, { recursive: true });
      const date = new Date();
      const path = join(directory, emlFileName(mail.to, date));
      const message = emlFile(mail, FROM_LOCAL, date);
      await writeFile(path, message, { mode: 0o600 });
      return { delivery: 'outbox', path };
    },
  };
}

/** The reveal-link message of an approval or a rotation. */
export function revealLinkMail(input: {
  to: string;
  partnerName: string;
  revealUrl: string;
  keyPrefix: string;
  apiBaseUrl: string;
  /** When the link stops working (ISO 8601). */
  expiresAt: string;
  rotation: boolean;
  /**
   * A rotation's: whether the partner has a key in use (revealed, in force), which keeps working
   * for the grace period, and whether the new key replaces one of an earlier mail never revealed.
   * @default true
   */
  keyInUse?: boolean;
  supersedesUnrevealed?: boolean;
  /** The revoked (leaked) key this one replaces: no key retires, the partner has none to keep. */
  replaces?: string;
}): OutgoingMail {
  const intro = input.replaces
    ? `Here is the new partner API key of ${input.partnerName}, replacing the revoked key that starts with ${input.replaces}. Your other keys, if any, are not affected.`
    : input.rotation
      ? input.keyInUse === false
        ? input.supersedesUnrevealed
          ? `A new partner API key was issued for ${input.partnerName}. It replaces the key of our earlier e-mail, which was not revealed: that link no longer works, use this one.`
          : `A new partner API key was issued for ${input.partnerName}. You have no other key in force, so this one is the key to use from now on.`
        : `A new partner API key was issued for ${input.partnerName}. Your current key keeps working for the grace period we agreed on, counted from the moment you reveal the new one.`
      : `Welcome aboard: ${input.partnerName} is approved as a partner, and your API key is ready.`;
  return {
    to: input.to,
    subject: input.replaces
      ? 'Your replacement partner API key'
      : input.rotation
        ? 'Your new partner API key'
        : 'Your partner API key',
    text: [
      intro,
      '',
      `Open this link to reveal the key (it starts with ${input.keyPrefix}):`,
      input.revealUrl,
      '',
      `The link works until ${mailTime(input.expiresAt)}. After that, ask us for a new one.`,
      'The key is shown once, in your browser, and cannot be shown again. Keep it in your secret store.',
      '',
      `API base URL: ${input.apiBaseUrl}`,
      'Send the key as "Authorization: Bearer <key>", for example:',
      `  curl -H "Authorization: Bearer $PARTNER_API_KEY" ${input.apiBaseUrl}/usage`,
      `The API is described (no key needed) at ${input.apiBaseUrl}/openapi.json.`,
    ].join('\n'),
  };
}
