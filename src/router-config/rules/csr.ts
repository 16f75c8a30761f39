/**
 * The certificate signing request block: root `csr`, or the deprecated `edge.csr` (spec "Versioning" 3).
 * Every SAN value is checked for its kind; at least one valid SAN is needed to accept SDK or router
 * connections (that consequence is worded in consequences.ts).
 */
import { reportError, reportWarning } from '../../config/rule-context.js';
import type { KeyPath } from '../../shared/yaml-source.js';
import type { CsrFile, RouterFile } from '../schema.js';
import { isMapping } from './check.js';
import type { RuleContext } from './check.js';
import { sanProblem } from './values.js';
import type { SanKind } from './values.js';

const KINDS: readonly SanKind[] = ['dns', 'ip', 'uri', 'email'];

export interface CsrOutcome {
  /** Where the csr in effect is: `['csr']`, `['edge', 'csr']`, or undefined when there is none. */
  readonly at: KeyPath | undefined;
  /** Whether the csr in effect has at least one valid SAN. */
  readonly hasValidSan: boolean;
}

export function csrRules(context: RuleContext, file: RouterFile): CsrOutcome {
  const root = file.csr;
  const legacy = isMapping(file.edge) ? file.edge.csr : undefined;
  const rootValid = root === undefined ? false : sanRules(context, ['csr'], root);
  const legacyValid = legacy === undefined ? false : sanRules(context, ['edge', 'csr'], legacy);
  if (legacy !== undefined) {
    const message =
      root === undefined
        ? "deprecated: move this block to the root 'csr' section"
        : "deprecated and ignored: the root 'csr' section is used; remove this block";
    reportWarning(context, ['edge', 'csr'], message, 'key');
  }
  if (root !== undefined) return { at: ['csr'], hasValidSan: rootValid };
  if (legacy !== undefined) return { at: ['edge', 'csr'], hasValidSan: legacyValid };
  return { at: undefined, hasValidSan: false };
}

/** Reports each invalid SAN; true when at least one is valid. */
function sanRules(context: RuleContext, path: KeyPath, csr: CsrFile): boolean {
  if (!isMapping(csr) || !isMapping(csr.sans)) return false;
  let valid = 0;
  for (const kind of KINDS) {
    const values = csr.sans[kind];
    const listPath = [...path, 'sans', kind];
    if (!Array.isArray(values) || !context.clean(listPath)) continue;
    values.forEach((value, index) => {
      const problem = sanProblem(kind, value);
      if (problem === undefined) valid++;
      else reportError(context, [...listPath, index], problem);
    });
  }
  return valid > 0;
}
