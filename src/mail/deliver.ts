import { logError, type LoggerHolder } from '../logger.js';
import type { Mail, MailHolder } from './transport.js';

/**
 * Sends a mail through the current transport; a failure is logged, naming subject and recipient,
 * and not thrown: the change the mail is about has happened, and its request has been answered.
 */
export async function deliver(holder: MailHolder, log: LoggerHolder, message: Mail): Promise<void> {
  try {
    await holder.mail.send(message);
  } catch (error) {
    logError(log.logger, 'error', `could not send "${message.subject}" to ${message.to}`, error);
  }
}
