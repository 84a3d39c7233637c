import { expect } from 'chai';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemo, type RunningDemo } from '../helpers/processes.js';

describe('demo application (npm start)', () => {
  let dir: string;
  let demo: RunningDemo;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'service-auth-demo-'));
    demo = await startDemo(dir);
  });

  after(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves an HTML home page at /', async () => {
    const response = await fetch(`${demo.url}/`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.contain('text/html');
    expect(await response.text()).to.contain('service-auth demo');
  });

  it('creates and migrates ./service-auth.sqlite on first run', async () => {
    expect((await stat(join(dir, 'service-auth.sqlite'))).isFile()).to.equal(true);
  });

  it('prints the URL and the CLI line that creates a first admin', () => {
    expect(demo.output()).to.match(/listening on http:\/\/localhost:\d+/);
    expect(demo.output()).to.contain('npx service-auth auth create-user --email admin@example.com --role admin --admin');
  });

  it('answers the auth API under the prefix with problem details', async () => {
    const response = await fetch(`${demo.url}/service-auth/me`);
    expect(response.status).to.equal(401);
    expect(response.headers.get('content-type')).to.contain('application/problem+json');
    expect(await response.json()).to.include({ code: 'unauthenticated', status: 401 });
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await demo.stop()).to.equal(0);
  });
});
