/** `npm start`: the demo on PORT (default 3000), data in ./service-auth.sqlite unless configured. */
import type { AddressInfo } from 'node:net';
import { redactUrl } from '../src/config/redact.js';
import { app, auth, database } from './app.js';

const port = Number(process.env['PORT'] || 3000);

try {
  // The package's database first, then the demo's own tables on it.
  await database.ready;
} catch (error) {
  console.error(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const server = app.listen(port, () => {
  const { port: actual } = server.address() as AddressInfo;
  console.log(`service-auth demo listening on http://localhost:${actual}`);
  console.log(`Database: ${redactUrl(auth.config.databaseUrl)}`);
  console.log('Create a first admin with:');
  console.log('  npx service-auth auth create-user --email admin@example.com --role admin --admin');
});

function shutDown(): void {
  server.close();
  server.closeAllConnections();
  void Promise.all([database.close(), auth.close()]).then(() => process.exit(0));
}
process.once('SIGINT', shutDown);
process.once('SIGTERM', shutDown);
