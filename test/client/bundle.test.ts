/**
 * `service-auth/client` is browser-safe: bundled by esbuild for the browser from its entry, it
 * pulls in no Node built-in and no server module (only CASL, ucast and the shared matcher), and
 * the bundle, run as a browser would load it, builds an ability that decides.
 */
import { expect } from 'chai';
import { build } from 'esbuild';
import { join } from 'node:path';
import { ROOT } from '../helpers/processes.js';

describe('service-auth/client in a browser bundle', () => {
  it('bundles for the browser with CASL, ucast and the matcher only, and decides', async () => {
    const result = await build({
      entryPoints: [join(ROOT, 'src/client/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const ours = inputs.filter((input) => !input.includes('node_modules/'));
    expect(ours.sort()).to.deep.equal(['src/authorization/matcher.ts', 'src/client/index.ts']);
    const packages = [
      ...new Set(
        inputs
          .filter((input) => input.includes('node_modules/'))
          .map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)![1]),
      ),
    ];
    expect(packages.sort()).to.deep.equal([
      '@casl/ability',
      '@ucast/core',
      '@ucast/js',
      '@ucast/mongo',
      '@ucast/mongo2js',
    ]);
    const code = result.outputFiles[0]!.text;
    expect(code).to.not.match(/\bfrom\s*["']node:|require\(["'](node:)?(fs|path|crypto|util|events)["']\)/);
    // Loaded as a module, as a browser would: no import is left to resolve.
    const client = (await import(
      `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`
    )) as typeof import('../../src/client/index.js');
    const ability = client.createClientAbility([
      { action: 'read', subject: 'Report', conditions: { 'project.members.person.team': 'red' } },
    ]);
    const report = (members: unknown[]) => ({ __caslSubjectType__: 'Report', project: { members } });
    expect(ability.can('read', report([{ person: null }, { person: { team: 'red' } }]) as never)).to.equal(true);
    expect(ability.can('read', report([{ person: null }]) as never)).to.equal(false);
  });
});
