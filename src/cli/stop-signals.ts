/**
 * When a long-running command (the controller) should stop: SIGINT, SIGTERM or SIGHUP, and, when npm started it
 * (`npx svc …`, `npm exec svc …`, `npm run …`), the end of the npm process that started it.
 *
 * Why the last one: npm runs the command as `npm exec` -> `sh -c svc …` -> node. A SIGTERM sent to the pid a
 * shell's `&` reports (npm's) ends npm and the intermediate shell, but nothing passes it on to node, which would
 * keep the port open as an orphan. So under npm the process watches its parent: when that parent is gone (the
 * process was re-parented), it stops as if it had received SIGTERM. Outside npm it does not, so that
 * `nohup svc quickstart &` survives the shell that started it.
 */

export type StopReason = NodeJS.Signals | 'parent-exited';

export interface StopWatch {
  /** Resolves with the first reason to stop. */
  readonly stopped: Promise<StopReason>;
  /** Removes the handlers and the parent watch (after the stop was handled, or when giving up). */
  dispose(): void;
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Starts watching for a reason to stop. A second signal while the first stop is under way exits at once (exit
 * code 130), for a stop that hangs.
 */
export function watchForStop(options: { env?: NodeJS.ProcessEnv; parentCheckMs?: number; onForcedExit?: () => void } = {}): StopWatch {
  const env = options.env ?? process.env;
  let resolveStop!: (reason: StopReason) => void;
  const stopped = new Promise<StopReason>((resolve) => (resolveStop = resolve));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.onForcedExit?.();
      process.exit(130);
    }
    stopping = true;
    resolveStop(signal);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);

  let timer: NodeJS.Timeout | undefined;
  // npm sets npm_command (exec, run-script, …) in the environment of every command it runs.
  if (env.npm_command) {
    const parent = process.ppid;
    timer = setInterval(() => {
      if (process.ppid !== parent && !stopping) {
        stopping = true;
        resolveStop('parent-exited');
      }
    }, options.parentCheckMs ?? 500);
    // The watch alone never keeps the process alive.
    timer.unref();
  }

  return {
    stopped,
    dispose() {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      if (timer) clearInterval(timer);
    },
  };
}
