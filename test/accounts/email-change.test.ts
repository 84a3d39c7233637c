/** CONTRACT-2 §14.6: changing the email address, confirmed from the new address. */
import { expect } from 'chai';
import request from 'supertest';
import { createAppWithOutbox, outboxMails, PASSWORD, type AppWithOutbox } from '../helpers/app.js';
import { member, meWithCookie, type Member } from './accounts.js';

function changeTokenFrom(mail: { text: string }): string {
  const match = /\/service-auth\/confirm-email\?token=([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!match) throw new Error(`no confirmation link in: ${mail.text}`);
  return match[1]!;
}

describe('§14.6 changing the email address', () => {
  let t: AppWithOutbox;
  let ada: Member;
  beforeEach(async () => {
    t = await createAppWithOutbox();
    ada = await member(t, 'ada@example.com');
  });
  afterEach(() => t.close());

  const ask = (email: string, password = PASSWORD) =>
    request(t.app).post('/service-auth/email').set('Cookie', ada.cookie).send({ password, email });

  it('POST /email answers 202; a link goes to the new address and a notice without a link to the old one', async () => {
    const response = await ask('ada.new@example.com').expect(202);
    expect(response.body.message).to.be.a('string');
    const mails = await outboxMails(t.outbox, 2);
    const byRecipient = Object.fromEntries(mails.map((mail) => [mail.to, mail]));
    expect(Object.keys(byRecipient).sort()).to.deep.equal(['ada.new@example.com', 'ada@example.com']);
    changeTokenFrom(byRecipient['ada.new@example.com']!);
    expect(byRecipient['ada@example.com']!.text).not.to.match(/token=/);
    expect(byRecipient['ada@example.com']!.text).to.contain('ada.new@example.com');
    expect((await t.auth.users.get(ada.id)).email, 'nothing changes before the confirmation').to.equal(
      'ada@example.com',
    );
  });

  it('POST /confirm-email { token } changes the address: 200 { user }, event email_changed, the new address logs in and the old one does not', async () => {
    const changed: string[] = [];
    t.auth.on('email_changed', (user) => void changed.push(user.email));
    await ask('Ada.New@Example.com').expect(202);
    const token = changeTokenFrom((await outboxMails(t.outbox, 2)).find((mail) => mail.to === 'ada.new@example.com')!);
    const reset = await t.parts.resetTokens.issue(ada.id);
    const response = await request(t.app).post('/service-auth/confirm-email').send({ token }).expect(200);
    expect(response.body.user).to.include({ id: ada.id, email: 'ada.new@example.com', email_confirmed: true });
    expect(changed).to.deep.equal(['ada.new@example.com']);
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada.new@example.com', password: PASSWORD })
      .expect(200);
    await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }).expect(401);
    expect(
      (await meWithCookie(t, ada.cookie).expect(200)).body.user.email,
      'sessions go on, with the new address',
    ).to.equal('ada.new@example.com');
    // A reset link mailed to the old address stops working; the change's link is single use.
    await request(t.app)
      .post('/service-auth/reset')
      .send({ token: reset, password: 'Another-Horse-Battery-7' })
      .expect(400);
    expect((await request(t.app).post('/service-auth/confirm-email').send({ token }).expect(400)).body.code).to.equal(
      'invalid_confirmation_token',
    );
  });

  it('is 409 email_taken when the address belongs to someone, when asked and when confirmed, changing nothing', async () => {
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    expect((await ask('bob@example.com').expect(409)).body.code).to.equal('email_taken');
    await ask('cy@example.com').expect(202);
    const token = changeTokenFrom((await outboxMails(t.outbox, 2)).find((mail) => mail.to === 'cy@example.com')!);
    await t.auth.users.create({ email: 'cy@example.com', password: PASSWORD }); // taken meanwhile
    expect((await request(t.app).post('/service-auth/confirm-email').send({ token }).expect(409)).body.code).to.equal(
      'email_taken',
    );
    expect((await t.auth.users.get(ada.id)).email).to.equal('ada@example.com');
  });

  it('refuses a wrong password (401 invalid_credentials), a token (403 session_required) and a bad address (422), sending nothing', async () => {
    expect((await ask('ada.new@example.com', 'Wrong-Password-1').expect(401)).body.code).to.equal(
      'invalid_credentials',
    );
    const byToken = await request(t.app)
      .post('/service-auth/email')
      .set('Authorization', `Bearer ${ada.token}`)
      .send({ password: PASSWORD, email: 'x@example.com' })
      .expect(403);
    expect(byToken.body.code).to.equal('session_required');
    expect((await ask('not an address').expect(422)).body.code).to.equal('invalid_email');
    expect(await outboxMails(t.outbox, 0)).to.deep.equal([]);
  });
});
