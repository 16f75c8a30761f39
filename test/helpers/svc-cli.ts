/** Runs the `svc` CLI from source (what bin/svc.js does from dist), for tests that spawn it as a process. */
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
