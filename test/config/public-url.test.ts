/**
 * Where links point without SERVICE_AUTH_PUBLIC_URL: production refuses to start, development
 * says once which URL it assumed (localhost on PORT), and a configured URL is taken silently.
 */
import { expect } from 'chai';
import express from 'express';
import { ConfigError, ServiceAuth } from '../../src/index.js';
import { captureLogger } from '../helpers/app.js';

/**
 * Constructs a ServiceAuth in this environment with these settings (PORT as given for as long as
 * the construction lasts), assigns a capturing logger right after the constructor returns, as an
 * application would, and returns what it logged by the time it started.
 */
async function warningsOf(environment: string, settings: Record<string, unknown>, port?: string): Promise<string[]> {
  const app = express();
  app.set('env', environment);
  app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
  for (const [key, value] of Object.entries(settings)) app.set(key, value);
  const previousPort = process.env['PORT'];
  if (port === undefined) delete process.env['PORT'];
  else process.env['PORT'] = port;
  let auth: ServiceAuth;
  try {
    auth = new ServiceAuth(app);
  } finally {
    if (previousPort === undefined) delete process.env['PORT'];
    else process.env['PORT'] = previousPort;
  }
  const log = captureLogger();
  auth.logger = log;
  try {
    await auth.ready;
  } finally {
    await auth.close();
  }
  return log.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
}

describe('configuration: SERVICE_AUTH_PUBLIC_URL', () => {
  it('is required in production: construction throws a ConfigError naming the key', () => {
    const app = express();
    app.set('env', 'production');
    app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
    let error: unknown;
    try {
      new ServiceAuth(app);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).key).to.equal('SERVICE_AUTH_PUBLIC_URL');
    expect((error as ConfigError).message).to.contain('production');
  });

  it('in development, is assumed to be localhost on PORT, and says so once through the configured logger', async () => {
    const warnings = await warningsOf('development', {}, '4123');
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('SERVICE_AUTH_PUBLIC_URL is not set');
    expect(warnings[0]).to.contain('assume http://localhost:4123;');
  });

  it('in development without PORT, names localhost:3000', async () => {
    const warnings = await warningsOf('development', {});
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('assume http://localhost:3000;');
  });

  it('set, is taken without a word, in development as in production', async () => {
    for (const environment of ['development', 'production']) {
      expect(
        await warningsOf(environment, { SERVICE_AUTH_PUBLIC_URL: 'https://app.example.com' }),
        environment,
      ).to.deep.equal([]);
    }
  });
});
