/**
 * A link to an entity's console page from its API type (`edge-router` or `edge-routers`) and id, named by its name;
 * plain text for types the console has no page for. The audit trail and the expiry board both name objects so.
 */
import { Link } from './link';

// The audit log names types in the singular; collections are plural. Both lead to the same console folder.
const PAGES: Record<string, string> = {
  identity: 'identities',
  service: 'services',
  config: 'configs',
  'service-policy': 'service-policies',
  'edge-router-policy': 'edge-router-policies',
  'service-edge-router-policy': 'service-edge-router-policies',
  'edge-router': 'edge-routers',
  'posture-check': 'posture-checks',
  ca: 'cas',
  'external-jwt-signer': 'external-jwt-signers',
  'auth-policy': 'auth-policies',
};

export function entityPage(type: string, id: string): string | undefined {
  const folder = PAGES[type] ?? (Object.values(PAGES).includes(type) ? type : undefined);
  return folder ? `/console/${folder}/${encodeURIComponent(id)}` : undefined;
}

export function EntityLink({ type, id, name }: { type: string; id: string; name?: string | null }) {
  const href = entityPage(type, id);
  const label = name || id;
  return href ? <Link href={href}>{label}</Link> : <span>{label}</span>;
}
