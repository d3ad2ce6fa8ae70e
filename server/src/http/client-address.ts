import { isIPv6 } from 'node:net';

/**
 * The block a client address stands for in per-address limits: an IPv4 address itself (an
 * IPv4-mapped IPv6 one as IPv4), an IPv6 address its /64, the smallest block a subscriber is
 * given, so that one client cannot take a fresh budget from each of its 2^64 addresses.
 * @fastify/rate-limit groups IPv6 the same way for the route limits.
 */
export function addressBlock(ip: string | null): string | null {
  if (!ip) return null;
  const bare = ip.split('%')[0]!.toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped) return mapped[1]!;
  if (!isIPv6(bare)) return bare;
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
