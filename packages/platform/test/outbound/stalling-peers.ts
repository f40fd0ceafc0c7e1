// Peers that hold a caller without ever answering, for the deadline tests of
// outbound calls (quote calls, webhook deliveries). Each counts the
// connections it took, so a test can tell the caller really reached it.

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';

export interface StallingPeer {
  /** `https://127.0.0.1:<port>` or `http://…`, no path. */
  origin: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

async function listen(server: Server, sockets: Set<Socket>, scheme: 'http' | 'https'): Promise<StallingPeer> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let accepted = 0;
  server.on('connection', () => {
    accepted += 1;
  });
  return {
    origin: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A TCP listener that accepts and never speaks: a client that starts TLS on it
 * waits for a ServerHello that never comes (a host behind a broken TLS
 * terminator, or one that is overloaded past answering).
 */
export function stalledHandshakePeer(): Promise<StallingPeer> {
  const sockets = new Set<Socket>();
  return listen(createServer(), sockets, 'https');
}

/**
 * A plain-HTTP server that reads the request and then sends its status line
 * and headers one byte every `everyMs`, never finishing them: the request has
 * its connection, and an answer is arriving, yet no header block ever ends.
 * Each connection stops trickling after `forMs` (the test's own bound).
 */
export function tricklingHeadersPeer(options: { everyMs?: number; forMs?: number } = {}): Promise<StallingPeer> {
  const everyMs = options.everyMs ?? 50;
  const forMs = options.forMs ?? 5_000;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const head = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-padding: ${'a'.repeat(4096)}`);
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const stop = setTimeout(() => socket.destroy(), forMs);
    socket.once('data', () => {
      timer = setInterval(() => {
        if (sent < head.length && !socket.destroyed) socket.write(head.subarray(sent, sent + 1));
        sent += 1;
      }, everyMs);
    });
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(stop);
    });
  });
  return listen(server, sockets, 'http');
}
