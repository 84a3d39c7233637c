/**
 * `req.em` never returns or writes a row `can` forbids (CONTRACT-4 §29): for generated roles (global
 * and organization, conditions on columns and through a relation, inverted rules, fields), places
 * (no organization, the user's, another) and token scopes, a sequence of careless operations
 * through `auth.em(user, { org, scopes })` (enforced-cases.ts) is checked against `can` on the rows
 * as they are: a read returns exactly the rows `can` allows (of the organization); a write succeeds
 * exactly when `can` allows each of its fields on the row as it was and as it will be, and its
 * reference is readable; a refused flush leaves the tables as they were. On SQLite, and on
 * PostgreSQL when SERVICE_AUTH_TEST_DATABASE_URL is set.
 */
import { subject } from '@casl/ability';
import { wrap, type EntityManager, type MikroORM } from '@mikro-orm/core';
import { expect } from 'chai';
import fc from 'fast-check';
import type { AppAbility } from '../../src/index.js';
import { AuthError } from '../../src/errors.js';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';
import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { EDoc, EFolder, enforcedCase, openEnforcedTables } from './enforced-cases.js';
import type { Body, DocTest, EnforcedCase, Operation } from './enforced-cases.js';
import { FIXED } from './enforced-fixed.js';

type Row = Record<string, unknown>;
interface World {
  t: TestApp;
  orm: MikroORM;
  orgs: [number, number];
  me: { id: number; email: string; roles: string[] };
}

async function snapshot(orm: MikroORM): Promise<{ docs: Row[]; folders: Row[] }> {
  const em = orm.em.fork();
  const folders = (await em.find(EFolder, {}, { orderBy: { id: 'asc' }, filters: false })).map((f) => ({
    ...wrap(f).toObject(),
  }));
  const rows = await em.find(EDoc, {}, { orderBy: { id: 'asc' }, filters: false });
  const docs = rows.map((d) => ({ ...wrap(d).toObject(), folder: d.folder?.id ?? null }));
  return { docs, folders };
}

/** A doc as `can` sees it: its folder as a row (or null). */
const docOf = (row: Row, folders: Row[]): Row => ({
  ...row,
  folder: row['folder'] === null ? null : (folders.find((f) => f['id'] === row['folder']) ?? null),
});

async function check(w: World, c: EnforcedCase): Promise<void> {
  const { t, orm, orgs, me } = w;
  t.auth.defineRole('g', c.global);
  t.auth.defineOrgRole('o', c.org);
  const org = c.place === 'none' ? undefined : orgs[c.place === 'own' ? 0 : 1];
  const em0 = orm.em.fork();
  await em0.nativeDelete(EDoc, {});
  await em0.nativeDelete(EFolder, {});
  await em0.insertMany(
    EFolder,
    c.folders.map((f) => ({ id: f.id, org_id: orgs[f.org], archived: f.archived })),
  );
  const owner = (o: 'me' | 'other' | null) => (o === 'me' ? me.id : o === 'other' ? me.id + 100 : null);
  const docRow = ({ id, org, owner: who, status, level, folder }: EnforcedCase['docs'][number]) => ({
    id,
    org_id: orgs[org],
    owner_id: owner(who),
    status,
    level,
    folder,
  });
  await em0.insertMany(EDoc, c.docs.map(docRow));
  // PostgreSQL's sequence did not count the ids given: new rows start beyond them.
  if (orm.config.get('clientUrl')?.startsWith('postgres')) {
    await em0.getConnection().execute("select setval(pg_get_serial_sequence('enforced_docs', 'id'), 100)");
  }
  const { scopes } = c;
  const ability: AppAbility =
    org === undefined ? t.auth.abilityFor(me, { scopes }) : await t.auth.abilityFor(me, { org, scopes });
  const inPlace = (row: Row) => org === undefined || row['org_id'] === org;
  const readable = (type: 'EDoc' | 'EFolder', row: Row) =>
    inPlace(row) && ability.can('read', subject(type, { ...row }));
  const em = () => (org === undefined ? t.auth.em(me, { scopes: c.scopes }) : t.auth.em(me, { org, scopes: c.scopes }));
  for (const op of c.operations) {
    const before = await snapshot(orm);
    const docs = before.docs.map((row) => docOf(row, before.folders));
    const where = JSON.stringify(op);
    if (op.kind === 'findOne') {
      const found = await (await em()).findOne(EDoc, op.id);
      const row = docs.find((d) => d['id'] === op.id);
      expect(found?.id ?? null, where).to.equal(row && readable('EDoc', row) ? op.id : null);
    } else if (op.kind === 'list') {
      const expected = (op.entity === 'EDoc' ? docs : before.folders)
        .filter((row) => readable(op.entity, row))
        .map((row) => row['id']);
      if (op.entity === 'EFolder') {
        const folders = await (await em()).find(EFolder, {}, { orderBy: { id: 'asc' } });
        expect(
          folders.map((f) => f.id),
          where,
        ).to.deep.equal(expected);
      } else {
        const listed = await (await em()).find(EDoc, {}, { orderBy: { id: 'asc' }, populate: ['folder'] });
        expect(
          listed.map((d) => d.id),
          where,
        ).to.deep.equal(expected);
        for (const doc of listed) {
          const related = docs.find((d) => d['id'] === doc.id)!['folder'] as Row | null;
          const shown = related && readable('EFolder', related) ? related['id'] : null;
          expect(doc.folder?.id ?? null, `${where}: doc ${doc.id}'s folder`).to.equal(shown);
        }
      }
    } else if (op.kind === 'folders') {
      // Over the docs the caller may read: some, none, or every one of them passes the test.
      const passes = (doc: Row): boolean => docPasses(op.test, doc);
      const expected = before.folders.filter((folder) => {
        if (!readable('EFolder', folder)) return false;
        const inside = docs.filter(
          (doc) => (doc['folder'] as Row | null)?.['id'] === folder['id'] && readable('EDoc', doc),
        );
        return op.operator === '$some'
          ? inside.some(passes)
          : op.operator === '$none'
            ? !inside.some(passes)
            : inside.every(passes);
      });
      const asked = (await em()).find(EFolder, { docs: { [op.operator]: op.test } } as never, {
        orderBy: { id: 'asc' },
      });
      // req.em refuses `$every` (collection-operators.ts: MikroORM 6.6 would answer it wrongly).
      if (op.operator === '$every') {
        await asked.then(
          () => expect.fail(`${where}: $every taken`),
          (error: unknown) => expect(error, where).to.be.instanceOf(TypeError),
        );
        continue;
      }
      const found = await asked;
      expect(
        found.map((folder) => folder.id),
        where,
      ).to.deep.equal(expected.map((folder) => folder['id']));
    } else {
      await write(w, { em: await em(), ability, org, readable, docs, folders: before.folders }, op, where);
    }
  }
}

function docPasses(test: DocTest, doc: Row): boolean {
  if ('org_id' in test) return doc['org_id'] !== null;
  const { id } = test;
  return '$gt' in id ? (doc['id'] as number) > id.$gt : id.$in.includes(doc['id'] as number);
}

interface Context {
  em: EntityManager;
  ability: AppAbility;
  org: number | undefined;
  readable: (type: 'EDoc' | 'EFolder', row: Row) => boolean;
  docs: Row[];
  folders: Row[];
}

/** What the body sets, as MikroORM properties. */
function changesOf(w: World, body: Body): Row {
  const changes: Row = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'org') changes['org_id'] = w.orgs[value as 0 | 1];
    else if (key === 'owner_id') changes['owner_id'] = value === null ? null : value === 0 ? w.me.id : w.me.id + 100;
    else changes[key] = value;
  }
  return changes;
}

/** A doc as req.em shows it: its folder's id, or null where the folder is hidden from the caller. */
function heldBy(x: Context, row: Row): Row {
  const folder = row['folder'] as Row | null;
  return { ...row, folder: folder && x.readable('EFolder', folder) ? folder['id'] : null };
}

/** The doc as the write leaves it: as it was (or a new one, stamped with the organization), with the body's changes. */
function finalRow(x: Context, kind: 'create' | 'update', row: Row | undefined, changes: Row): Row {
  const stamped = kind === 'create' && x.org !== undefined && !Object.hasOwn(changes, 'org_id');
  const blank = { id: null, org_id: stamped ? x.org : null, owner_id: null, status: null, level: null, folder: null };
  const final: Row = { ...blank, ...(row ?? {}), ...changes };
  // A body names the folder by its id; the row as it was holds the folder itself.
  const folder = final['folder'];
  if (typeof folder === 'number') final['folder'] = x.folders.find((f) => f['id'] === folder)!;
  return final;
}

interface Write {
  action: 'create' | 'update';
  row: Row | undefined;
  final: Row;
  changed: string[];
  changes: Row;
}

/**
 * Whether `can` allows the write: each changed field on the row as it was and as it will be, its
 * folder readable, its organization kept.
 */
function writeAllowed(x: Context, { action, row, final, changed, changes }: Write): boolean {
  const folder = final['folder'] as Row | null;
  const referenceOk = !changed.includes('folder') || folder === null || x.readable('EFolder', folder);
  // A mere reference to a row that is not there: nothing to decide on, refused (MikroORM would write by a key that names no row).
  if (action === 'update' && !row) return false;
  const inOrg = x.org === undefined || (final['org_id'] === x.org && (!row || row['org_id'] === x.org));
  // The tenant field naming the request's organization is the package's to set, not a field the caller sets.
  const fields = changed.filter((field) => !(x.org !== undefined && field === 'org_id' && inOrg));
  const can = (target: Row, field?: string) => x.ability.can(action, subject('EDoc', { ...target }), field);
  const decided = (target: Row) =>
    fields.length ? fields.every((field) => can(target, field)) : action === 'update' || can(target);
  return inOrg && referenceOk && (!row || decided(row)) && decided(final);
}

/** Whether the write should pass, by `can` on the rows as they are; then the write through req.em, and its effect. */
async function write(
  w: World,
  x: Context,
  op: Exclude<Operation, { kind: 'findOne' | 'list' | 'folders' }>,
  where: string,
): Promise<void> {
  const row = op.kind === 'create' ? undefined : x.docs.find((d) => d['id'] === op.id);
  let allowed: boolean;
  let run: () => Promise<void>;
  if (op.kind === 'delete') {
    // A delete by a key that names no row is refused, as an update is.
    allowed =
      !!row && (x.org === undefined || row['org_id'] === x.org) && x.ability.can('delete', subject('EDoc', { ...row }));
    run = async () => {
      x.em.remove(x.em.getReference(EDoc, op.id));
      await x.em.flush();
    };
  } else {
    const changes = changesOf(w, op.body);
    const found = op.kind === 'update' && !op.reference;
    // The careless handler finds nothing to change.
    if (found && !(row && x.readable('EDoc', row))) return;
    // Outside an organization a new row names its own (the column is required): without one, nothing to check.
    if (op.kind === 'create' && x.org === undefined && !Object.hasOwn(changes, 'org_id')) return;
    // The fields the flush writes: those that differ from what req.em held (every one, for a mere reference).
    const held = found ? heldBy(x, row!) : undefined;
    const changed = Object.keys(changes).filter((key) => !held || held[key] !== changes[key]);
    // The row as the flush leaves it: only what differs from what req.em held is written (a hidden
    // folder reads as null, so setting it to null writes nothing).
    const written = Object.fromEntries(changed.map((key) => [key, changes[key]]));
    const final = finalRow(x, op.kind, row, written);
    // A primary key is never changed through req.em.
    const allowedWrite = !changed.includes('id') && writeAllowed(x, { action: op.kind, row, final, changed, changes });
    allowed = changed.length === 0 || allowedWrite;
    run = async () => {
      let doc: EDoc;
      if (op.kind === 'create') doc = x.em.create(EDoc, {} as never);
      else doc = found ? (await x.em.findOne(EDoc, op.id))! : x.em.getReference(EDoc, op.id);
      if (op.kind === 'update' && found && op.meanwhile) {
        // Another writer changes the row after req.em read it: the write is judged on the row as it is then.
        await w.orm.em.fork().nativeUpdate(EDoc, op.id, changesOf(w, op.meanwhile) as never);
        meanwhile = await snapshot(w.orm);
        const current = docOf(
          meanwhile.docs.find((d) => d['id'] === op.id)!,
          meanwhile.folders,
        );
        const final = finalRow(x, 'update', current, written);
        const write: Write = { action: 'update', row: current, final, changed, changes };
        allowedNow = changed.length === 0 || (!changed.includes('id') && writeAllowed(x, write));
      }
      x.em.assign(doc, changes as never);
      await x.em.flush();
    };
  }
  const before = await snapshot(w.orm);
  let meanwhile: Awaited<ReturnType<typeof snapshot>> | undefined;
  let allowedNow = false;
  const outcome = await run().then(
    () => 'written',
    (error: unknown) => {
      if (error instanceof AuthError && (error.code === 'forbidden' || error.code === 'row_changed')) return error.code;
      throw error;
    },
  );
  if (meanwhile) {
    // Written only if `can` allows it on the row as it was when written; refused (403) where it refuses; 409 only
    // for a row changed where the rules read and still allowed; never half-written.
    if (outcome === 'written') expect(allowedNow, `${where}: written over a row changed meanwhile`).to.equal(true);
    else expect(allowedNow, `${where}: ${outcome}`).to.equal(outcome === 'row_changed');
  } else expect(outcome === 'written', `${where}: allowed`).to.equal(allowed);
  if (!meanwhile) expect(outcome, `${where}: no row changed meanwhile`).not.to.equal('row_changed');
  if (outcome !== 'written')
    expect(await snapshot(w.orm), `${where}: a refused flush writes nothing`).to.deep.equal(meanwhile ?? before);
}

function suite(open: () => Promise<{ url?: string; drop(): Promise<void> }>): void {
  let w: World;
  let drop: () => Promise<void>;
  before(async () => {
    const t = await createTestApp();
    const database = await open();
    drop = database.drop;
    const orm = await openEnforcedTables(database.url);
    t.auth.enforce(orm);
    t.auth.defineOrgRole('owner', []);
    t.auth.defineScope('docs:read', [{ action: 'read', subject: ['EDoc', 'EFolder'] }], 'Read documents');
    t.auth.defineScope(
      'docs:write',
      [{ action: ['read', 'create', 'update'], subject: ['EDoc', 'EFolder'] }],
      'Write documents',
    );
    const boss = await t.auth.users.create({ email: 'boss@example.com', password: PASSWORD });
    const user = await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    t.auth.defineRole('g', []);
    t.auth.defineOrgRole('o', []);
    const a = await t.auth.orgs.create({ name: 'A', slug: 'org-a', owner: boss.id });
    const b = await t.auth.orgs.create({ name: 'B', slug: 'org-b', owner: boss.id });
    await t.auth.orgs.addMember(a.id, user.id, ['o']);
    w = { t, orm, orgs: [a.id, b.id], me: { id: user.id, email: user.email, roles: ['g'] } };
  });
  after(async () => {
    await w?.orm.close();
    await w?.t.auth.close();
    await drop?.();
  });

  it('reads exactly what can allows, writes only what it allows, and a refused flush writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(enforcedCase(), (c) => check(w, c)),
      { numRuns: 150 },
    );
  });

  it('fixed cases', async () => {
    for (const c of FIXED) await check(w, c);
  });
}

describe('req.em keeps to the ability [SQLite]', () => {
  suite(async () => ({ drop: async () => {} }));
});

describePostgres('req.em keeps to the ability', () => {
  suite(createPostgresDatabase);
});
