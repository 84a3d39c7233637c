import { defaultPageTexts, type PageTexts } from './http/pages/texts.js';
import { consoleLogger, type Logger } from './logger.js';
import type { MailTransport } from './mail/transport.js';

/**
 * What an application may replace at any time (`auth.logger`, `auth.mail`, `auth.texts`). Every
 * part that logs, mails or shows words holds this object and reads the current one when it needs it.
 */
export class Pluggable {
  logger: Logger = consoleLogger;
  texts: PageTexts = defaultPageTexts;
  mail: MailTransport;

  /** `mail` makes the configured transport, which logs through this object too. */
  constructor(mail: (log: Pluggable) => MailTransport) {
    this.mail = mail(this);
  }
}
