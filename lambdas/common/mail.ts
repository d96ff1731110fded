import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { OutgoingMail } from '../../core/domain/partner-mail';
import { clientFor } from './aws-clients';
import { serviceConfig } from './config';

/** The SES v2 client of the instance; locally the local AWS endpoint, which writes the local outbox. */
const ses = clientFor(
  (config) => config.local?.sesEndpoint,
  (options) => new SESv2Client(options),
);

/** The SES v2 request that sends a plain-text message (the CLI's mailer sends the same). */
export function sendEmailCommand(from: string, mail: OutgoingMail): SendEmailCommand {
  return new SendEmailCommand({
    FromEmailAddress: from,
    Destination: { ToAddresses: [mail.to] },
    Content: {
      Simple: {
        Subject: { Data: mail.subject, Charset: 'UTF-8' },
        Body: { Text: { Data: mail.text, Charset: 'UTF-8' } },
      },
    },
  });
}

/**
 * Sends a message from the stage's sender (`MAIL_FROM`, a verified SES identity) through SES v2,
 * as the operator CLI does; locally the local AWS endpoint answers and writes the local outbox.
 * Returns SES's message id.
 */
export async function sendMail(mail: OutgoingMail): Promise<string> {
  const from = serviceConfig().mailFrom;
  if (from === undefined) throw new Error('MAIL_FROM is not set; the stack (or npm start) must provide it.');
  const { MessageId } = await ses().send(sendEmailCommand(from, mail));
  return MessageId ?? '';
}
