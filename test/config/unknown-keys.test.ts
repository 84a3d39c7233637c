/**
 * Mistyped configuration keys are reported instead of leaving a default in force silently; the
 * list of known keys is the list `readConfig` reads; database URLs never show a password.
 */
import { expect } from 'chai';
import express from 'express';
import { readConfig } from '../../src/config/read-config.js';
import type { ConfigSource } from '../../src/config/source.js';
import { redactUrl } from '../../src/config/redact.js';
import { CONFIG_KEYS } from '../../src/config/unknown-keys.js';
import { ConfigError, ServiceAuth } from '../../src/index.js';
import { captureLogger } from '../helpers/app.js';

type Log = ReturnType<typeof captureLogger>;

/**
 * Constructs a ServiceAuth with these settings (and, for as long as the construction lasts, these
 * environment variables), assigns a capturing logger right after the constructor returns, waits
 * for it to start, and closes it.
 */
async function construct(settings: Record<string, unknown>, env: Record<string, string> = {}): Promise<Log> {
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
  for (const [key, value] of Object.entries(settings)) app.set(key, value);
  for (const [key, value] of Object.entries(env)) process.env[key] = value;
  let auth: ServiceAuth;
  try {
    auth = new ServiceAuth(app);
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
  }
  const log = captureLogger();
  auth.logger = log;
  try {
    await auth.ready;
  } finally {
    await auth.close();
  }
  return log;
}

/** The lines that report this key as unknown (not those that merely suggest it). */
function unknownKeyWarnings(log: Log, key: string): string[] {
  const reported = new RegExp(`\\b${key}\\b`);
  return log.entries
    .filter((entry) => reported.test(entry.message.split('did you mean')[0]!))
    .map((entry) => `${entry.level} ${entry.message}`);
}

describe('configuration: unknown SERVICE_AUTH_* keys', () => {
  it("warns once about a mistyped key in the application's settings, naming the nearest known key", async () => {
    const log = await construct({ SERVICE_AUTH_DATABSE_URL: 'sqlite:elsewhere.sqlite' });
    const warnings = unknownKeyWarnings(log, 'SERVICE_AUTH_DATABSE_URL');
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/^warn /);
    expect(warnings[0]).to.contain("application's settings");
    expect(warnings[0]).to.contain('did you mean SERVICE_AUTH_DATABASE_URL?');
  });

  it('warns once about a mistyped key in the environment, naming the nearest known key', async () => {
    const log = await construct({}, { SERVICE_AUTH_RATE_LIMT: '1 per minute' });
    expect(process.env['SERVICE_AUTH_RATE_LIMT']).to.equal(undefined);
    const warnings = unknownKeyWarnings(log, 'SERVICE_AUTH_RATE_LIMT');
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/^warn /);
    expect(warnings[0]).to.contain('environment');
    expect(warnings[0]).to.contain('did you mean SERVICE_AUTH_RATE_LIMIT?');
  });

  it('warns once about a key that is mistyped both in the settings and in the environment', async () => {
    const log = await construct({ SERVICE_AUTH_SESION_TTL: 60 }, { SERVICE_AUTH_SESION_TTL: '60' });
    const warnings = unknownKeyWarnings(log, 'SERVICE_AUTH_SESION_TTL');
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('did you mean SERVICE_AUTH_SESSION_TTL?');
  });

  it("says nothing about known keys, nor about the test and benchmark suites' SERVICE_AUTH_TEST_* and SERVICE_AUTH_BENCH_* keys", async () => {
    const log = await construct(
      {
        SERVICE_AUTH_MIN_PASSWORD_LENGTH: 14,
        SERVICE_AUTH_RATE_LIMIT_ENABLED: false,
        SERVICE_AUTH_TEST_FIXTURE: 'x',
        SERVICE_AUTH_BENCH_USERS: 10,
      },
      { SERVICE_AUTH_SESSION_TTL: '3600', SERVICE_AUTH_TEST_SCRATCH: 'x', SERVICE_AUTH_BENCH_DURATION: '5' },
    );
    const named = [
      'MIN_PASSWORD_LENGTH',
      'RATE_LIMIT_ENABLED',
      'TEST_FIXTURE',
      'BENCH_USERS',
      'SESSION_TTL',
      'TEST_SCRATCH',
      'BENCH_DURATION',
    ];
    for (const key of [...named, 'DATABASE_URL'])
      expect(unknownKeyWarnings(log, `SERVICE_AUTH_${key}`), key).to.deep.equal([]);
  });

  it('knows exactly the keys readConfig reads', () => {
    for (const environment of ['development', 'production']) {
      const asked = new Set<string>();
      const recording: ConfigSource = {
        get(key) {
          asked.add(key);
          return key === 'SERVICE_AUTH_PUBLIC_URL' ? 'https://app.example.com' : undefined;
        },
      };
      readConfig(recording, environment);
      expect([...asked].sort(), environment).to.deep.equal([...new Set(CONFIG_KEYS)].sort());
    }
    expect(new Set(CONFIG_KEYS).size, 'no key listed twice').to.equal(CONFIG_KEYS.length);
  });
});

describe('configuration: passwords in database URLs', () => {
  it('hides a password in the user part of a URL', () => {
    const redacted = redactUrl('postgresql://u:secret@h/db');
    expect(redacted).not.to.contain('secret');
    expect(redacted).to.contain('u:***@h/db');
  });

  it('hides a password in the query string like one in the user part, keeping the other parameters', () => {
    const redacted = redactUrl('postgresql://h/db?password=secret&sslmode=require');
    expect(redacted).not.to.contain('secret');
    expect(new URL(redacted).searchParams.get('sslmode')).to.equal('require');
    expect(new URL(redacted).searchParams.get('password')).to.not.equal('secret');
  });

  it("hides libpq's sslpassword in the query string", () => {
    const redacted = redactUrl('postgresql://h/db?sslpassword=x');
    expect(redacted).not.to.contain('sslpassword=x');
    expect(new URL(redacted).searchParams.get('sslpassword')).to.not.equal('x');
    expect(new URL(redacted).searchParams.has('sslpassword')).to.equal(true);
  });

  it('hides it too in a URL that does not parse', () => {
    for (const url of ['postgresql://u:secret@h:port/db', 'postgresql://h:port/db?password=secret&sslmode=require']) {
      expect(redactUrl(url), url).not.to.contain('secret');
    }
  });

  it('leaves the query-string password out of the ConfigError for an invalid SERVICE_AUTH_DATABASE_URL', () => {
    for (const url of [
      'mysql://h/db?password=hunter2',
      'postgresql://h:notaport/db?password=hunter2',
      'postgresql://u:hunter2@h:notaport/db',
    ]) {
      const app = express();
      app.set('SERVICE_AUTH_DATABASE_URL', url);
      let error: unknown;
      try {
        new ServiceAuth(app);
      } catch (thrown) {
        error = thrown;
      }
      expect(error, url).to.be.instanceOf(ConfigError);
      const configError = error as ConfigError;
      expect(configError.key).to.equal('SERVICE_AUTH_DATABASE_URL');
      expect(configError.message, url).not.to.contain('hunter2');
      expect(String(configError.value), url).not.to.contain('hunter2');
      expect(configError.stack ?? '', url).not.to.contain('hunter2');
    }
  });

  it('leaves the query-string password out of the failed start (auth.ready) and its log line', async () => {
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', 'postgresql://127.0.0.1:1/db?password=hunter2');
    const auth = new ServiceAuth(app);
    const log = captureLogger();
    auth.logger = log;
    try {
      const error = await auth.ready.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.contain('127.0.0.1:1');
      expect((error as Error).message).not.to.contain('hunter2');
      // The same failure is logged where ready may never be awaited.
      await new Promise((resolve) => setImmediate(resolve));
      expect(log.text()).not.to.contain('hunter2');
    } finally {
      await auth.close();
    }
  });
});
