import type { LoggerHolder } from '../logger.js';
import type { Mail, MailTransport } from './transport.js';

/**
 * With no transport configured. In development the mail is printed, link included, so the
 * reset flow works out of the box; in production nothing is sent, and that is an error worth a log
 * line (without the link, which is a credential).
 */
export class ConsoleTransport implements MailTransport {
  constructor(
    private readonly log: LoggerHolder,
    private readonly production: boolean,
  ) {}

  async send(mail: Mail): Promise<void> {
    if (this.production) {
      this.log.logger.error(
        `no mail transport is configured (SERVICE_AUTH_SMTP_URL or SERVICE_AUTH_MAIL_OUTBOX): ` +
          `"${mail.subject}" to ${mail.to} was not sent`,
      );
      return;
    }
    this.log.logger.info(`mail to ${mail.to}: ${mail.subject}\n\n${mail.text}`);
  }
}
