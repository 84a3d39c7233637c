/**
 * `auth.logger` takes the console, pino and winston as they are (real instances writing to memory,
 * not look-alikes), and every one of them keeps an error's message and stack frames: pino and
 * winston as structures (the error, the request's method, path and id), the console as one entry.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { DriverException } from '@mikro-orm/core';
import { expect } from 'chai';
import { pino } from 'pino';
import request from 'supertest';
import winston from 'winston';
import { consoleLogger, type Logger } from '../src/index.js';
import { partsOf } from '../src/instance-registry.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from './helpers/app.js';

const SECRET_VALUE = 'hash-that-must-not-be-logged';

/** A stack frame of this file, as the line of a stack trace shows it. */
const FRAME_OF_THIS_FILE = /^\s+at .*logging\.test\.ts:\d+:\d+/m;

interface Sink {
  logger: Logger;
  /** What the logger wrote: each record's message (pino's `msg`, winston's `message`) and its error's message and stack. */
  text(): string;
  /** Puts back whatever the sink replaced. */
  restore(): void;
  /** A JSON logger's records (pino's and winston's), as written. */
  records?(): JsonRecord[];
}

/** Everything written to a PassThrough, as text. */
function memoryStream(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  let written = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => (written += chunk));
  return { stream, text: () => written };
}

type JsonRecord = Record<string, unknown> & {
  err?: { type?: string; name?: string; message?: string; stack?: string };
  req?: unknown;
};

/** The records of JSON lines (pino's and winston's output). */
function jsonRecords(output: string): JsonRecord[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JsonRecord);
}

/** The messages of JSON lines, each with its error's message and stack. */
function jsonMessages(output: string, field: 'msg' | 'message'): string {
  return jsonRecords(output)
    .map((record) =>
      [record[field], record.err?.message, record.err?.stack].filter((part) => part !== undefined).join('\n'),
    )
    .join('\n');
}

/**
 * What the global console writes to stderr, for as long as the sink is in place. The console
 * looks `write` up on process.stderr for every line, so replacing it there catches what
 * `console.error` (and the package's default logger, which calls it) prints.
 */
function stderrSink(logger: Logger): Sink {
  const original = Object.getOwnPropertyDescriptor(process.stderr, 'write');
  let written = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  return {
    logger,
    text: () => written,
    restore: () => {
      if (original) Object.defineProperty(process.stderr, 'write', original);
      else delete (process.stderr as { write?: unknown }).write;
    },
  };
}

const LOGGERS: Record<string, () => Sink> = {
  'the global console': () => stderrSink(console),
  'the default logger (console with a prefix)': () => stderrSink(consoleLogger),
  'pino 10': () => {
    const memory = memoryStream();
    return {
      logger: pino({ level: 'info' }, memory.stream),
      text: () => jsonMessages(memory.text(), 'msg'),
      records: () => jsonRecords(memory.text()),
      restore: () => undefined,
    };
  },
  'winston 3': () => {
    const memory = memoryStream();
    const logger = winston.createLogger({
      level: 'info',
      format: winston.format.json(),
      transports: [new winston.transports.Stream({ stream: memory.stream })],
    });
    return {
      logger,
      text: () => jsonMessages(memory.text(), 'message'),
      records: () => jsonRecords(memory.text()),
      restore: () => undefined,
    };
  },
};

/** Waits (up to a deadline) until a JSON sink holds `count` records; winston writes on a later tick. */
async function pollRecords(sink: Sink, count: number): Promise<JsonRecord[]> {
  const deadline = Date.now() + 5000;
  while (sink.records!().length < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return sink.records!();
}

/** Waits (up to a deadline) until the sink's text passes `check`; winston writes on a later tick. */
async function logged(sink: Sink, check: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 5000;
  while (!check(sink.text()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return sink.text();
}

describe('auth.logger with the console, pino and winston', () => {
  let t: TestApp;
  let cookie: string;
  const sinks: Sink[] = [];
  const use = (make: () => Sink): Sink => {
    const sink = make();
    sinks.push(sink);
    t.auth.logger = sink.logger;
    return sink;
  };
  /** A request to a route of the application that throws `new Error(message)`; `requestId` is sent as X-Request-Id. */
  const kaboom = async (requestId?: string): Promise<string> => {
    const message = `kaboom-${randomUUID()}`;
    const call = request(t.app).get(`/boom/${message}`);
    await (requestId === undefined ? call : call.set('X-Request-Id', requestId)).expect(500);
    return message;
  };

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false }, (app, auth) => {
      app.get('/boom/:message', (req) => {
        throw new Error(req.params['message']);
      });
      auth.definePolicy('p', () => {
        throw new Error('policy-bug');
      });
      app.get('/guarded', auth.require({ policy: 'p' }), (_req, res) => {
        res.json({ ok: true });
      });
      // A database error whose statement carries a value (as a password or token hash would be).
      const failingQuery = async () =>
        (await partsOf(auth).storage.em()).execute(`select * from no_such_table where hash = '${SECRET_VALUE}'`);
      app.get('/db-boom', failingQuery);
      app.get('/db-boom-wrapped', async () => {
        await failingQuery().catch((cause: unknown) => {
          throw new Error('the report could not be read', { cause });
        });
      });
      app.get('/own-cause', () => {
        const error = new Error('its own cause');
        error.cause = error;
        throw error;
      });
      // As pino-http and express-request-id do.
      app.get('/with-id/:message', (req, _res, next) => {
        (req as { id?: unknown }).id = 'id-from-middleware';
        next(new Error(req.params['message']));
      });
    });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const login = await request(t.app)
      .post('/service-auth/login')
      .send({ email: 'ada@example.com', password: PASSWORD })
      .expect(200);
    cookie = sessionCookieFrom(login)!;
  });
  afterEach(() => {
    for (const sink of sinks.splice(0)) sink.restore();
    t.auth.logger = t.log;
  });
  after(async () => {
    await t.auth.close();
  });

  for (const [name, make] of Object.entries(LOGGERS)) {
    describe(name, () => {
      it("logs an application route's error with its message and the stack frame where it was thrown", async () => {
        const sink = use(make);
        const message = await kaboom();
        const text = await logged(sink, (output) => output.includes(message));
        sink.restore();
        expect(text).to.contain(message);
        expect(text).to.match(FRAME_OF_THIS_FILE);
        expect(t.log.text()).not.to.contain(message);
      });

      it('logs a policy that throws, with its message, and denies the request', async () => {
        const sink = use(make);
        const response = await request(t.app).get('/guarded').set('Cookie', cookie).expect(403);
        expect(response.body.code).to.equal('forbidden');
        const text = await logged(sink, (output) => output.includes('policy-bug'));
        sink.restore();
        expect(text).to.contain('policy "p"');
        expect(text).to.contain('policy-bug');
        expect(text).to.match(FRAME_OF_THIS_FILE);
      });
    });
  }

  it('writes the default logger\'s lines with the "[service-auth]" prefix', async () => {
    const sink = use(LOGGERS['the default logger (console with a prefix)']!);
    const message = await kaboom();
    const text = await logged(sink, (output) => output.includes(message));
    sink.restore();
    expect(text).to.match(new RegExp(`^\\[service-auth\\] .*${message}`, 'm'));
  });

  it('sends later lines to a logger assigned after construction, and none of them to the one it replaced', async () => {
    // createTestApp assigned its capture logger after construction; replace it twice more.
    const first = await kaboom();
    expect(t.log.text()).to.contain(first);

    const pinoSink = use(LOGGERS['pino 10']!);
    const second = await kaboom();
    expect(await logged(pinoSink, (output) => output.includes(second))).to.contain(second);

    const winstonSink = use(LOGGERS['winston 3']!);
    const third = await kaboom();
    expect(await logged(winstonSink, (output) => output.includes(third))).to.contain(third);

    expect(t.log.text()).not.to.contain(second);
    expect(t.log.text()).not.to.contain(third);
    expect(pinoSink.text()).not.to.contain(third);
    expect(winstonSink.text()).not.to.contain(second);
  });

  describe('pino and winston get the error and the request as structures', () => {
    for (const [name, levelOfError] of [
      ['pino 10', 50],
      ['winston 3', 'error'],
    ] as const) {
      it(`${name}: the error with its type, message and stack, and the request's method, path and id`, async () => {
        const sink = use(LOGGERS[name]!);
        const message = await kaboom('req-7f3a');
        await logged(sink, (output) => output.includes(message));
        const [record, ...others] = sink.records!();
        expect(others).to.deep.equal([]);
        expect(record!['level']).to.equal(levelOfError);
        expect(record![name === 'pino 10' ? 'msg' : 'message']).to.equal(
          `unexpected error in GET "/boom/${message}" (request "req-7f3a")`,
        );
        expect(record!.err).to.include({ message });
        expect(record!.err![name === 'pino 10' ? 'type' : 'name']).to.equal('Error');
        expect(record!.err!.stack)
          .to.match(new RegExp(`^Error: ${message}\n`))
          .and.to.match(FRAME_OF_THIS_FILE);
        expect(record!.req).to.deep.equal({ method: 'GET', path: `/boom/${message}`, id: 'req-7f3a' });
      });

      it(`${name}: takes the request's id from req.id (pino-http, express-request-id) first, and no X-Request-Id that is not a plain token`, async () => {
        const sink = use(LOGGERS[name]!);
        await request(t.app).get('/with-id/first').set('X-Request-Id', 'from-header').expect(500);
        await request(t.app).get('/boom/second').set('X-Request-Id', 'has space"and quote').expect(500);
        const records = await pollRecords(sink, 2);
        expect(records.map((record) => record.req)).to.deep.equal([
          { method: 'GET', path: '/with-id/first', id: 'id-from-middleware' },
          { method: 'GET', path: '/boom/second' },
        ]);
      });

      it(`${name}: a database error keeps the driver's message and its frames, never the statement's values, even as a cause`, async () => {
        const sink = use(LOGGERS[name]!);
        await request(t.app).get('/db-boom').expect(500);
        await request(t.app).get('/db-boom-wrapped').expect(500);
        const records = await pollRecords(sink, 2);
        const written = JSON.stringify(records);
        expect(written).not.to.contain(SECRET_VALUE);
        expect(written).not.to.contain('no_such_table where');
        const [direct, wrapped] = records;
        // sqlite3's words on MikroORM 6, node:sqlite's on 7: `(ERR_SQLITE_ERROR) no such table: …`.
        expect(direct!.err!.message).to.match(
          /^\((ERR_)?SQLITE_ERROR\) (SQLITE_ERROR: )?no such table: no_such_table$/,
        );
        expect(direct!.err!.stack)
          .to.match(/^TableNotFoundException: \((ERR_)?SQLITE_ERROR\)/)
          .and.to.match(/^\s+at /m);
        expect(written).to.contain('the report could not be read');
        expect(JSON.stringify(wrapped)).to.contain('no such table: no_such_table');
      });

      it(`${name}: an error that is its own cause is logged once, not followed for ever`, async () => {
        const sink = use(LOGGERS[name]!);
        await request(t.app).get('/own-cause').expect(500);
        const [record, ...others] = await pollRecords(sink, 1);
        expect(others).to.deep.equal([]);
        expect(record!.err!.message).to.match(/^its own cause/);
      });
    }

    it("winston's formats see an Error of the thrown class in info.err, with its stack", async () => {
      const seen: Record<string, unknown>[] = [];
      const keep = winston.format((info) => {
        seen.push(info);
        return info;
      });
      const memory = memoryStream();
      t.auth.logger = winston.createLogger({
        format: winston.format.combine(keep(), winston.format.json()),
        transports: [new winston.transports.Stream({ stream: memory.stream })],
      });
      await request(t.app).get('/db-boom').expect(500);
      const message = await kaboom();
      const deadline = Date.now() + 5000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      const [database, thrown] = seen.map((info) => info['err']);
      expect(thrown).to.be.instanceOf(Error).and.include({ message });
      expect((thrown as Error).stack).to.match(FRAME_OF_THIS_FILE);
      expect(database).to.be.instanceOf(DriverException);
      expect((database as Error).message).not.to.contain(SECRET_VALUE);
    });

    it('the console gets one entry: the line, the request, the error and its stack frames, each frame on a line of its own', async () => {
      const sink = use(LOGGERS['the default logger (console with a prefix)']!);
      const message = await kaboom('req-42');
      const text = await logged(sink, (output) => output.includes(message));
      sink.restore();
      const lines = text.trimEnd().split('\n');
      expect(lines[0]).to.equal(
        `[service-auth] unexpected error in GET "/boom/${message}" (request "req-42"): Error: ${message}`,
      );
      expect(lines.slice(1).length).to.be.greaterThan(0);
      for (const line of lines.slice(1)) expect(line).to.match(/^\s+at /);
    });
  });
});
