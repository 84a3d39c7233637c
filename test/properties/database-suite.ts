/**
 * What the property suites over a database share: the app and the tables they check it against
 * (on SQLite in memory, or on a fresh PostgreSQL database), set up once per suite and closed and
 * dropped after it; the vocabulary role and the case's roles that each check defines first; and
 * the one assertion they all make, that the rows a filter selects are the rows the ability allows.
 */
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import type { RoleRule } from '../../src/authorization/role-rules.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import type { Role } from './access-rules.js';

/** Makes the suite's database: its URL (none: SQLite in memory) and how to drop it after. */
export type OpenDatabase = () => Promise<{ url?: string; drop(): Promise<void> }>;

/** SQLite in memory: a URL-less database, gone with its connection. */
export const inMemory: OpenDatabase = async () => ({ drop: async () => {} });

export interface AppAndTables {
  t: TestApp;
  orm: MikroORM;
}

export interface SuiteSetup {
  open: OpenDatabase;
  /** Creates the suite's tables on the database at `url`. */
  tables: (url?: string) => Promise<MikroORM>;
  /** What to do to the app before the database opens (its users, its roles). */
  prepare?: (t: TestApp) => Promise<void>;
  /** Hands the app and the tables to the suite once they are ready. */
  ready: (suite: AppAndTables) => void;
}

/** Registers the suite's `before` and `after`: the app, then the database and its tables; closed in reverse. */
export function appAndTables({ open, tables, prepare, ready }: SuiteSetup): void {
  let t: TestApp | undefined;
  let orm: MikroORM | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    t = await createTestApp();
    await prepare?.(t);
    const database = await open();
    drop = database.drop;
    orm = await tables(database.url);
    ready({ t, orm });
  });
  after(async () => {
    await orm?.close();
    await drop?.();
    await t?.auth.close();
  });
}

/**
 * The application's vocabulary, then the case's roles. The vocabulary is a role no one holds that
 * names every action and subject type the cases ask about (a name no rule names is a TypeError),
 * whatever the case's own rules name.
 */
export function defineRoles(t: TestApp, vocabulary: RoleRule, roles: readonly Role[] = []): void {
  t.auth.defineRole('vocabulary', [vocabulary]);
  for (const role of roles) t.auth.defineRole(role.name, role.rules, { includes: role.includes });
}

/**
 * The ids a filter selects are exactly the ids of the rows the ability allows; `label` says which
 * filter. The two are read at once (each on a fork of its own), and a failure of either is thrown.
 */
export async function expectSameIds(
  label: string,
  selected: Promise<number[]>,
  allowed: Promise<number[]>,
): Promise<void> {
  const [got, expected] = await Promise.all([selected, allowed]);
  expect(got, label).to.deep.equal(expected);
}
