/**
 * prom-client's default metrics (CPU, memory, event loop lag, GC, handles) describe the Node.js process, not one
 * controller or router (both programs expose them, hence shared/), and collecting them starts an event-loop delay
 * monitor and a GC observer that are never stopped. So they live in one registry per process, created at the first
 * scrape and shared by every exposition in it; a process that never serves `/metrics` (most test processes) never
 * starts them (decision 0033).
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/** The process-wide registry of the default metrics, created on first use. */
export function processRegistry(): Registry {
  if (shared === undefined) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
