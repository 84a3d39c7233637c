/**
 * A TCP relay in front of a real server, that a test can cut and restore: the application sees
 * its database go away (connections dropped, new ones refused) and come back on the same address,
 * as in a network split or a failover, while the shared server itself is never stopped.
 */
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every open connection and resets new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  const relay = (client: Socket) => {
    if (!open) {
      // Cut: the connection is reset at once, as by a host that refuses it. The relay keeps its
      // port meanwhile (closing it would let another process take it before `restore`).
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined); // a dropped peer: the other side is closed below
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  const server = createServer(relay);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const cut = async () => {
    open = false;
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    async restore() {
      open = true;
    },
    async close() {
      await cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
