import type { MailReceipt, OutgoingMail } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import type { CliIo } from './command';
import { ADMIN } from './command';

function mailNote(receipt: MailReceipt, to: string): string {
  return receipt.delivery === 'outbox'
    ? `Reveal link e-mailed to ${to} (local outbox: ${receipt.path})`
    : `Reveal link e-mailed to ${to} (SES message ${receipt.messageId})`;
}

/**
 * Refuses before anything is issued when the mail could not go out (an unverified sender, an SES
 * sandbox recipient): better no key than a key whose link nobody receives.
 */
export async function checkMail(target: OperatorTarget, to: string): Promise<void> {
  const problems = (await target.mailer.check?.(to)) ?? [];
  if (problems.length > 0)
    throw new OperatorError(
      `Nothing was issued: the reveal link could not be e-mailed.\n${problems.map((problem) => `  - ${problem}`).join('\n')}\nFix the mail setup, or pass --no-mail to print the link only.`,
    );
}

/** Sends the reveal link once the result (with the link) is printed; a failure is a warning. */
export function sendAfterPrinting(target: OperatorTarget, mail: OutgoingMail, io: CliIo, retry: string) {
  return async () => {
    try {
      io.err(mailNote(await target.mailer.send(mail), mail.to));
    } catch (error) {
      io.err(
        `Warning: the reveal link was NOT e-mailed to ${mail.to} (${(error as Error).message}). The link printed above works: send it to ${mail.to} yourself over a channel you trust (it is as sensitive as the key), or fix the mail setup and run "${ADMIN} ${retry}" for a new link.`,
      );
    }
  };
}
