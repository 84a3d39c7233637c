import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverException, MikroORM } from '@mikro-orm/core';
import { ServiceAuth } from '../src/index.js';
import { AuthError } from '../src/errors.js';
import { ormOptions } from '../src/storage/orm.js';
import { MIGRATION_NAMES } from '../src/storage/migrations/names.js';
import { captureLogger, createTestApp, PASSWORD } from './helpers/app.js';
import { migrationsOf } from './helpers/orm.js';

describe('ServiceAuth', () => {
  it('mounts the router at the configured prefix', async () => {
    const { app, auth } = await createTestApp({ SERVICE_AUTH_URL_PREFIX: '/auth' });
    try {
      await request(app).get('/auth/me').expect(401);
      await request(app).get('/service-auth/me').expect(404);
      expect(ServiceAuth.of(app)).to.equal(auth);
    } finally {
      await auth.close();
    }
  });

  it('answers GET /me with 401 unauthenticated as problem details', async () => {
    const { app, auth } = await createTestApp();
    try {
      const response = await request(app).get('/service-auth/me').expect(401);
      expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(response.body).to.deep.equal({
        type: 'about:blank',
        title: 'Unauthenticated',
        status: 401,
        detail: 'Log in to see this',
        code: 'unauthenticated',
      });
    } finally {
      await auth.close();
    }
  });

  it('answers a malformed JSON body with 400 bad_request', async () => {
    const { app, auth } = await createTestApp();
    try {
      const response = await request(app)
        .post('/service-auth/me')
        .set('Content-Type', 'application/json')
        .send('{"email":')
        .expect(400);
      expect(response.body).to.include({ code: 'bad_request', status: 400 });
    } finally {
      await auth.close();
    }
  });

  it('answers every unreadable body with a 4xx problem (413 payload_too_large or 400 bad_request), not as a server error', async () => {
    const { app, auth, log } = await createTestApp();
    try {
      const tooLarge = await request(app)
        .post('/service-auth/login')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ email: 'x'.repeat(20_000) }))
        .expect(413);
      expect(tooLarge.body.code).to.equal('payload_too_large');
      const encoding = await request(app)
        .post('/service-auth/login')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'x-unknown')
        .send('{}')
        .expect(400);
      const parameters = await request(app)
        .post('/service-auth/login')
        .type('form')
        .send(Array.from({ length: 1100 }, (_, i) => `p${i}=1`).join('&'))
        .expect(400);
      for (const response of [encoding, parameters]) expect(response.body.code).to.equal('bad_request');
      expect(log.entries.filter((e) => e.level === 'error')).to.deep.equal([]);
    } finally {
      await auth.close();
    }
  });

  it('lets service calls and requests made before ready wait for storage', async () => {
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
    const auth = new ServiceAuth(app);
    auth.logger = captureLogger();
    try {
      let ready = false;
      void auth.ready.then(() => (ready = true));
      const creating = auth.users.create({ email: 'early@example.com', password: PASSWORD });
      const asking = request(app)
        .get('/service-auth/me')
        .then((r) => r.status);
      expect(ready).to.equal(false);
      expect((await creating).email).to.equal('early@example.com');
      expect(await asking).to.equal(401);
    } finally {
      await auth.close();
    }
  });

  it('rejects ready for an unreachable database, naming the URL without its password', async () => {
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', 'postgresql://service:hunter2@127.0.0.1:1/auth');
    const auth = new ServiceAuth(app);
    const log = captureLogger();
    auth.logger = log;
    try {
      const error = await auth.ready.then(
        () => null,
        (e: Error) => e,
      );
      expect(error).to.be.instanceOf(Error);
      expect(error!.message).to.contain('postgresql://service:***@127.0.0.1:1/auth');
      expect(error!.message).not.to.contain('hunter2');
      // Requests are answered, not left hanging, and say nothing of the cause.
      const response = await request(app).get('/service-auth/me').expect(503);
      expect(response.body).to.include({ code: 'unavailable' });
      expect(JSON.stringify(response.body)).not.to.contain('127.0.0.1');
      expect(log.text()).not.to.contain('hunter2');
    } finally {
      await auth.close();
    }
  });

  it('leaves the schema alone when SERVICE_AUTH_AUTO_MIGRATE is false', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'service-auth-'));
    const url = `sqlite:${join(dir, 'auth.sqlite')}`;
    try {
      const app = express();
      app.set('SERVICE_AUTH_DATABASE_URL', url);
      app.set('SERVICE_AUTH_AUTO_MIGRATE', 'False');
      const auth = new ServiceAuth(app);
      await auth.ready;
      await auth.close();
      const orm = await MikroORM.init(await ormOptions(url));
      try {
        expect((await migrationsOf(orm).pending()).length).to.equal(MIGRATION_NAMES.length);
      } finally {
        await orm.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('closes before ready settled, leaving nothing open', async () => {
    // Handles and ref'd timers: what would keep a process (the CLI, a test run) alive. Taken after a
    // turn of the event loop, once mocha has armed this test's own timeout.
    await new Promise((resolve) => setImmediate(resolve));
    const before = process.getActiveResourcesInfo();
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
    // A Redis that refuses: a connection being retried, with its timers, when close() is called.
    app.set('SERVICE_AUTH_REDIS_URL', 'redis://127.0.0.1:1');
    const auth = new ServiceAuth(app);
    auth.logger = captureLogger();
    for (
      const deadline = Date.now() + 5000;
      process.getActiveResourcesInfo().length <= before.length && Date.now() < deadline;
    )
      await new Promise((resolve) => setImmediate(resolve));
    expect(process.getActiveResourcesInfo().length, 'something is open while it runs').to.be.above(before.length);
    await auth.close();
    await auth.ready;
    // Nothing of its own left open: no kind of resource more numerous than before it was made. Not
    // the same list: work of an earlier test in this process (a socket's close, a timer) may end
    // meanwhile, and a busy machine lets it end at any turn of the loop.
    const surplus = () => {
      const count = (list: string[]) =>
        list.reduce((counts, kind) => counts.set(kind, (counts.get(kind) ?? 0) + 1), new Map<string, number>());
      const was = count(before);
      return [...count(process.getActiveResourcesInfo())]
        .filter(([kind, n]) => n > (was.get(kind) ?? 0))
        .map(([kind, n]) => `${kind} ×${n - (was.get(kind) ?? 0)}`);
    };
    await new Promise((resolve) => setImmediate(resolve));
    expect(surplus()).to.deep.equal([]);
  });

  it('closes more than once without error', async () => {
    const { auth } = await createTestApp();
    await auth.close();
    await auth.close();
  });

  describe('error responses', () => {
    it('never sends a stack trace or internal message with a 500', async () => {
      const { app, auth, log } = await createTestApp({}, (app) => {
        app.get('/boom', () => {
          throw new Error('SELECT secret FROM internals failed at /srv/app.js:12');
        });
        app.get('/known', () => {
          throw new AuthError('forbidden', 'Not yours');
        });
      });
      try {
        const response = await request(app).get('/boom').expect(500);
        expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
        expect(response.body).to.deep.equal({
          type: 'about:blank',
          title: 'Internal Server Error',
          status: 500,
          detail: 'An unexpected error occurred',
          code: 'internal_error',
        });
        expect(log.text()).to.contain('SELECT secret FROM internals');
        await request(app).get('/known').expect(403, {
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
          detail: 'Not yours',
          code: 'forbidden',
        });
      } finally {
        await auth.close();
      }
    });

    it('logs a database error without its statement, whose values may be password hashes', async () => {
      const { app, auth, log } = await createTestApp({}, (app) => {
        app.get('/db', () => {
          const driverError = Object.assign(
            new Error(
              "insert into `service_auth_users` (`password_hash`) values ('$argon2id$v=19$m=19456,p=1,t=2$c2FsdA$aGFzaA') - SQLITE_IOERR: disk I/O error",
            ),
            { code: 'SQLITE_IOERR' },
          );
          throw new DriverException(driverError);
        });
      });
      try {
        const response = await request(app).get('/db').expect(500);
        expect(response.body.code).to.equal('internal_error');
        expect(log.text()).to.contain('SQLITE_IOERR: disk I/O error');
        expect(log.text()).not.to.contain('argon2id').and.not.to.contain('insert into');
      } finally {
        await auth.close();
      }
    });
  });
});
