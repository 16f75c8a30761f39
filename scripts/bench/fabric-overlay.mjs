// The overlay `npm run bench -- fabric` measures (issue 43): a quickstart controller and N router processes joined by
// links, each built the way a user builds one (overlay-parts.mjs). A router that `listen`s has a link listener on a
// free loopback port; one that `dial`s has a link dialer; all share the default link group, so every dialer links to
// every listener (one link per pair, docs/link-protocol.md). A router with `tunnel` is tunneler-enabled (its own
// identity, of the router's id, can Dial and Bind) and has a `binding: tunnel` listener with those options.
import { startController, until } from './overlay-parts.mjs';
import { freePort } from './lib.mjs';

/** Link dials tried again quickly: a router the bench restarts is linked again within a second. */
const FAST_BACKOFF = { minRetryInterval: '100ms', maxRetryInterval: '1s', retryBackoffFactor: 2 };

/** Links expected among `specs`: one per pair where one side dials and the other listens. */
function expectedLinks(specs) {
  let count = 0;
  for (let i = 0; i < specs.length; i++) {
    for (let j = i + 1; j < specs.length; j++) {
      const [a, b] = [specs[i], specs[j]];
      if ((a.dial && b.listen) || (b.dial && a.listen)) count++;
    }
  }
  return count;
}

/**
 * Starts the overlay in `dir` (a new empty folder). `routers`: [{name, listen?, dial?, tunnel?: {mode, services?}}];
 * `identities`: names of SDK identities to enroll; `prepare({mgmt, routers, identities})` creates policies, services
 * and configs once every router and identity exists and before any router runs (so each router's first look at what
 * it hosts already sees them). Resolves once every router is online and every link is up, with `routers` and
 * `identities` by name, `mgmt`, `links()`, `circuits()`, `linksUp()` and `stop()`.
 */
export async function startFabricOverlay({ dir, store, routers: specs, identities: names = [], prepare = async () => undefined, probeMs = 1_000 }) {
  const controller = await startController({ dir, store });
  const { mgmt } = controller;
  try {
    const routers = {};
    for (const spec of specs) {
      const linkPort = spec.listen ? await freePort() : undefined;
      const link = {
        ...(spec.listen ? { listeners: [{ binding: 'transport', bind: `tls:127.0.0.1:${linkPort}`, advertise: `127.0.0.1:${linkPort}` }] } : {}),
        ...(spec.dial ? { dialers: [{ binding: 'transport', healthyDialBackoff: FAST_BACKOFF }] } : {}),
      };
      const file = { link, forwarder: { latencyProbeInterval: probeMs }, listeners: spec.tunnel ? [{ binding: 'tunnel', options: spec.tunnel }] : [] };
      // The entry itself (not a copy): its `child` is set when it runs.
      routers[spec.name] = Object.assign(await controller.enrollRouter(spec.name, { isTunnelerEnabled: Boolean(spec.tunnel), file }), { linkPort });
    }
    const identities = {};
    for (const name of names) identities[name] = await controller.enrollIdentity(name);
    await prepare({ mgmt, routers, identities });
    for (const router of Object.values(routers)) await router.run();

    const links = () => mgmt('GET', '/links?limit=500');
    const circuits = () => mgmt('GET', '/circuits?limit=500');
    const wanted = expectedLinks(specs);
    /** Resolves once `count` links (all the layout makes, by default) are up. */
    const linksUp = (count = wanted, limitMs = 30_000) => until(async () => (await links()).filter((l) => l.state === 'up').length >= count, limitMs, `fewer than ${count} links up`);
    await linksUp();
    return { ...controller, routers, identities, links, circuits, linksUp };
  } catch (error) {
    await controller.stop();
    throw error;
  }
}
