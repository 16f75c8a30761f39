/**
 * svc/sdk: the TypeScript SDK of the svc overlay network. `createContext` logs an identity in; `dial` answers a
 * Duplex as `net.connect` does; `listen` takes a connection handler as `net.createServer` does. See docs/sdk.md.
 */
export { createContext, type SdkOptions, type SvcContext } from './context.js';
export type { SvcConnection } from './connection.js';
export type { SvcListener, ListenOptions } from './listener.js';
export type { DialOptions } from './dial.js';
export type { SdkService, ServiceListOptions } from './client-api.js';
export type { SdkIdentityFile } from './identity-file.js';
export { SdkError, isSdkError, type SdkErrorCode } from './errors.js';
