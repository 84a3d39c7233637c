/**
 * Several real application processes (the demo, as `npm start` runs it) on their own ports,
 * sharing one PostgreSQL database and one Redis: what "running several instances" means in
 * production, on one machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemo, type RunningDemo } from '../helpers/processes.js';
import { createPostgresDatabase } from '../helpers/services.js';

export interface Cluster {
  instances: RunningDemo[];
  /** The PostgreSQL database they share. */
  databaseUrl: string;
  /** The directory every instance writes its mails to (SERVICE_AUTH_MAIL_OUTBOX). */
  outbox: string;
  stop(): Promise<void>;
}

/**
 * Starts `count` instances at once on a fresh PostgreSQL database (they migrate it together, as a
 * deployment's first start would) with `env` added to each one's environment.
 */
export async function startCluster(count: number, env: NodeJS.ProcessEnv): Promise<Cluster> {
  const database = await createPostgresDatabase();
  const dir = await mkdtemp(join(tmpdir(), 'service-auth-cluster-'));
  const outbox = join(dir, 'outbox');
  const started = await Promise.allSettled(
    Array.from({ length: count }, () =>
      startDemo(dir, { SERVICE_AUTH_DATABASE_URL: database.url, SERVICE_AUTH_MAIL_OUTBOX: outbox, ...env }),
    ),
  );
  const instances = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  };
  const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { instances, databaseUrl: database.url, outbox, stop };
}
