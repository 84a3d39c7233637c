/**
 * A mistyped SQLite path must not quietly become a new, empty database: the CLI refuses a file
 * whose folder does not exist, and creates nothing; the server refuses it at construction with the
 * same message (one check, src/config/sqlite-folder.ts). A path in a folder that exists still works.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { ConfigError, ServiceAuth } from '../../src/index.js';
import { openDatabase } from '../helpers/app.js';
import { migrationsOf } from '../helpers/orm.js';
import { runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

describe('CLI: an SQLite path whose folder does not exist', () => {
  /** A folder that does not exist, under another that does not exist either. */
  const root = join(tmpdir(), `service-auth-${randomUUID()}`);
  const missing = join(root, 'missing');
  let workDir: string;
  let existing: string;
  const results: Record<string, CliResult> = {};

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'service-auth-cwd-'));
    existing = await mkdtemp(join(tmpdir(), 'service-auth-existing-'));
    const url = `sqlite:${join(missing, 'auth.sqlite')}`;
    [results['flag'], results['env'], results['relative'], results['existingFlag'], results['existingEnv']] =
      await Promise.all([
        runCli(['auth', 'list-users', '--database', url]),
        // The first in a process of its own, the others in this one, with their environment and cwd.
        runCliInProcess(['auth', 'list-users'], { env: { SERVICE_AUTH_DATABASE_URL: url } }),
        runCliInProcess(['auth', 'list-users', '--database', 'sqlite:missing/auth.sqlite'], { cwd: workDir }),
        runCliInProcess(['auth', 'list-users', '--database', `sqlite:${join(existing, 'flag.sqlite')}`]),
        runCliInProcess(['auth', 'list-users'], {
          env: { SERVICE_AUTH_DATABASE_URL: `sqlite:${join(existing, 'env.sqlite')}` },
        }),
      ]);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
    await rm(existing, { recursive: true, force: true });
  });

  it('refuses --database sqlite:<missing folder>/auth.sqlite with a message naming the folder', () => {
    const { code, stdout, stderr } = results['flag']!;
    expect({ code, stdout }).to.deep.equal({ code: 1, stdout: '' });
    expect(stderr).to.contain(missing);
    expect(stderr.trim().split('\n'), 'one line, no stack trace').to.have.length(1);
  });

  it('refuses the same path given in SERVICE_AUTH_DATABASE_URL', () => {
    const { code, stdout, stderr } = results['env']!;
    expect({ code, stdout }).to.deep.equal({ code: 1, stdout: '' });
    expect(stderr).to.contain(missing);
  });

  it('the server refuses it too, at construction: a ConfigError naming the key, with the words the CLI used', () => {
    const url = `sqlite:${join(missing, 'auth.sqlite')}`;
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', url);
    let error: unknown;
    try {
      new ServiceAuth(app);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const { key, message, expected } = error as ConfigError;
    expect(key).to.equal('SERVICE_AUTH_DATABASE_URL');
    expect(message).to.contain(missing);
    expect(results['env']!.stderr).to.equal(`Configuration error: ${message}\n`);
    expect(results['flag']!.stderr).to.equal(`Invalid --database ${JSON.stringify(url)}: expected ${expected}\n`);
  });

  it('refuses a path through a file that is not a folder, in the server and in the CLI', async () => {
    const url = `sqlite:${join(existing, 'flag.sqlite', 'auth.sqlite')}`;
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', url);
    expect(() => new ServiceAuth(app)).to.throw(ConfigError, join(existing, 'flag.sqlite'));
    const result = await runCliInProcess(['auth', 'list-users'], { env: { SERVICE_AUTH_DATABASE_URL: url } });
    expect(result).to.include({ code: 1, stdout: '' });
    expect(result.stderr).to.contain('folder that exists');
  });

  it('refuses a relative path into a folder missing from the working directory', () => {
    const { code, stdout, stderr } = results['relative']!;
    expect({ code, stdout }).to.deep.equal({ code: 1, stdout: '' });
    expect(stderr).to.contain(join(workDir, 'missing'));
  });

  it('creates neither the folder nor the database', () => {
    expect(existsSync(missing), missing).to.equal(false);
    expect(existsSync(root), root).to.equal(false);
    expect(existsSync(join(workDir, 'missing'))).to.equal(false);
  });

  it('creates and migrates a fresh database in a folder that exists', async () => {
    for (const [name, file] of [
      ['existingFlag', 'flag.sqlite'],
      ['existingEnv', 'env.sqlite'],
    ] as const) {
      expect(results[name], name).to.deep.equal({ code: 0, stdout: 'No users.\n', stderr: '' });
      const orm = await openDatabase(`sqlite:${join(existing, file)}`);
      try {
        expect(await migrationsOf(orm).pending(), file).to.deep.equal([]);
        expect(await migrationsOf(orm).executed(), file).to.not.deep.equal([]);
      } finally {
        await orm.close();
      }
    }
  });
});
