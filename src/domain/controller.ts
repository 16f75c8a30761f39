/**
 * A controller process sharing the store: it registers itself at start so that clients can list the
 * controllers of the network and their API addresses.
 */
export interface ApiAddress {
  url: string;
  version: string;
}

export interface ControllerRecord {
  id: string;
  name: string;
  certPem: string;
  fingerprint: string;
  apiAddresses: Record<string, ApiAddress[]>;
  /** The control-plane address routers dial, `tls:host:port`; null without a control listener. */
  ctrlAddress: string | null;
  isOnline: boolean;
  lastJoinedAt: Date;
  createdAt: Date;
  updatedAt: Date;
}
