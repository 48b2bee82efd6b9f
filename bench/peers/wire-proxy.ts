/**
 * A counting TCP proxy between one system and Postgres. It reads the frontend messages of the
 * PostgreSQL wire protocol so every driver is counted the same way: after the startup packet, a 'Q'
 * (simple query) counts one statement, and in the extended protocol each 'E' (Execute) counts one.
 * An SSLRequest or GSSENCRequest is answered 'N' (no encryption), so the client goes on in the clear.
 */
import net from 'node:net';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

export interface WireCounts {
  statements: number;
  simpleQueries: number;
  executes: number;
  connections: number;
}

/** Parses one client connection's frontend byte stream; calls back per counted message. */
export class FrontendParser {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;

  constructor(
    private readonly onMessage: (type: string) => void,
    /** The client asked for SSL or GSS encryption: answer 'N'. */
    private readonly onEncryptionRequest: () => void,
  ) {}

  /** Feeds bytes; returns the bytes to forward to the server (encryption requests are not forwarded). */
  push(chunk: Buffer): Buffer {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const forward: Buffer[] = [];
    for (;;) {
      if (!this.started) {
        if (this.buffer.length < 8) break;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) break;
        const code = this.buffer.readInt32BE(4);
        const packet = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.onEncryptionRequest();
          continue;
        }
        this.started = true;
        forward.push(packet);
        continue;
      }
      if (this.buffer.length < 5) break;
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) break;
      this.onMessage(String.fromCharCode(this.buffer[0] as number));
      forward.push(this.buffer.subarray(0, 1 + length));
      this.buffer = this.buffer.subarray(1 + length);
    }
    return Buffer.concat(forward);
  }
}

export class WireProxy {
  readonly counts: WireCounts = { statements: 0, simpleQueries: 0, executes: 0, connections: 0 };
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly target: { host: string; port: number },
    readonly name: string,
  ) {
    this.server = net.createServer((client) => this.accept(client));
  }

  static async start(name: string, target: { host: string; port: number }): Promise<WireProxy> {
    const proxy = new WireProxy(target, name);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  /** `url` with its host and port replaced by this proxy's. */
  url(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  snapshot(): WireCounts {
    return { ...this.counts };
  }

  private accept(client: net.Socket): void {
    this.counts.connections += 1;
    const server = net.connect(this.target);
    // No Nagle on either hop, as the drivers set on their own sockets: with it, a reply larger than one
    // segment (a completed run's record, say) waited for the peer's delayed ACK, about 40 ms, every time.
    client.setNoDelay(true);
    server.setNoDelay(true);
    this.sockets.add(client).add(server);
    const parser = new FrontendParser(
      (type) => {
        if (type === 'Q') {
          this.counts.simpleQueries += 1;
          this.counts.statements += 1;
        } else if (type === 'E') {
          this.counts.executes += 1;
          this.counts.statements += 1;
        }
      },
      () => client.write('N'),
    );
    client.on('data', (chunk: Buffer) => {
      const out = parser.push(chunk);
      if (out.length > 0) server.write(out);
    });
    server.on('data', (chunk: Buffer) => client.write(chunk));
    const close = () => {
      client.destroy();
      server.destroy();
      this.sockets.delete(client);
      this.sockets.delete(server);
    };
    client.on('close', close).on('error', close);
    server.on('close', close).on('error', close);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
