import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

/**
 * Who a request counts against. `req.ip` is what Express's `trust proxy` setting makes of the
 * connection and X-Forwarded-For, so a forged header changes nothing unless the application
 * trusts a proxy. IPv6 clients count per /64, the block one subscriber usually holds; an
 * IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientKey(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  // The common case, a plain IPv4 address, needs no parsing.
  if (!ip.includes(':')) return ip;
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
