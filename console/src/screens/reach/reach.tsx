/**
 * "Why can't X reach S": an identity and a service picked by name (searched by the API), then every layer a
 * connection meets, as the API evaluates it (`GET /identities/{id}/reach/{serviceId}`): ok or blocking, why, and
 * links to the objects to fix. The choice lives in the URL (`?identity=…&service=…&permission=dial`), so the page
 * can be linked to and reloaded.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from '../../api/client';
import { EntitySearch, type Named } from '../../components/entity-search';
import { Link } from '../../components/link';
import { Problem } from '../../components/problem';
import { setQuery, useLocation } from '../../router';
import { t } from '../../strings';

interface Fix {
  entity: string;
  id?: string;
  name?: string;
}

interface Layer {
  layer: string;
  ok: boolean;
  message: string;
  fix: Fix[];
}

interface Reach {
  identity: Named;
  service: Named;
  permission: 'dial' | 'bind';
  reachable: boolean;
  layers: Layer[];
}

/** Policies have their detail pages here; other objects open their list searched by the id (the list matches ids exactly). */
const DETAIL_PAGES = new Set(['service-policies', 'edge-router-policies', 'service-edge-router-policies']);

export function fixHref(fix: Fix): string {
  if (!fix.id) return `/console/${fix.entity}`;
  return DETAIL_PAGES.has(fix.entity) ? `/console/${fix.entity}/${encodeURIComponent(fix.id)}` : `/console/${fix.entity}${query({ q: fix.id })}`;
}

/** The name of one entity, read once (the page shows who is chosen before the reach answer names both). */
function useName(collection: string, id: string | null): string | undefined {
  const [name, setName] = useState<string | undefined>(undefined);
  useEffect(() => {
    setName(undefined);
    if (!id) return;
    const abort = new AbortController();
    get<Named>(`${collection}/${encodeURIComponent(id)}`, abort.signal)
      .then((answer) => setName(answer.data.name))
      .catch(() => {
        if (!abort.signal.aborted) setName(id);
      });
    return () => abort.abort();
  }, [collection, id]);
  return name;
}

function Chooser(props: { param: 'identity' | 'service'; collection: string; label: string; what: string; id: string | null }) {
  const name = useName(props.collection, props.id);
  if (props.id) {
    return (
      <div class="chosen">
        <span>{t.reach.chosen(props.label, name ?? props.id)}</span>
        <button type="button" onClick={() => setQuery({ [props.param]: undefined })}>
          {t.reach.change(props.label.toLowerCase())}
        </button>
      </div>
    );
  }
  return (
    <EntitySearch
      id={`reach-${props.param}`}
      label={t.roles.find(props.what)}
      collection={props.collection}
      resultsLabel={t.roles.results(props.what)}
      pickLabel={(picked) => `${props.label}: ${picked}`}
      onPick={(entity) => setQuery({ [props.param]: entity.id })}
    />
  );
}

function Layers({ reach }: { reach: Reach }) {
  const blocking = reach.layers.filter((layer) => !layer.ok).length;
  const verb = reach.permission;
  return (
    <section class="reach-result" aria-labelledby="reach-result">
      <h2 id="reach-result" class={reach.reachable ? 'ok' : 'problem'}>
        {reach.reachable ? t.reach.reachable(reach.identity.name, reach.service.name, verb) : t.reach.blocked(reach.identity.name, reach.service.name, verb, blocking)}
      </h2>
      <table class="list layers">
        <thead>
          <tr>
            <th scope="col">{t.reach.layer}</th>
            <th scope="col">{t.reach.state}</th>
            <th scope="col">{t.reach.why}</th>
            <th scope="col">{t.reach.fix}</th>
          </tr>
        </thead>
        <tbody>
          {reach.layers.map((layer) => (
            <tr key={layer.layer} class={layer.ok ? 'layer-ok' : 'layer-blocking'} data-layer={layer.layer}>
              <th scope="row">{t.reach.layers[layer.layer] ?? layer.layer}</th>
              <td class={layer.ok ? 'ok' : 'problem'}>{layer.ok ? t.reach.ok : t.reach.blocking}</td>
              <td>{layer.message}</td>
              <td>
                {layer.fix.length === 0 ? (
                  t.common.none
                ) : (
                  <ul class="fixes">
                    {layer.fix.map((fix) => (
                      <li key={`${fix.entity}-${fix.id ?? ''}`}>
                        <Link href={fixHref(fix)}>{t.reach.fixLink(t.reach.entities[fix.entity] ?? fix.entity, fix.name)}</Link>
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function ReachScreen() {
  const { search } = useLocation();
  const identity = search.get('identity');
  const service = search.get('service');
  const permission = search.get('permission') === 'bind' ? 'bind' : 'dial';
  const [reach, setReach] = useState<Reach | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    setReach(undefined);
    setError(undefined);
    if (!identity || !service) return;
    const abort = new AbortController();
    get<Reach>(`/identities/${encodeURIComponent(identity)}/reach/${encodeURIComponent(service)}${query({ permission })}`, abort.signal)
      .then((answer) => setReach(answer.data))
      .catch((problem: unknown) => {
        if (!abort.signal.aborted) setError(problem);
      });
    return () => abort.abort();
  }, [identity, service, permission]);
  return (
    <section class="reach" aria-labelledby="reach-title">
      <header class="screen-head">
        <h1 id="reach-title">{t.reach.title}</h1>
      </header>
      <p>{t.reach.intro}</p>
      <div class="reach-pick">
        <Chooser param="identity" collection="/identities" label={t.reach.identity} what={t.roles.identities} id={identity} />
        <Chooser param="service" collection="/services" label={t.reach.service} what={t.roles.services} id={service} />
        <div class="field">
          <label for="reach-permission">{t.reach.permission}</label>
          <select id="reach-permission" value={permission} onChange={(event) => setQuery({ permission: (event.target as HTMLSelectElement).value })}>
            <option value="dial">{t.policies.dial}</option>
            <option value="bind">{t.policies.bind}</option>
          </select>
        </div>
      </div>
      <Problem error={error} />
      {!identity || !service ? <p>{t.reach.pick}</p> : reach ? <Layers reach={reach} /> : error === undefined && <p role="status">{t.list.loading}</p>}
    </section>
  );
}
