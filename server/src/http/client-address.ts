import { isIPv4, isIPv6 } from 'node:net';

/**
 * The block a client address stands for in per-address limits: an IPv4 address itself (an
 * IPv4-mapped IPv6 one, however spelled, as IPv4), an IPv6 address its /64, the smallest block a
 * subscriber is given, so that one client cannot take a fresh budget from each of its 2^64
 * addresses. @fastify/rate-limit groups IPv6 the same way for the route limits.
 */
export function addressBlock(ip: string | null): string | null {
  if (!ip) return null;
  const bare = ip.split('%')[0]!.toLowerCase();
  if (!isIPv6(bare)) return bare;
  const groups = ipv6Groups(bare);
  // ::ffff:0:0/96, the IPv4-mapped block, in any of its spellings.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail read as two). */
function ipv6Groups(address: string): number[] {
  const parts = (text: string) =>
    text
      ? text.split(':').flatMap((part) => {
          if (!isIPv4(part)) return [parseInt(part, 16)];
          const [a, b, c, d] = part.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        })
      : [];
  const [head = '', tail] = address.split('::');
  const left = parts(head);
  if (tail === undefined) return left;
  const right = parts(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
