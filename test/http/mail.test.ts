import { expect } from 'chai';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { createTestApp, PASSWORD, temporaryDirectory } from '../helpers/app.js';

describe('mail', () => {
  it('writes each mail as one JSON file { to, subject, text, html } into the outbox, creating it', async () => {
    const parent = await temporaryDirectory();
    const outbox = join(parent, 'not', 'there', 'yet');
    const t = await createTestApp({ SERVICE_AUTH_MAIL_OUTBOX: outbox });
    try {
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
      await t.auth.close();
      const files = await readdir(outbox);
      expect(files).to.have.length(1);
      const mail = JSON.parse(await readFile(join(outbox, files[0]!), 'utf8'));
      expect(Object.keys(mail).sort()).to.deep.equal(['html', 'subject', 'text', 'to']);
      expect(mail.to).to.equal('ada@example.com');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('prints mail to the log in development when no transport is configured', async () => {
    const t = await createTestApp();
    try {
      await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
      await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
      await t.auth.close();
      const printed = t.log.entries.find((e) => e.message.startsWith('mail to ada@example.com'));
      expect(printed?.level).to.equal('info');
      expect(printed?.message).to.contain('/service-auth/reset?token=');
    } finally {
      await t.auth.close();
    }
  });

  it('logs an error without the link in production when no transport is configured', async () => {
    const previous = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'production';
    try {
      const t = await createTestApp({
        SERVICE_AUTH_PUBLIC_URL: 'https://app.example.com',
        SERVICE_AUTH_SESSION_COOKIE_SECURE: false,
      });
      try {
        await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
        await t.auth.close();
        const logged = t.log.entries.find((e) => e.message.includes('no mail transport is configured'));
        expect(logged?.level).to.equal('error');
        expect(t.log.text()).not.to.contain('token=');
      } finally {
        await t.auth.close();
      }
    } finally {
      if (previous === undefined) delete process.env['NODE_ENV'];
      else process.env['NODE_ENV'] = previous;
    }
  });

  describe('over SMTP (nodemailer, against a real SMTP server)', () => {
    let server: SMTPServer;
    let port: number;
    const received: { from: string; to: string[]; data: string }[] = [];

    before(async () => {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        onData(stream, session, callback) {
          let data = '';
          stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
          stream.on('end', () => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              data,
            });
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.server.address() as AddressInfo).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('sends the reset mail from SERVICE_AUTH_MAIL_FROM', async () => {
      const t = await createTestApp({
        SERVICE_AUTH_SMTP_URL: `smtp://127.0.0.1:${port}`,
        SERVICE_AUTH_MAIL_FROM: 'Example <auth@example.com>',
        SERVICE_AUTH_PUBLIC_URL: 'https://app.example.com',
      });
      try {
        await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
      } finally {
        await t.auth.close();
      }
      expect(received).to.have.length(1);
      expect(received[0]!.from).to.equal('auth@example.com');
      expect(received[0]!.to).to.deep.equal(['ada@example.com']);
      expect(received[0]!.data).to.contain('Subject: Reset your password');
      expect(received[0]!.data.replace(/=\r?\n/g, '')).to.contain('https://app.example.com/service-auth/reset?token=');
    });

    it('logs a failed delivery and answers /forgot exactly as usual', async () => {
      const t = await createTestApp({ SERVICE_AUTH_SMTP_URL: 'smtp://127.0.0.1:1' });
      try {
        await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
        const response = await request(t.app)
          .post('/service-auth/forgot')
          .send({ email: 'ada@example.com' })
          .expect(202);
        const unknown = await request(t.app)
          .post('/service-auth/forgot')
          .send({ email: 'nobody@example.com' })
          .expect(202);
        expect(response.body).to.deep.equal(unknown.body);
        await t.auth.close();
        const logged = t.log.entries.find((e) => e.level === 'error' && e.message.includes('could not send'));
        expect(logged?.message).to.contain('ada@example.com');
      } finally {
        await t.auth.close();
      }
    });
  });

  it('lets the application replace the transport', async () => {
    const t = await createTestApp();
    const sent: string[] = [];
    t.auth.mail = { send: async (mail) => void sent.push(mail.to) };
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    await t.auth.close();
    expect(sent).to.deep.equal(['ada@example.com']);
    expect(t.log.text()).not.to.contain('mail to');
  });
});
