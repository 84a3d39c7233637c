import { expect } from 'chai';
import express from 'express';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, ServiceAuth } from '../src/index.js';
import type { AuthConfig } from '../src/config/config.js';
import { readConfig } from '../src/config/read-config.js';
import { sourceFrom } from '../src/config/source.js';

function configWith(
  values: Record<string, unknown>,
  environment = 'development',
  env: NodeJS.ProcessEnv = {},
): AuthConfig {
  const app = express();
  for (const [key, value] of Object.entries(values)) app.set(key, value);
  return readConfig(sourceFrom(app, env), environment);
}

function rejection(values: Record<string, unknown>, environment = 'development'): ConfigError {
  try {
    configWith(values, environment);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(values)}`);
}

describe('configuration', () => {
  describe('sources', () => {
    it('reads app.get(KEY) before process.env[KEY] before the default', () => {
      expect(configWith({}).passwords.minLength).to.equal(12);
      expect(configWith({}, 'development', { SERVICE_AUTH_MIN_PASSWORD_LENGTH: '14' }).passwords.minLength).to.equal(
        14,
      );
      expect(
        configWith({ SERVICE_AUTH_MIN_PASSWORD_LENGTH: 16 }, 'development', { SERVICE_AUTH_MIN_PASSWORD_LENGTH: '14' })
          .passwords.minLength,
      ).to.equal(16);
    });

    it('treats an empty environment variable as unset', () => {
      expect(configWith({}, 'development', { SERVICE_AUTH_REDIS_URL: '' }).redisUrl).to.equal(undefined);
    });

    it('has the documented defaults', () => {
      const config = configWith({});
      expect(config.urlPrefix).to.equal('/service-auth');
      expect(config.databaseUrl).to.equal('sqlite:service-auth.sqlite');
      expect(config.autoMigrate).to.equal(true);
      expect(config.redisUrl).to.equal(undefined);
      expect(config.rateLimit.enabled).to.equal(true);
      expect(config.rateLimit.login.text).to.equal('10 per minute');
      expect(config.rateLimit.register.text).to.equal('3 per minute');
      expect(config.rateLimit.forgotPassword.text).to.equal('3 per minute');
      expect(config.rateLimit.resetPassword.text).to.equal('3 per minute');
      expect(config.rateLimit.loginFailures.text).to.equal('5 per minute');
      expect(config.rateLimit.tokenFailures.text).to.equal('30 per minute');
      expect(config.rateLimit.secondFactorFailures.text).to.equal('10 per day');
      expect(config.bodyTimeoutMs).to.equal(10_000);
      expect(config.passwords).to.deep.equal({ minLength: 12, maxLength: 256, complexity: true, blocklist: false });
      expect(config.tokens).to.deep.equal({
        prefix: 'sat',
        defaultExpiryDays: 90,
        maxExpiryDays: 365,
        maxPerUser: 100,
        revokeOnPasswordReset: true,
      });
      expect(config.sessions).to.deep.equal({
        cookieName: 'service_auth_session',
        ttlSeconds: 1_209_600,
        secure: false,
        maxPerUser: 50,
        impersonationTtlSeconds: 3600,
      });
      expect(config.resetTokenTtlSeconds).to.equal(3600);
      expect(config.mail).to.deep.equal({ outbox: undefined, smtpUrl: undefined, from: 'no-reply@localhost' });
      expect(config.orgs).to.deep.equal({
        ownerRoles: ['owner'],
        creation: 'anyone',
        invitationTtlSeconds: 604_800,
        maxOwnedPerUser: 50,
      });
    });
  });

  describe('booleans', () => {
    const keys = [
      'SERVICE_AUTH_AUTO_MIGRATE',
      'SERVICE_AUTH_RATE_LIMIT_ENABLED',
      'SERVICE_AUTH_PASSWORD_COMPLEXITY_ENABLED',
      'SERVICE_AUTH_PASSWORD_BLOCKLIST_ENABLED',
      'SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET',
      'SERVICE_AUTH_SESSION_COOKIE_SECURE',
    ];
    const read = (config: AuthConfig, key: string): boolean =>
      ({
        SERVICE_AUTH_AUTO_MIGRATE: config.autoMigrate,
        SERVICE_AUTH_RATE_LIMIT_ENABLED: config.rateLimit.enabled,
        SERVICE_AUTH_PASSWORD_COMPLEXITY_ENABLED: config.passwords.complexity,
        SERVICE_AUTH_PASSWORD_BLOCKLIST_ENABLED: config.passwords.blocklist,
        SERVICE_AUTH_REVOKE_TOKENS_ON_PASSWORD_RESET: config.tokens.revokeOnPasswordReset,
        SERVICE_AUTH_SESSION_COOKIE_SECURE: config.sessions.secure,
      })[key]!;

    for (const key of keys) {
      it(`${key} accepts true/false, True/False, 1/0, yes/no and JS booleans`, () => {
        for (const yes of ['true', 'True', 'TRUE', '1', 'yes', 'YES', true])
          expect(read(configWith({ [key]: yes }), key), String(yes)).to.equal(true);
        for (const no of ['false', 'False', '0', 'no', 'No', false])
          expect(read(configWith({ [key]: no }), key), String(no)).to.equal(false);
      });

      it(`${key} rejects anything else, naming key, value and form`, () => {
        for (const bad of ['maybe', 'on', '2', '']) {
          const error = rejection({ [key]: bad });
          expect(error.key).to.equal(key);
          expect(error.message).to.contain(key).and.contain(JSON.stringify(bad)).and.contain('true/false');
        }
      });
    }

    it('makes the cookie Secure by default in production only', () => {
      expect(configWith({ SERVICE_AUTH_PUBLIC_URL: 'https://example.com' }, 'production').sessions.secure).to.equal(
        true,
      );
      expect(configWith({}, 'development').sessions.secure).to.equal(false);
    });
  });

  describe('integers', () => {
    const cases: [string, (c: AuthConfig) => number, unknown[], unknown[]][] = [
      [
        'SERVICE_AUTH_MIN_PASSWORD_LENGTH',
        (c) => c.passwords.minLength,
        [1, '15', 20],
        [0, '-1', 'twelve', '1.5', 2.5, 1025],
      ],
      ['SERVICE_AUTH_MAX_PASSWORD_LENGTH', (c) => c.passwords.maxLength, [12, '64', 1000], [11, '0', 'many', 4097]],
      ['SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS', (c) => c.tokens.defaultExpiryDays, [1, '30', 365], [0, 366, 'soon']],
      [
        'SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS',
        (c) => c.tokens.maxExpiryDays,
        [90, '730', 3650],
        [0, '-5', 'forever', 3651],
      ],
      ['SERVICE_AUTH_MAX_TOKENS_PER_USER', (c) => c.tokens.maxPerUser, [1, '5'], [0, 'lots', 100_001]],
      ['SERVICE_AUTH_SESSION_TTL', (c) => c.sessions.ttlSeconds, [60, '3600'], [0, '1h', '-60', '99999999999999']],
      [
        'SERVICE_AUTH_MAX_SESSIONS_PER_USER',
        (c) => c.sessions.maxPerUser,
        [1, '50', 10_000],
        [0, 'many', 10_001, '2.5'],
      ],
      ['SERVICE_AUTH_RESET_TOKEN_TTL', (c) => c.resetTokenTtlSeconds, [300, '900'], [0, '15 minutes', 30 * 86_400 + 1]],
      ['SERVICE_AUTH_BODY_TIMEOUT_MS', (c) => c.bodyTimeoutMs, [1, '250', 300_000], [0, '10s', '1.5', 300_001]],
      [
        'SERVICE_AUTH_INVITATION_TTL',
        (c) => c.orgs.invitationTtlSeconds,
        [3600, '86400', 90 * 86_400],
        [0, '7 days', 90 * 86_400 + 1],
      ],
      [
        'SERVICE_AUTH_IMPERSONATION_TTL',
        (c) => c.sessions.impersonationTtlSeconds,
        [1, '3600', 86_400],
        [0, '1 hour', '-5', 86_401],
      ],
      ['SERVICE_AUTH_SSO_TIMEOUT', (c) => c.sso.timeoutSeconds, [1, '10', 120], [0, '10s', '-1', 121, '2.5']],
      [
        'SERVICE_AUTH_MAX_ORGS_PER_USER',
        (c) => c.orgs.maxOwnedPerUser,
        [1, '50', 1_000_000],
        [0, 'many', '-1', '2.5', 1_000_001],
      ],
    ];
    for (const [key, read, good, bad] of cases) {
      it(`${key} accepts numbers and decimal strings in range, and rejects others`, () => {
        for (const value of good) expect(read(configWith({ [key]: value }))).to.equal(Number(value));
        for (const value of bad) {
          const error = rejection({ [key]: value });
          expect(error.key).to.equal(key);
          expect(error.message).to.contain('an integer');
        }
      });
    }

    it('keeps the maximum password length at least the minimum, naming both keys', () => {
      const error = rejection({ SERVICE_AUTH_MIN_PASSWORD_LENGTH: 20, SERVICE_AUTH_MAX_PASSWORD_LENGTH: 19 });
      expect(error.key).to.equal('SERVICE_AUTH_MAX_PASSWORD_LENGTH');
      expect(error.message).to.contain('from 20 (SERVICE_AUTH_MIN_PASSWORD_LENGTH)');
      expect(configWith({ SERVICE_AUTH_MIN_PASSWORD_LENGTH: 300 }).passwords.maxLength).to.equal(300);
    });

    it('keeps the default token expiry within the maximum', () => {
      const error = rejection({ SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS: 30, SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS: 60 });
      expect(error.key).to.equal('SERVICE_AUTH_TOKEN_DEFAULT_EXPIRY_DAYS');
      expect(configWith({ SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS: 30 }).tokens.defaultExpiryDays).to.equal(30);
    });
  });

  describe('rates', () => {
    const rateKeys = [
      'SERVICE_AUTH_RATE_LIMIT',
      'SERVICE_AUTH_RATE_LIMIT_LOGIN',
      'SERVICE_AUTH_RATE_LIMIT_REGISTER',
      'SERVICE_AUTH_RATE_LIMIT_FORGOT_PASSWORD',
      'SERVICE_AUTH_RATE_LIMIT_RESET_PASSWORD',
      'SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES',
      'SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES',
      'SERVICE_AUTH_RATE_LIMIT_SECOND_FACTOR_FAILURES',
    ];
    it('parses "<count> per <unit>" and "<count>/<unit>" for every unit', () => {
      const login = (value: string) => configWith({ SERVICE_AUTH_RATE_LIMIT_LOGIN: value }).rateLimit.login;
      expect(login('10 per minute')).to.deep.equal({ points: 10, durationSeconds: 60, text: '10 per minute' });
      expect(login('5/second')).to.deep.equal({ points: 5, durationSeconds: 1, text: '5 per second' });
      expect(login('100 per hour').durationSeconds).to.equal(3600);
      expect(login('1000 / day').durationSeconds).to.equal(86_400);
      expect(login('3 PER Minute').points).to.equal(3);
    });

    for (const key of rateKeys) {
      it(`${key} rejects malformed rates and counts below 1`, () => {
        for (const bad of ['0 per minute', 'ten per minute', '10 per fortnight', '10', '10 minute', 10, '-1/second']) {
          const error = rejection({ [key]: bad });
          expect(error.key).to.equal(key);
          expect(error.message).to.contain('10 per minute');
        }
      });
    }

    it('gives each endpoint its own key, else SERVICE_AUTH_RATE_LIMIT, else its own default', () => {
      const defaults = configWith({}).rateLimit;
      expect([
        defaults.login.text,
        defaults.register.text,
        defaults.forgotPassword.text,
        defaults.resetPassword.text,
      ]).to.deep.equal(['10 per minute', '3 per minute', '3 per minute', '3 per minute']);

      const global = configWith({ SERVICE_AUTH_RATE_LIMIT: '50 per hour' }).rateLimit;
      expect([
        global.login.text,
        global.register.text,
        global.forgotPassword.text,
        global.resetPassword.text,
      ]).to.deep.equal(['50 per hour', '50 per hour', '50 per hour', '50 per hour']);

      const mixed = configWith({
        SERVICE_AUTH_RATE_LIMIT: '50 per hour',
        SERVICE_AUTH_RATE_LIMIT_REGISTER: '1 per day',
      }).rateLimit;
      expect(mixed.register.text).to.equal('1 per day');
      expect(mixed.login.text).to.equal('50 per hour');
    });

    it('SERVICE_AUTH_RATE_LIMIT_ORGS takes a rate or a count per minute (default 5 per minute), naming the key on a bad value', () => {
      const orgs = (value?: unknown) =>
        configWith(value === undefined ? {} : { SERVICE_AUTH_RATE_LIMIT_ORGS: value }).rateLimit.orgCreation;
      expect(orgs()).to.deep.equal({ points: 5, durationSeconds: 60, text: '5 per minute' });
      expect(configWith({ SERVICE_AUTH_RATE_LIMIT: '50 per hour' }).rateLimit.orgCreation.text).to.equal(
        '5 per minute',
      );
      expect(orgs('2').text).to.equal('2 per minute');
      expect(orgs(3).text).to.equal('3 per minute');
      expect(orgs('20 per hour').text).to.equal('20 per hour');
      for (const bad of ['0', 0, 'five', '2.5', 2.5, '-1', '5 per fortnight', true]) {
        const error = rejection({ SERVICE_AUTH_RATE_LIMIT_ORGS: bad });
        expect(error.key, String(bad)).to.equal('SERVICE_AUTH_RATE_LIMIT_ORGS');
        expect(error.message).to.match(/5 per minute|10 per minute/);
      }
    });

    it('does not apply SERVICE_AUTH_RATE_LIMIT to the failure counters', () => {
      const config = configWith({ SERVICE_AUTH_RATE_LIMIT: '50 per hour' }).rateLimit;
      expect(config.loginFailures.text).to.equal('5 per minute');
      expect(config.tokenFailures.text).to.equal('30 per minute');
      expect(config.secondFactorFailures.text).to.equal('10 per day');
      expect(
        configWith({ SERVICE_AUTH_RATE_LIMIT_TOKEN_FAILURES: '2/second' }).rateLimit.tokenFailures.points,
      ).to.equal(2);
    });
  });

  describe('URLs and paths', () => {
    it('SERVICE_AUTH_URL_PREFIX takes a path and drops a trailing slash', () => {
      expect(configWith({ SERVICE_AUTH_URL_PREFIX: '/auth' }).urlPrefix).to.equal('/auth');
      expect(configWith({ SERVICE_AUTH_URL_PREFIX: '/api/auth/' }).urlPrefix).to.equal('/api/auth');
      // "/" itself would make links like "//login", which browsers read as another host.
      for (const bad of ['auth', '', '/', '//', '//evil.example', '/a b', 5]) {
        expect(rejection({ SERVICE_AUTH_URL_PREFIX: bad }).key).to.equal('SERVICE_AUTH_URL_PREFIX');
      }
    });

    it('SERVICE_AUTH_DATABASE_URL takes sqlite and postgresql URLs', () => {
      // An SQLite file in a folder that exists (one that does not is refused: test/cli/database-path.test.ts).
      for (const good of [
        'sqlite:app.sqlite',
        'sqlite::memory:',
        `sqlite:${join(tmpdir(), 'auth.sqlite')}`,
        'postgresql://u@db:5432/app',
        'postgres://u:p@db/app',
      ]) {
        expect(configWith({ SERVICE_AUTH_DATABASE_URL: good }).databaseUrl).to.equal(good);
      }
      for (const bad of ['mysql://db/app', 'sqlite:', 'app.sqlite', 'postgresql://']) {
        expect(rejection({ SERVICE_AUTH_DATABASE_URL: bad }).message)
          .to.contain('SERVICE_AUTH_DATABASE_URL')
          .and.contain('sqlite:<path>');
      }
    });

    it('never repeats a database password in the error', () => {
      const error = rejection({ SERVICE_AUTH_DATABASE_URL: 'mysql://admin:hunter2@db/app' });
      expect(error.message).not.to.contain('hunter2');
    });

    it('SERVICE_AUTH_REDIS_URL takes redis:// and rediss://', () => {
      expect(configWith({ SERVICE_AUTH_REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl).to.equal(
        'redis://127.0.0.1:6379',
      );
      expect(configWith({ SERVICE_AUTH_REDIS_URL: 'rediss://cache.example:6380/1' }).redisUrl).to.equal(
        'rediss://cache.example:6380/1',
      );
      for (const bad of ['127.0.0.1:6379', 'http://cache', 'redis://'])
        expect(rejection({ SERVICE_AUTH_REDIS_URL: bad }).key).to.equal('SERVICE_AUTH_REDIS_URL');
    });

    it('SERVICE_AUTH_REDIS_PREFIX defaults to none and takes up to 64 letters, digits, _, :, . or -', () => {
      expect(configWith({}).redisPrefix).to.equal('');
      expect(configWith({ SERVICE_AUTH_REDIS_PREFIX: 'staging:' }).redisPrefix).to.equal('staging:');
      for (const bad of ['has space', 'x'.repeat(65), 'a*b'])
        expect(rejection({ SERVICE_AUTH_REDIS_PREFIX: bad }).key).to.equal('SERVICE_AUTH_REDIS_PREFIX');
    });

    it('SERVICE_AUTH_SECRET takes 32 characters or more, and a refusal never repeats the value', () => {
      expect(configWith({}).secret).to.equal(undefined);
      expect(configWith({ SERVICE_AUTH_SECRET: 's'.repeat(32) }).secret).to.equal('s'.repeat(32));
      const error = rejection({ SERVICE_AUTH_SECRET: 'hunter2-too-short' });
      expect(error.key).to.equal('SERVICE_AUTH_SECRET');
      expect(error.message).to.contain('17 characters').and.not.to.contain('hunter2');
      expect(rejection({ SERVICE_AUTH_SECRET: 42 }).message).to.contain('at least 32 characters');
    });

    it('SERVICE_AUTH_PUBLIC_URL takes an http(s) URL, defaulting to localhost:PORT outside production', () => {
      expect(configWith({ SERVICE_AUTH_PUBLIC_URL: 'https://app.example.com/' }).publicUrl).to.equal(
        'https://app.example.com',
      );
      expect(configWith({}).publicUrl).to.match(/^http:\/\/localhost:\d+$/);
      for (const bad of ['app.example.com', 'ftp://app.example.com', 'javascript:alert(1)']) {
        expect(rejection({ SERVICE_AUTH_PUBLIC_URL: bad }).key).to.equal('SERVICE_AUTH_PUBLIC_URL');
      }
    });

    it('requires SERVICE_AUTH_PUBLIC_URL in production, where no Host header may stand in for it', () => {
      const error = rejection({}, 'production');
      expect(error.key).to.equal('SERVICE_AUTH_PUBLIC_URL');
      expect(error.message).to.contain('production');
    });

    it('SERVICE_AUTH_INSECURE_FAST_HASHING is off by default and refused in production', () => {
      expect(configWith({}).insecureFastHashing).to.equal(false);
      expect(configWith({ SERVICE_AUTH_INSECURE_FAST_HASHING: 'true' }).insecureFastHashing).to.equal(true);
      const error = rejection(
        { SERVICE_AUTH_PUBLIC_URL: 'https://example.com', SERVICE_AUTH_INSECURE_FAST_HASHING: true },
        'production',
      );
      expect(error.key).to.equal('SERVICE_AUTH_INSECURE_FAST_HASHING');
      expect(error.message).to.contain('production');
      expect(
        configWith(
          { SERVICE_AUTH_PUBLIC_URL: 'https://example.com', SERVICE_AUTH_INSECURE_FAST_HASHING: false },
          'production',
        ).insecureFastHashing,
      ).to.equal(false);
    });

    it('SERVICE_AUTH_SMTP_URL takes smtp:// and smtps://', () => {
      expect(configWith({ SERVICE_AUTH_SMTP_URL: 'smtp://mail.example:25' }).mail.smtpUrl).to.equal(
        'smtp://mail.example:25',
      );
      expect(configWith({ SERVICE_AUTH_SMTP_URL: 'smtps://user:pw@mail.example' }).mail.smtpUrl).to.equal(
        'smtps://user:pw@mail.example',
      );
      const error = rejection({ SERVICE_AUTH_SMTP_URL: 'http://user:secret@mail.example' });
      expect(error.key).to.equal('SERVICE_AUTH_SMTP_URL');
      expect(error.message).not.to.contain('secret');
    });
  });

  describe('strings', () => {
    it('SERVICE_AUTH_TOKEN_PREFIX is 1 to 10 of [a-z0-9]', () => {
      expect(configWith({ SERVICE_AUTH_TOKEN_PREFIX: 'acme01' }).tokens.prefix).to.equal('acme01');
      for (const bad of ['', 'Acme', 'a_b', 'abcdefghijk', 'ü'])
        expect(rejection({ SERVICE_AUTH_TOKEN_PREFIX: bad }).key).to.equal('SERVICE_AUTH_TOKEN_PREFIX');
    });

    it('SERVICE_AUTH_SESSION_COOKIE is a cookie name', () => {
      expect(configWith({ SERVICE_AUTH_SESSION_COOKIE: 'sid' }).sessions.cookieName).to.equal('sid');
      for (const bad of ['', 'a b', 'a;b', 'a=b'])
        expect(rejection({ SERVICE_AUTH_SESSION_COOKIE: bad }).key).to.equal('SERVICE_AUTH_SESSION_COOKIE');
    });

    it('SERVICE_AUTH_MAIL_OUTBOX is a directory path', () => {
      expect(configWith({ SERVICE_AUTH_MAIL_OUTBOX: './outbox' }).mail.outbox).to.equal('./outbox');
      expect(rejection({ SERVICE_AUTH_MAIL_OUTBOX: '   ' }).key).to.equal('SERVICE_AUTH_MAIL_OUTBOX');
    });

    it('SERVICE_AUTH_ORG_OWNER_ROLES is one or more role names; SERVICE_AUTH_ORG_CREATION is anyone or admins', () => {
      expect(configWith({ SERVICE_AUTH_ORG_OWNER_ROLES: 'owner, admin' }).orgs.ownerRoles).to.deep.equal([
        'owner',
        'admin',
      ]);
      expect(configWith({ SERVICE_AUTH_ORG_OWNER_ROLES: ['founder'] }).orgs.ownerRoles).to.deep.equal(['founder']);
      for (const bad of ['', ' , ', 'has space', []])
        expect(rejection({ SERVICE_AUTH_ORG_OWNER_ROLES: bad }).key).to.equal('SERVICE_AUTH_ORG_OWNER_ROLES');
      expect(configWith({ SERVICE_AUTH_ORG_CREATION: 'admins' }).orgs.creation).to.equal('admins');
      for (const bad of ['', 'everyone', 'Admins', true])
        expect(rejection({ SERVICE_AUTH_ORG_CREATION: bad }).key).to.equal('SERVICE_AUTH_ORG_CREATION');
    });

    it('SERVICE_AUTH_MAIL_FROM is an address, optionally with a display name', () => {
      expect(configWith({ SERVICE_AUTH_MAIL_FROM: 'auth@example.com' }).mail.from).to.equal('auth@example.com');
      expect(configWith({ SERVICE_AUTH_MAIL_FROM: 'Example <auth@example.com>' }).mail.from).to.equal(
        'Example <auth@example.com>',
      );
      for (const bad of ['example.com', 'a@b@c', '<>'])
        expect(rejection({ SERVICE_AUTH_MAIL_FROM: bad }).key).to.equal('SERVICE_AUTH_MAIL_FROM');
    });
  });

  describe('at construction', () => {
    it('new ServiceAuth(app) throws ConfigError naming the key, and mounts nothing', () => {
      const app = express();
      app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
      app.set('SERVICE_AUTH_MIN_PASSWORD_LENGTH', 'twelve');
      expect(() => new ServiceAuth(app)).to.throw(
        ConfigError,
        /SERVICE_AUTH_MIN_PASSWORD_LENGTH: "twelve" is not valid; expected an integer/,
      );
      expect(ServiceAuth.of(app)).to.equal(undefined);
    });
  });
});
