/**
 * A TCP relay in front of a real server, that a test can cut and restore: the application sees
 * its database go away (connections dropped, new ones refused) and come back on the same address,
 * as in a network split or a failover, while the shared server itself is never stopped.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const relay = (client: Socket) => {
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
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer(relay);
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });

  let server: Server | undefined = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const cut = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };
  return {
    port,
    cut,
    async restore() {
      server ??= await listen(port);
    },
    close: cut,
  };
}
