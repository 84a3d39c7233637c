/** Ports for servers a test starts itself, when their address must be known before they start. */
import { createServer } from 'node:net';

/**
 * A port nothing listens on now: the OS picks it, and the server binds it a moment later. Probed
 * on every interface, so it is free on 127.0.0.1 and on `localhost` alike.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
