// One cold start, for bench/app-startup.ts: `node bench/cold-start.mjs <side> <phase>`, plain Node on
// the built package (no tsx, whose loader would be part of what is timed).
//
// side "service-auth": the package (dist/, what `import 'service-auth'` loads) and Express;
// side "floor": Express and MikroORM alone, which an application of this kind loads anyway.
//
// phase "import": imports them and prints {"ms": …, "cpuMs": …}, the import's time and CPU alone.
// phase "request": an application on BENCH_DATABASE_URL (an SQLite file the parent prepared) that
// answers GET /me, behind `auth.loginRequired` (the session cookie the parent sends), or for the
// floor with the user's row read through MikroORM; prints the port once it listens, and the parent
// times from the process's start to the answer, which carries the CPU the process has used so far
// (header x-cpu-ms): what the start cost, which other work on the machine moves less than time.
const [side, phase] = process.argv.slice(2);
const PACKAGE = new URL('../dist/src/index.js', import.meta.url).href;

if (phase === 'import') {
  const started = performance.now();
  const cpu = process.cpuUsage();
  if (side === 'service-auth') {
    await import('express');
    await import(PACKAGE);
  } else {
    // The MikroORM packages the package's import loads: the core and its SQL layer (knex).
    await import('express');
    await import('@mikro-orm/core');
    await import('@mikro-orm/knex');
  }
  const { user, system } = process.cpuUsage(cpu);
  console.log(JSON.stringify({ ms: performance.now() - started, cpuMs: (user + system) / 1000 }));
} else if (side === 'service-auth') {
  const { default: express } = await import('express');
  const { ServiceAuth } = await import(PACKAGE);
  const app = express();
  app.set('SERVICE_AUTH_DATABASE_URL', process.env.BENCH_DATABASE_URL);
  const auth = new ServiceAuth(app);
  auth.logger = { info() {}, warn() {}, error: console.error };
  app.get('/me', auth.loginRequired, (req, res) => answer(res, { id: req.user.id }));
  app.use(auth.notFound, auth.errorHandler);
  await auth.ready;
  listen(app);
} else {
  const { default: express } = await import('express');
  const { EntitySchema, MikroORM } = await import('@mikro-orm/core');
  const { SqliteDriver } = await import('@mikro-orm/sqlite');
  const User = new EntitySchema({
    name: 'User',
    tableName: 'service_auth_users',
    properties: { id: { type: 'number', primary: true }, email: { type: 'string' } },
  });
  const orm = await MikroORM.init({
    driver: SqliteDriver,
    dbName: process.env.BENCH_DATABASE_URL.replace(/^sqlite:/, ''),
    entities: [User],
  });
  const app = express();
  app.get('/me', async (_req, res) => {
    const user = await orm.em.fork().findOneOrFail(User, { id: 1 });
    answer(res, { id: user.id });
  });
  listen(app);
}

function answer(res, body) {
  const { user, system } = process.cpuUsage();
  res.setHeader('x-cpu-ms', String((user + system) / 1000));
  res.json(body);
}

function listen(app) {
  const server = app.listen(0, '127.0.0.1', () => console.log(server.address().port));
}
