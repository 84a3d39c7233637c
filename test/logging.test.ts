/**
 * `auth.logger` takes the console, pino and winston as they are (real instances writing to memory,
 * not look-alikes), and every one of them keeps an error's message and stack frames.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import request from 'supertest';
import winston from 'winston';
import { consoleLogger, type Logger } from '../src/index.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from './helpers/app.js';

/** A stack frame of this file, as the line of a stack trace shows it. */
const FRAME_OF_THIS_FILE = /^\s+at .*logging\.test\.ts:\d+:\d+/m;

interface Sink {
  logger: Logger;
  /** What the logger wrote, each record's message (pino's `msg`, winston's `message`) in full. */
  text(): string;
  /** Puts back whatever the sink replaced. */
  restore(): void;
}

/** Everything written to a PassThrough, as text. */
function memoryStream(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  let written = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => (written += chunk));
  return { stream, text: () => written };
}

/** The messages of JSON lines (pino's and winston's output). */
function jsonMessages(output: string, field: 'msg' | 'message'): string {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => String((JSON.parse(line) as Record<string, unknown>)[field]))
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
    return { logger: pino({ level: 'info' }, memory.stream), text: () => jsonMessages(memory.text(), 'msg'), restore: () => undefined };
  },
  'winston 3': () => {
    const memory = memoryStream();
    const logger = winston.createLogger({ level: 'info', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: memory.stream })] });
    return { logger, text: () => jsonMessages(memory.text(), 'message'), restore: () => undefined };
  },
};

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
  /** A request to a route of the application that throws `new Error(message)`. */
  const kaboom = async (): Promise<string> => {
    const message = `kaboom-${randomUUID()}`;
    await request(t.app).get(`/boom/${message}`).expect(500);
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
    });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const login = await request(t.app).post('/service-auth/login').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
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
});
