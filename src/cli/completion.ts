/**
 * Shell completion from the command tree itself: `svc completion bash|zsh` prints a script that asks
 * this checkout's `svc __complete WORD…` for the candidates of the last word, and that walks the same commander tree the parser
 * uses, generated resource commands included, so completion never lists what the parser would refuse.
 */
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

/**
 * The command the scripts run for candidates: this checkout's own entry under the node that printed the script, by
 * absolute path, so completion works whether `svc` is on the PATH, reached through `npx`, or an alias (a script that
 * ran a bare `svc` completed nothing when `svc` was not on the PATH).
 */
function entryCommand(): string {
  const entry = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
  return [process.execPath, existsSync(entry) ? realpathSync(entry) : entry].map(shellQuoted).join(' ');
}

const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

const bash = (svc: string) => `# svc bash completion: add to ~/.bashrc:  source <(svc completion bash)
_svc_complete() {
  local IFS=$'\\n'
  COMPREPLY=( $(${svc} __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -F _svc_complete svc`;

const zsh = (svc: string) => `#compdef svc
# svc zsh completion: add to ~/.zshrc:  source <(svc completion zsh)
_svc() {
  local -a candidates
  candidates=("\${(@f)$(${svc} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _svc svc`;

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;

export function completionScript(shell: (typeof COMPLETION_SHELLS)[number]): string {
  return shell === 'bash' ? bash(entryCommand()) : zsh(entryCommand());
}

const visible = (command: Command) => !(command as unknown as { _hidden?: boolean })._hidden;

/** The candidates for the last of `words` (the words after `svc`, the last one being typed). */
export function completions(program: Command, words: string[]): string[] {
  let command = program;
  for (const word of words.slice(0, -1)) {
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) command = sub;
  }
  const current = words[words.length - 1] ?? '';
  const candidates = current.startsWith('-')
    ? command.options.filter((o) => !o.hidden).flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined))
    : command.commands.filter(visible).flatMap((c) => [c.name(), ...c.aliases()]);
  if (current.startsWith('-')) candidates.push('--help');
  return [...new Set(candidates)].filter((c) => c.startsWith(current)).sort();
}
