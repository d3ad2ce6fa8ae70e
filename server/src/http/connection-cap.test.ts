import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { capConnectionsPerAddress } from './slow-clients.ts';

/** A socket as the cap sees it: its remote address, destroy, and its close. */
function fakeSocket(remoteAddress: string) {
  const socket = Object.assign(new EventEmitter(), {
    remoteAddress,
    destroyed: false,
    destroy() {
      socket.destroyed = true;
    },
  });
  return socket;
}

function cappedServer(max: number) {
  const server = new EventEmitter();
  capConnectionsPerAddress(server as unknown as Parameters<typeof capConnectionsPerAddress>[0], max);
  return (address: string) => {
    const socket = fakeSocket(address);
    server.emit('connection', socket as unknown as Socket);
    return socket;
  };
}

// The spawned server's test (test/slow-clients.test.ts) covers IPv4 over real sockets; a loopback
// has one IPv6 address, so the /64 grouping is checked here on the listener's own events.
describe('capConnectionsPerAddress', () => {
  it('counts the addresses of one IPv6 /64 together, and other /64s apart', () => {
    const connect = cappedServer(2);
    const first = connect('2001:db8:1:2::1');
    const second = connect('2001:db8:1:2:ffff:ffff:ffff:fffe');
    const third = connect('2001:0db8:0001:0002:0:0:0:3');
    expect([first.destroyed, second.destroyed, third.destroyed]).toEqual([false, false, true]);
    expect(connect('2001:db8:1:3::1').destroyed).toBe(false);

    // A closed socket frees its place in the block.
    first.emit('close');
    expect(connect('2001:db8:1:2::42').destroyed).toBe(false);
    expect(connect('2001:db8:1:2::43').destroyed).toBe(true);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    const connect = cappedServer(1);
    expect(connect('192.0.2.7').destroyed).toBe(false);
    expect(connect('::ffff:192.0.2.7').destroyed).toBe(true);
    expect(connect('::ffff:c000:207').destroyed).toBe(true);
    expect(connect('::ffff:c000:208').destroyed).toBe(false);
  });
});
