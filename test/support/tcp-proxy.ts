// Forwards TCP connections to a server (a database, a ClickHouse node), so a test can cut it
// off and bring it back on the same port: closing the proxy drops every open connection and
// refuses new ones, as a stopped server does; black-holing it accepts connections and
// answers nothing, as a server behind a dropped route, so a client waits for its own timeout.

import net from "node:net";

export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly holding = new Set<net.Socket>();
  private blackHoled = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Listens on `port` of 127.0.0.1 (0: any free one); gives the port. */
  async listen(port: number): Promise<number> {
    const server = net.createServer((client) => {
      if (this.blackHoled) {
        this.holding.add(client);
        client.on("close", () => this.holding.delete(client));
        client.on("error", () => undefined);
        return;
      }
      const upstream = net.connect(this.port, this.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return (server.address() as net.AddressInfo).port;
  }

  /**
   * A route that drops every packet: the open connections stop carrying anything (their
   * sockets stay open) and new ones are accepted and held unanswered.
   */
  stall(): void {
    this.blackHoled = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
      this.holding.add(socket);
      socket.once("close", () => this.holding.delete(socket));
    }
  }

  /** From now on, connections are accepted and held unanswered; the open ones are dropped. */
  blackHole(): void {
    this.blackHoled = true;
    for (const socket of this.sockets) socket.destroy();
  }

  /** Connections held unanswered now (those stalled included). */
  get held(): number {
    return this.holding.size;
  }

  /** Forwards new connections again, dropping the held ones. */
  restore(): void {
    this.blackHoled = false;
    for (const socket of this.holding) socket.destroy();
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.restore();
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

/** `url` with its host and port replaced by the proxy's on 127.0.0.1. */
export function viaProxy(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  return proxied.toString().replace(/\/$/, "");
}
