import type { AuthConfig } from '../config/config.js';
import type { LoggerHolder } from '../logger.js';
import { ConsoleTransport } from './console.js';
import { OutboxTransport } from './outbox.js';
import { SmtpTransport } from './smtp.js';
import type { MailTransport } from './transport.js';

export type { Mail, MailHolder, MailTransport } from './transport.js';

/** SMTP if configured, else the outbox directory, else the console. */
export function createMailTransport(config: AuthConfig, log: LoggerHolder): MailTransport {
  if (config.mail.smtpUrl) return new SmtpTransport(config.mail.smtpUrl, config.mail.from);
  if (config.mail.outbox) return new OutboxTransport(config.mail.outbox);
  return new ConsoleTransport(log, config.production);
}
