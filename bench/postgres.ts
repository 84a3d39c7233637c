/**
 * A database of its own for the PostgreSQL figure, created at the start and dropped at the end,
 * so that the benchmark never touches the database the URL names (the tests' `test`, by default).
 */
import pg from 'pg';

export const DEFAULT_POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/test';
const BENCH_DATABASE = 'service_auth_bench';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates the bench database next to the one `serverUrl` names; throws if the server is unreachable. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  // A run killed half-way leaves its database behind: start from an empty one.
  await administer(serverUrl, `DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
  await administer(serverUrl, `CREATE DATABASE ${BENCH_DATABASE}`);
  const url = new URL(serverUrl);
  url.pathname = `/${BENCH_DATABASE}`;
  return {
    url: url.toString(),
    drop: () => administer(serverUrl, `DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`),
  };
}

/** The URL without its password, for the report. */
export function describeUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.password = '';
  return url.toString();
}

async function administer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
