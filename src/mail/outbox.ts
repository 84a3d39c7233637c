import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mail, MailTransport } from './transport.js';

/**
 * Writes each mail as one JSON file `{ to, subject, text, html? }` into a directory, created if
 * missing: for development, tests, and handing mail to another process.
 */
export class OutboxTransport implements MailTransport {
  constructor(private readonly directory: string) {}

  async send(mail: Mail): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    // Time first so a directory listing is in sending order; random so two mails never collide.
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`;
    const body: Mail = { to: mail.to, subject: mail.subject, text: mail.text };
    if (mail.html !== undefined) body.html = mail.html;
    // Written under a name no reader picks up, then renamed: another process watching the
    // directory sees a mail whole or not at all.
    const partial = join(this.directory, `.${name}.partial`);
    await writeFile(partial, `${JSON.stringify(body, null, 2)}\n`, { flag: 'wx' });
    await rename(partial, join(this.directory, name));
  }
}
