import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

/**
 * Who a request counts against. `req.ip` is what Express's `trust proxy` setting makes of the
 * connection and X-Forwarded-For, so a forged header changes nothing unless the application
 * trusts a proxy. IPv6 clients count per /64, the block one subscriber usually holds; an
 * IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientKey(req: Request): string {
  const ip = clientIp(req) ?? 'unknown';
  // The common case, a plain IPv4 address, needs no parsing.
  if (!ip.includes(':')) return ip;
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  // The block in CIDR notation, compressed as RFC 5952 writes it (`2001:db8::/64`, `::/64`).
  const block = new ipaddr.IPv6([...(parsed as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${block.toString()}/64`;
}

/**
 * `req.ip`, without its cost where the answer is known: Express computes it on every read by
 * parsing X-Forwarded-For (through proxy-addr), a third of what the limiter costs a request;
 * with `trust proxy` off, Express's default, it is the socket's address whatever the header says.
 */
function clientIp(req: Request): string | undefined {
  if (req.app.get('trust proxy') === false) return req.socket.remoteAddress;
  return req.ip ?? req.socket.remoteAddress;
}
