/**
 * The figures measured on PostgreSQL, in a database of the bench's own: the warm bearer token
 * again, then the credential-scale, organization-scale and audit-flood figures.
 */
import autocannon from 'autocannon';
import { AppProcess } from './app-process.js';
import { auditFloodFigures } from './audit-flood.js';
import { credentialScaleFigures } from './credential-scale.js';
import { atLeast, skipped, type Figure } from './figures.js';
import { ratio } from './load.js';
import { orgScaleFigures } from './orgs.js';
import { createBenchDatabase, describeUrl } from './postgres.js';
import { postgresUrl, settings, versus } from './run-settings.js';
import { timeRequest } from './verification.js';

/** The warm bearer-token figure again, on PostgreSQL, in a database of its own; then the credential-scale figures. */
export async function postgresFigures(): Promise<Figure[]> {
  const name = 'warm bearer token ÷ unguarded, PostgreSQL';
  let database;
  try {
    database = await createBenchDatabase(postgresUrl);
  } catch (error) {
    const why = error instanceof Error && error.message ? error.message : String(error);
    return [
      skipped(
        name,
        'ratio',
        '≥ 0.85',
        `PostgreSQL at ${describeUrl(postgresUrl)} unreachable (${why}); set SERVICE_AUTH_BENCH_DATABASE_URL`,
      ),
    ];
  }
  try {
    const app = await AppProcess.start({ databaseUrl: database.url });
    const cpu = () => app.call<number>({ cmd: 'cpuMicros' });
    try {
      const [warm] = await app.call<string[]>({ cmd: 'createTokens', count: 1 });
      const bearer = { Authorization: `Bearer ${warm}` };
      await timeRequest(`${app.base}/token`, bearer);
      for (const [path, headers] of [
        ['/plain', {}],
        ['/token', bearer],
      ] as const) {
        await autocannon({
          url: `${app.base}${path}`,
          connections: settings.connections,
          pipelining: settings.pipelining,
          duration: 1,
          headers,
        });
      }
      const token = await ratio(settings, cpu, `${app.base}/plain`, `${app.base}/token`, bearer);
      return [
        atLeast(name, token.ratio, 0.85, versus(token)),
        ...(await credentialScaleFigures(app, settings)),
        ...(await orgScaleFigures(app, settings.connections)),
        ...(await auditFloodFigures(app)),
      ];
    } finally {
      await app.stop();
    }
  } finally {
    await database.drop();
  }
}
