/**
 * An error that carries an entity reaches no log line with it. MikroORM's ValidationError keeps
 * the entity it is about (`error.entity`), and its "is required" message prints the whole entity
 * (`inspect(entity)`): a user's password hash with it. Provoked for real (a route flushes a copy of
 * a user's row without its email), directly and as a cause, with real pino 10 and winston 3
 * loggers and a logger of plain lines.
 */
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import request from 'supertest';
import winston from 'winston';
import { type Logger } from '../src/index.js';
import { partsOf } from '../src/instance-registry.js';
import { User } from '../src/storage/entities/index.js';
import { captureLogger, createTestApp, PASSWORD, type TestApp } from './helpers/app.js';

function memoryStream(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  let written = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => (written += chunk));
  return { stream, text: () => written };
}

const LOGGERS: Record<string, () => { logger: Logger; text(): string }> = {
  'pino 10': () => {
    const memory = memoryStream();
    return { logger: pino({ level: 'info' }, memory.stream), text: memory.text };
  },
  'winston 3': () => {
    const memory = memoryStream();
    const logger = winston.createLogger({
      level: 'info',
      format: winston.format.json(),
      transports: [new winston.transports.Stream({ stream: memory.stream })],
    });
    return { logger, text: memory.text };
  },
  'a logger of lines': () => {
    const log = captureLogger();
    return { logger: log, text: log.text };
  },
};

describe('errors that carry entities, in the log', () => {
  let t: TestApp;
  let hash: string;

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      // An application's bug: a copy of a user flushed without its email (MikroORM's ValidationError, the entity in it).
      const invalidFlush = async () => {
        const em = (await partsOf(auth).storage.em()).fork();
        const user = await em.findOneOrFail(User, { email: 'ada@example.com' });
        em.create(User, { passwordHash: user.passwordHash } as never);
        await em.flush();
      };
      app.get('/invalid-entity', invalidFlush);
      app.get('/invalid-entity-wrapped', async () => {
        await invalidFlush().catch((cause: unknown) => {
          throw new Error('the profile could not be saved', { cause });
        });
      });
    });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const em = (await t.parts.storage.em()).fork();
    hash = (await em.findOneOrFail(User, { email: 'ada@example.com' })).passwordHash;
    expect(hash).to.have.length.greaterThan(20);
  });
  after(() => t.auth.close());

  for (const [name, make] of Object.entries(LOGGERS)) {
    it(`${name}: logs the error's class, its first line and its frames, never the entity (nor its password hash)`, async () => {
      const sink = make();
      t.auth.logger = sink.logger;
      try {
        await request(t.app).get('/invalid-entity').expect(500);
        await request(t.app).get('/invalid-entity-wrapped').expect(500);
        const deadline = Date.now() + 5000;
        while (!sink.text().includes('the profile could not be saved') && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
        const text = sink.text();
        expect(text)
          .to.contain('ValidationError')
          .and.to.contain('Value for User.email is required')
          .and.to.contain('the profile could not be saved');
        expect(text).not.to.contain(hash);
        expect(text).not.to.contain(hash.slice(0, 20));
        expect(text).not.to.match(/passwordHash/);
      } finally {
        t.auth.logger = t.log;
      }
    });
  }
});
