import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';
import type { Mail, MailTransport } from './transport.js';

/** Sends over SMTP with nodemailer; the URL carries host, port, credentials and TLS (`smtps://`). */
export class SmtpTransport implements MailTransport {
  private readonly transporter: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    // Required here, not imported above: only an application that sends over SMTP pays its load.
    const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer');
    this.transporter = nodemailer.createTransport(url);
  }

  async send(mail: Mail): Promise<void> {
    await this.transporter.sendMail({ from: this.from, ...mail });
  }

  close(): void {
    this.transporter.close();
  }
}
