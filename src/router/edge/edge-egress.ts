/**
 * The far end of a circuit whose terminator an SDK bound on this router (facts §5A steps 3-4): the router sends a
 * Dial on the hosting SDK's channel, under the binding's connection id and with a new router-provided connection id,
 * and the SDK answers DialSuccess (with its public key when it encrypts) or DialFailed. The circuit may have come
 * from an SDK on this router or over a link from another router: the egress does not care which.
 */
import { encode, type Message } from '../../channel/message.js';
import { EdgeHeader, EdgeType } from '../../channel/edge-protocol.js';
import { EgressError, type Egress } from '../fabric/circuit-end.js';
import { ConnLedger, EdgeConn } from './edge-conn.js';
import type { Hosting } from './hosting.js';
import { FIRST_ROUTER_CONN_ID } from './sdk-channel.js';

export function createEdgeEgress(deps: { hosting: Pick<Hosting, 'byTerminator'>; ledger: ConnLedger; dialTimeoutMs: () => number }): Egress {
  return {
    async dial(request, peer) {
      const binding = deps.hosting.byTerminator(request.terminatorId);
      if (!binding || binding.closed || binding.channel.channel.closed) {
        throw new EgressError(`terminator ${request.terminatorId} of service ${request.serviceId} is no longer hosted on this router`, 'refused');
      }
      const hostSdk = binding.channel;
      const hostConnId = hostSdk.nextDialConnId;
      hostSdk.nextDialConnId = hostSdk.nextDialConnId >= 0xffff_fffe ? FIRST_ROUTER_CONN_ID : hostSdk.nextDialConnId + 1;
      const hoster = new EdgeConn(hostSdk, hostConnId, request.serviceId, deps.ledger, false);
      hoster.circuitId = request.circuitId;
      const { dialer } = request;
      const copied: Array<[number, Buffer]> = [];
      if (dialer.callerId) copied.push([EdgeHeader.CallerId, dialer.callerId]);
      if (dialer.publicKey) copied.push([EdgeHeader.PublicKey, dialer.publicKey]);
      if (dialer.connectionMarker) copied.push([EdgeHeader.ConnectionMarker, dialer.connectionMarker]);
      if (dialer.appData) copied.push([EdgeHeader.AppData, dialer.appData]);
      let reply: Message;
      try {
        reply = await hostSdk.channel.request(
          {
            contentType: EdgeType.Dial,
            headers: [
              [EdgeHeader.ConnId, encode.u32(binding.connId)],
              [EdgeHeader.RouterProvidedConnId, encode.u32(hostConnId)],
              [EdgeHeader.CircuitId, encode.string(request.circuitId)],
              [EdgeHeader.DialerIdentityId, encode.string(dialer.identityId)],
              [EdgeHeader.DialerIdentityName, encode.string(dialer.identityName)],
              ...copied,
            ],
            body: binding.token,
          },
          deps.dialTimeoutMs(),
        );
      } catch (error) {
        hoster.end('the dial was not answered in time');
        throw new EgressError(`the hosting SDK did not answer the dial: ${(error as Error).message}`, 'timeout');
      }
      if (reply.contentType !== EdgeType.DialSuccess) {
        // Its SDK refused the dial and keeps nothing of it: no StateClosed.
        hoster.discard();
        throw new EgressError(reply.body.toString('utf8') || 'the hosting SDK refused the dial', 'refused');
      }
      if (hoster.state === 'closed') throw new EgressError('the hosting SDK closed the connection before the circuit was up', 'refused');
      hoster.state = 'connected';
      hoster.inlet.connect(peer);
      const publicKey = reply.headers.get(EdgeHeader.PublicKey);
      return { end: hoster, ...(publicKey ? { publicKey } : {}) };
    },
  };
}
