/**
 * What the control plane counts (issue 41, must-have 9): control messages by direction and type, and the heartbeat
 * round trip of router channels. Routers online is the presence service's gauge. Labels come from bounded sets
 * (directions, the protocol's type names, `unknown`), never from what a peer sends.
 */
export interface ControlPlaneMetrics {
  controlMessage(direction: 'in' | 'out', type: string): void;
  /** A router channel's heartbeat round trip, in seconds. */
  heartbeatLatency(seconds: number): void;
  /** A router's metrics report arrived (its values are logged at debug, not turned into series per router). */
  routerReport(routerId: string, values: Record<string, number>): void;
}

/** For a controller built without metrics (none today; kept so the control plane never checks for undefined). */
export const NO_CONTROL_METRICS: ControlPlaneMetrics = {
  controlMessage() {},
  heartbeatLatency() {},
  routerReport() {},
};
