/**
 * The channel: framing, message model and the runtime over a stream, shared by the router, the controller's control
 * plane and (issue 42) the SDK edge listener. See codec.ts, message.ts and channel.ts.
 */
export * from './codec.js';
export * from './message.js';
export * from './channel.js';
