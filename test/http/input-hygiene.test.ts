import { expect } from 'chai';
import request from 'supertest';
import { AuthError, ValidationError } from '../../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { onStatement } from '../helpers/orm.js';

/** Valid values for every string field of each endpoint, one of which a test spoils at a time. */
const FIELDS: Record<string, Record<string, string>> = {
  '/login': { email: 'ada@example.com', password: PASSWORD, next: '/x' },
  '/register': { email: 'new@example.com', password: PASSWORD, next: '/x' },
  '/forgot': { email: 'ada@example.com' },
  '/reset': { token: 'x'.repeat(43), password: PASSWORD },
  '/api/tokens': { name: 'ci', scopes: 'reports:read' },
};

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\uD800b';
const FORGED = '\n[service-auth] FORGED';

describe('input hygiene', () => {
  let t: TestApp;
  let cookie: string;
  /** The SQL statements issued on the app's own connection since the last reset. */
  const statements: string[] = [];

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app) => {
      app.get('/boom', () => {
        throw new Error(`bad${FORGED}`);
      });
    });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
    await onStatement(await t.parts.storage.em(), (sql) => statements.push(sql));
  });
  after(() => t.auth.close());

  const post = (path: string) => {
    const call = request(t.app).post(`/service-auth${path}`);
    return path === '/api/tokens' ? call.set('Cookie', cookie) : call;
  };

  /**
   * Starts counting afresh once the work earlier requests left for after their answer (the audit
   * log's batch of failures, background work) is written: its statements are not this request's.
   */
  async function countFromNow(): Promise<void> {
    await t.parts.audit.flush();
    await t.parts.background.flush();
    statements.length = 0;
  }

  /** Sends the request and expects a 400 naming exactly `field`, with no statement issued meanwhile. */
  async function expectRefusedBeforeAnyQuery(call: request.Test, field: string, what: string): Promise<void> {
    await countFromNow();
    const response = await call;
    expect(response.status, `${what}: ${response.text}`).to.equal(400);
    expect(response.body.code, what).to.equal('bad_request');
    expect(statements, what).to.deep.equal([]);
    expect(
      response.body.errors?.map((e: { field: string }) => e.field),
      `${what}: ${response.text}`,
    ).to.deep.equal([field]);
  }

  describe('text no field can hold: a NUL, or ill-formed Unicode', () => {
    it('counts the statements a request issues (a wrong password costs at least one)', async () => {
      await countFromNow();
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: 'Wrong-Password-1' })
        .expect(401);
      expect(statements).not.to.deep.equal([]);
    });

    it('refuses a NUL or a lone surrogate in any field of a JSON body with 400 naming the field, before any query', async () => {
      for (const [path, values] of Object.entries(FIELDS)) {
        for (const field of Object.keys(values)) {
          for (const bad of [NUL, LONE_SURROGATE]) {
            const spoilt = field === 'scopes' ? ['reports:read', bad] : bad;
            await expectRefusedBeforeAnyQuery(
              post(path).send({ ...values, [field]: spoilt }),
              field,
              `JSON ${path} ${field} ${JSON.stringify(bad)}`,
            );
          }
        }
      }
    });

    it('refuses a NUL in any field of a urlencoded body with 400 naming the field, before any query', async () => {
      for (const [path, values] of Object.entries(FIELDS)) {
        for (const field of Object.keys(values)) {
          await expectRefusedBeforeAnyQuery(
            post(path)
              .type('form')
              .send({ ...values, [field]: NUL }),
            field,
            `form ${path} ${field}`,
          );
        }
      }
    });

    it('refuses an encoded lone surrogate (%ED%A0%80) in any field of a urlencoded body with 400 naming the field, before any query', async () => {
      for (const [path, values] of Object.entries(FIELDS)) {
        for (const field of Object.keys(values)) {
          const body = Object.entries(values)
            .map(([name, value]) => `${name}=${name === field ? 'a%ED%A0%80b' : encodeURIComponent(value)}`)
            .join('&');
          await expectRefusedBeforeAnyQuery(post(path).type('form').send(body), field, `form ${path} ${field}`);
        }
      }
    });

    it('refuses a NUL in a path parameter with 400 naming the path, before any query', async () => {
      for (const path of ['/api/tokens/a%00b', '/api/passkeys/a%00b', '/api/sessions/a%00b']) {
        await expectRefusedBeforeAnyQuery(
          request(t.app).delete(`/service-auth${path}`).set('Cookie', cookie),
          'path',
          `DELETE ${path}`,
        );
      }
    });

    it('refuses an encoded lone surrogate in a path parameter with 400, before any query', async () => {
      await countFromNow();
      const response = await request(t.app)
        .delete('/service-auth/api/tokens/a%ED%A0%80b')
        .set('Cookie', cookie)
        .expect(400);
      expect(response.body).to.include({
        code: 'bad_request',
        detail: 'The path is not valid: a %-escape in it does not decode',
      });
      expect(statements).to.deep.equal([]);
    });

    it('refuses a urlencoded body with a raw byte that is not UTF-8 rather than reading U+FFFD into it, before any query', async () => {
      await countFromNow();
      const bytes = Buffer.concat([
        Buffer.from('email='),
        Buffer.from([0xff]),
        Buffer.from('%40example.com&password=x'),
      ]);
      const response = await request(t.app)
        .post('/service-auth/login')
        .type('form')
        .serialize((body: Buffer) => body as never)
        .send(bytes as never)
        .expect(400);
      expect(response.body.code).to.equal('bad_request');
      expect(statements).to.deep.equal([]);
    });

    it('refuses a JSON body whose bytes are not UTF-8 rather than reading U+FFFD into it, before any query', async () => {
      await countFromNow();
      const bytes = Buffer.concat([
        Buffer.from('{"email":"a'),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('b@example.com","password":"x"}'),
      ]);
      const response = await request(t.app)
        .post('/service-auth/login')
        .set('Content-Type', 'application/json')
        .serialize((body: Buffer) => body as never)
        .send(bytes as never)
        .expect(400);
      expect(response.body.code).to.equal('bad_request');
      expect(statements).to.deep.equal([]);
    });
  });

  describe('the log', () => {
    const loggedText = () =>
      t.log.entries.map((e) =>
        [e.message, ...e.details.map((d) => (d instanceof Error ? `${d.message}\n${d.stack}` : String(d)))].join(' '),
      );

    it('gets no forged line from a body with a newline and a NUL in the email', async () => {
      t.log.entries.length = 0;
      const body = String.raw`{"email":"x\n[service-auth] FORGED\n\u0000","password":"x"}`;
      const response = await request(t.app)
        .post('/service-auth/login')
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(400);
      expect(response.body.code).to.equal('bad_request');
      for (const text of loggedText()) expect(text).not.to.contain(FORGED);
      expect(
        t.log
          .text()
          .split('\n')
          .filter((line) => line.startsWith('[service-auth] FORGED')),
      ).to.deep.equal([]);
    });

    it("quotes an application error's message escaped, and the 500 says nothing of it", async () => {
      t.log.entries.length = 0;
      const response = await request(t.app).get('/boom').expect(500);
      expect(response.body.code).to.equal('internal_error');
      expect(response.text).not.to.contain('FORGED').and.not.to.contain('bad');
      const logged = loggedText();
      expect(
        logged.some((text) => /bad(\\u000a|\\n)\[service-auth\] FORGED/.test(text)),
        logged.join('\n---\n'),
      ).to.equal(true);
      for (const text of logged) expect(text).not.to.contain(FORGED);
    });
  });

  describe('passwords', () => {
    it('refuses a lone surrogate in auth.users.create and auth.users.setPassword with a 400, rather than collapsing it to U+FFFD', async () => {
      const refusal = (promise: Promise<unknown>) =>
        promise.then(
          () => null,
          (error: unknown) => error,
        );
      const created = await refusal(
        t.auth.users.create({ email: 'surrogate@example.com', password: 'Correct-Horse-9\uD800' }),
      );
      expect(created).to.be.instanceOf(AuthError).and.include({ status: 400, code: 'bad_request' });
      expect(await t.auth.users.findByEmail('surrogate@example.com')).to.equal(null);

      const user = await t.auth.users.create({ email: 'replacement@example.com', password: 'Correct-Horse-9\uFFFD' });
      const set = await refusal(t.auth.users.setPassword(user.id, 'Correct-Horse-9\uD800'));
      expect(set).to.be.instanceOf(AuthError).and.include({ status: 400, code: 'bad_request' });
    });

    it('never logs in with a lone surrogate where the password holds U+FFFD', async () => {
      const login = (password: string) =>
        request(t.app).post('/service-auth/login').send({ email: 'replacement@example.com', password });
      const refused = await login('Correct-Horse-9\uD800');
      expect(refused.status).to.equal(400);
      expect(refused.body.code).to.equal('bad_request');
      await login('Correct-Horse-9\uFFFD').expect(200);
    });
  });

  describe('token names', () => {
    const NAMES = ['ci\u202Ebot', 'ci\u2066bot', 'ci\u200Bbot', 'ci\u0007bot', 'ci\u2028bot', 'ci\uD800bot'];
    const tokenCount = async () =>
      (await request(t.app).get('/service-auth/api/tokens').set('Cookie', cookie).expect(200)).body.tokens.length;

    it('refuses control, format and bidi characters and lone surrogates in POST /api/tokens, naming the field', async () => {
      const before = await tokenCount();
      for (const name of NAMES) {
        const response = await request(t.app).post('/service-auth/api/tokens').set('Cookie', cookie).send({ name });
        expect(response.status, JSON.stringify(name)).to.equal(400);
        expect(response.body.code).to.equal('bad_request');
        expect(response.body.errors[0].field, JSON.stringify(name)).to.equal('name');
      }
      expect(await tokenCount()).to.equal(before);
    });

    it('refuses them in auth.tokens.create, naming the field', async () => {
      const before = await tokenCount();
      for (const name of NAMES) {
        const error = await t.auth.tokens.create('ada@example.com', { name }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, JSON.stringify(name)).to.be.instanceOf(ValidationError);
        expect((error as ValidationError).status).to.equal(400);
        expect((error as ValidationError).fieldErrors[0]?.field, JSON.stringify(name)).to.equal('name');
      }
      expect(await tokenCount()).to.equal(before);
    });
  });
});
