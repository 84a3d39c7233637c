import { expect } from 'chai';
import request from 'supertest';
import type { AuthUser } from '../../src/index.js';
import {
  createAppWithOutbox,
  outboxMails,
  PASSWORD,
  resetTokenFrom,
  sessionCookieFrom,
  type AppWithOutbox,
} from '../helpers/app.js';

describe('events', () => {
  let t: AppWithOutbox;
  beforeEach(async () => {
    t = await createAppWithOutbox();
  });
  afterEach(() => t.close());

  it('fires each of the five events with the user, from the endpoint that makes it happen', async () => {
    const seen: string[] = [];
    for (const name of [
      'user_registered',
      'user_login',
      'user_logout',
      'password_reset_requested',
      'password_reset_completed',
    ] as const) {
      t.auth.on(name, (user) => {
        seen.push(`${name}:${user.email}`);
      });
    }
    const registered = await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(201);
    await request(t.app).post('/service-auth/logout').set('Cookie', sessionCookieFrom(registered)!).expect(204);
    await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
    await request(t.app).post('/service-auth/forgot').send({ email: 'ada@example.com' }).expect(202);
    const token = resetTokenFrom((await outboxMails(t.outbox))[0]!);
    await request(t.app).post('/service-auth/reset').send({ token, password: 'Brand-New-Password-42' }).expect(200);
    expect(seen).to.deep.equal([
      'user_registered:ada@example.com',
      'user_logout:ada@example.com',
      'user_login:ada@example.com',
      'password_reset_requested:ada@example.com',
      'password_reset_completed:ada@example.com',
    ]);
  });

  it('fires nothing for failures: wrong password, unknown email, logout without a session', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const seen: string[] = [];
    for (const name of ['user_login', 'user_logout', 'password_reset_requested'] as const)
      t.auth.on(name, () => void seen.push(name));
    await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
      .expect(401);
    await request(t.app).post('/service-auth/logout').expect(204);
    await request(t.app).post('/service-auth/forgot').send({ email: 'nobody@example.com' }).expect(202);
    expect(seen).to.deep.equal([]);
  });

  it('supports the decorator form, which returns the handler', () => {
    const handler = (user: AuthUser) => user.email;
    expect(t.auth.on('user_login')(handler)).to.equal(handler);
  });

  it('returns an unsubscribe function from the two-argument form', async () => {
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    let calls = 0;
    const unsubscribe = t.auth.on('user_login', () => void calls++);
    await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
    unsubscribe();
    await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
    expect(calls).to.equal(1);
  });

  it('throws a TypeError listing the valid names for an unknown event, in both forms', () => {
    expect(() => t.auth.on('user_signed_in' as never)).to.throw(
      TypeError,
      /user_registered, user_login, user_logout, password_reset_requested, password_reset_completed/,
    );
    expect(() => t.auth.on('login' as never, () => undefined)).to.throw(TypeError, /Unknown event "login"/);
  });

  it('runs handlers one after another in registration order, each awaited, before the response', async () => {
    const order: string[] = [];
    t.auth.on('user_registered', async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push('first');
    });
    t.auth.on('user_registered')(() => {
      order.push('second');
    });
    await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(201);
    order.push('response');
    expect(order).to.deep.equal(['first', 'second', 'response']);
  });

  it('runs after the change is committed: a handler sees the new user', async () => {
    let found: AuthUser | null = null;
    t.auth.on('user_registered', async (user) => {
      found = await t.auth.users.findById(user.id);
    });
    await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(201);
    expect(found).not.to.equal(null);
  });

  it('logs a handler that throws, and changes neither the response nor the other handlers', async () => {
    const ran: string[] = [];
    t.auth.on('user_registered', () => {
      throw new Error('handler exploded');
    });
    t.auth.on('user_registered', async () => {
      ran.push('after');
    });
    const response = await request(t.app)
      .post('/service-auth/register')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(201);
    expect(response.body.user.email).to.equal('ada@example.com');
    expect(ran).to.deep.equal(['after']);
    expect(
      t.log.entries.some(
        (e) => e.level === 'error' && e.message.includes('user_registered') && e.message.includes('handler exploded'),
      ),
    ).to.equal(true);
  });
});
