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
  isOnline: boolean;
  lastJoinedAt: Date;
  createdAt: Date;
  updatedAt: Date;
}
