/**
 * Typed abilities, as an application gets them: a project of its own that imports the built
 * package by name and registers its actions and subject types (`AbilityTypes`). Misspelt ones
 * are compile errors (each `@ts-expect-error` below must meet one, or tsc fails on it); without
 * the registration, any string goes, as before. And the resource a guard loads, typed.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/processes.js';
import { APPLICATION_COMPILER_OPTIONS } from '../helpers/tsconfig.js';

const TYPED = `
import express, { type Request } from 'express';
import { subject } from '@casl/ability';
import { ServiceAuth } from 'service-auth';

declare module 'service-auth' {
  interface AbilityTypes {
    actions: 'read' | 'update';
    subjects: 'Report' | 'Note';
  }
}

const app = express();
const auth = new ServiceAuth(app);
app.get('/reports/:team', auth.require({ action: 'read', subject: 'Report' }), (req, res) => {
  req.ability!.can('read', 'Report');
  req.ability!.can('update', subject('Note', { owner_id: 1 }));
  auth.abilityFor(req.user!).can('manage', 'all');
  // @ts-expect-error: a misspelt action
  req.ability!.can('raed', 'Report');
  // @ts-expect-error: a misspelt subject type
  req.ability!.can('read', 'Nte');
  // @ts-expect-error: a misspelt subject type on a tagged object
  req.ability!.can('read', subject('Nte', { owner_id: 1 }));
  res.end();
});
// @ts-expect-error: a misspelt action in a guard
auth.require({ action: 'raed', subject: 'Report' });
// @ts-expect-error: a misspelt action to conceal by
auth.require({ action: 'update', subject: 'Note', load: () => null, conceal: 'raed' });
// @ts-expect-error: a misspelt subject type in a guard
auth.require({ action: 'read', subject: 'Nte' });

// The rules a role, an organization role or a scope is defined with.
auth.defineRole('editor', [
  { action: 'update', subject: 'Note', conditions: { owner_id: '\${user.id}' } },
  { action: ['read', 'update'], subject: ['Report', 'Note'], fields: ['title'] },
  { action: 'manage', subject: 'all', inverted: true, reason: 'closed' },
]);
// @ts-expect-error: a misspelt action in a role's rule
auth.defineRole('reader', [{ action: 'raed', subject: 'Report' }]);
// @ts-expect-error: a misspelt subject type in a role's rule
auth.defineRole('reader', [{ action: 'read', subject: ['Report', 'Nte'] }]);
auth.defineOrgRole('member', { includes: [], rules: [{ action: 'read', subject: 'Note' }] });
// @ts-expect-error: a misspelt action in an organization role's rule
auth.defineOrgRole('member', [{ action: 'raed', subject: 'Note' }]);
// @ts-expect-error: a misspelt subject type in an organization role's rules
auth.defineOrgRole('member', { rules: [{ action: 'read', subject: 'Nte' }] });
auth.defineScope('notes:write', [{ action: 'update', subject: 'Note' }], 'Change notes');
// @ts-expect-error: a misspelt action in a scope
auth.defineScope('notes:write', [{ action: 'updte', subject: 'Note' }], 'Change notes');
`;

const UNTYPED = `
import express from 'express';
import { ServiceAuth } from 'service-auth';

const app = express();
const auth = new ServiceAuth(app);
auth.defineRole('any', [{ action: 'anything', subject: 'Whatever' }]);
auth.defineOrgRole('any', [{ action: 'raed', subject: ['Nte'] }]);
app.get('/x', auth.require({ action: 'anything', subject: 'Whatever' }), (req, res) => {
  req.ability!.can('raed', 'Nte');
  req.ability!.can('read', { any: 'object' });
  res.end();
});
`;

/**
 * The loaded resource, typed: `load`'s result checked against a named type, read with
 * `auth.resource<T>(req)`. Checked with TYPED, in one program (a run of tsc costs seconds).
 */
const RESOURCE = `
interface Note { id: number; owner_id: number; title: string }
declare function findNote(id: string): Promise<Note | null>;

const load = (req: Request) => findNote(String(req.params['id']));
app.get('/notes/:id', auth.require({ action: 'read', subject: 'Note', load, conceal: true }), (req, res) => {
  const note = auth.resource<Note>(req);
  const title: string = note.title;
  // @ts-expect-error: Note has no such field
  note.body;
  // @ts-expect-error: untyped, the resource is unknown, as req.resource is
  auth.resource(req).title;
  res.json({ title });
});
// Named, the type checks what load returns.
auth.require<Note>({ action: 'read', subject: 'Note', load });
auth.require<Note>({ action: 'read', subject: 'Note', load: async () => ({ id: 1, owner_id: 2, title: 't' }) });
// @ts-expect-error: load finds something that is not a Note
auth.require<Note>({ action: 'read', subject: 'Note', load: async () => ({ id: 1 }) });
// @ts-expect-error: conceal is true, false or an action
auth.require({ action: 'read', subject: 'Note', load, conceal: 1 });
`;

/** Type-checks `source` as an application's module importing the built package; tsc's output, or '' when it passes. */
async function typeCheck(source: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-types-'));
  try {
    const modules = join(ROOT, 'node_modules');
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...APPLICATION_COMPILER_OPTIONS,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(modules, '@types')],
          baseUrl: '.',
          paths: {
            'service-auth': [join(ROOT, 'dist/src/index.d.ts')],
            express: [join(modules, '@types/express/index.d.ts')],
            '@casl/ability': [join(modules, '@casl/ability/dist/types/index.d.ts')],
          },
        },
        include: ['app.ts'],
      }),
    );
    await writeFile(join(dir, 'app.ts'), source);
    const tsc = spawnSync(process.execPath, [join(modules, 'typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    return tsc.status === 0 ? '' : `${tsc.stdout}${tsc.stderr}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('typed abilities', function () {
  this.timeout(120_000);

  it('make misspelt actions and subject types compile errors once the application registers its own; type the loaded resource', async () => {
    expect(await typeCheck(TYPED + RESOURCE)).to.equal('');
  });

  it('leave untyped use as it was: any action, any subject', async () => {
    expect(await typeCheck(UNTYPED)).to.equal('');
  });

  it('are checked for real: a misspelling outside @ts-expect-error fails', async () => {
    const output = await typeCheck(
      (TYPED + RESOURCE).replace(
        "// @ts-expect-error: a misspelt action\n  req.ability!.can('raed', 'Report');",
        "req.ability!.can('raed', 'Report');",
      ),
    );
    expect(output).to.match(/'"raed"' is not assignable/);
  });
});
