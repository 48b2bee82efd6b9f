// Types of client-address.mjs (plain JavaScript: the Studio's server runs it without a compiler).
import type { IncomingMessage } from 'node:http';

export declare const CLIENT_ADDRESS_HEADER: 'x-gnl-client-address';
export declare function clientAddress(request: {
  socketAddress: string | undefined;
  forwardedFor: string | string[] | undefined;
  trustProxy: boolean;
}): string | undefined;
export declare function stampClientAddress(request: IncomingMessage, options: { trustProxy: boolean }): void;
export declare function trustProxyFromEnv(env?: Record<string, string | undefined>): boolean;
