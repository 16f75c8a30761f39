/**
 * A warning for a password given on the command line (`-p`, `--password`, `--admin-password`): every user of the
 * machine can read a process's arguments (`ps`, /proc/PID/cmdline), and shells keep them in their history. The command
 * still runs (scripts and first tries depend on it); the warning names the option and the ways that keep the secret
 * off the command line.
 */
import type { Command } from 'commander';
import type { Output } from './output.js';

/** Option attributes that carry a secret, with the safer ways to give it for the commands that take it. */
const SECRET_OPTIONS: Record<string, { flag: string; instead: (command: Command) => string }> = {
  password: {
    flag: '--password',
    // `edge login` also reads SVC_ADMIN_PASSWORD; `edge enroll` (updb) reads stdin or prompts; `ext-jwt check` reads
    // the variable only.
    instead: (command) => {
      if (!command.options.some((option) => option.long === '--password-stdin')) return 'SVC_ADMIN_PASSWORD';
      return command.name() === 'login' ? '--password-stdin, SVC_ADMIN_PASSWORD or the prompt' : '--password-stdin or the prompt';
    },
  },
  adminPassword: { flag: '--admin-password', instead: () => 'SVC_ADMIN_PASSWORD' },
};

/** The warning for `attribute` given on the command line of `command`, or undefined when it was not. */
export function argvSecretWarning(command: Command, attribute: string): string | undefined {
  const secret = SECRET_OPTIONS[attribute];
  if (!secret || command.getOptionValueSource(attribute) !== 'cli') return undefined;
  const option = command.options.find((candidate) => candidate.attributeName() === attribute);
  const spelled = option?.short ? `${option.short}/${secret.flag}` : secret.flag;
  return `svc: warning: ${spelled} puts the password on the command line, where other users of this machine can read it (ps, /proc) and the shell history keeps it; use ${secret.instead(command)} instead`;
}

/** Makes every command of `program` warn on stderr, before it runs, of a password given on its command line. */
export function warnOfSecretsOnArgv(program: Command, out: Output): void {
  program.hook('preAction', (_hooked, acting) => {
    for (const attribute of Object.keys(SECRET_OPTIONS)) {
      const warning = argvSecretWarning(acting, attribute);
      if (warning) out.error(warning);
    }
  });
}
