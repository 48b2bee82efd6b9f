/**
 * The `gnl` process: runs one command line and exits with its code. bin/gnl.mjs loads it through tsx;
 * the tests run the same module precompiled (tests/support/child-bundles.ts).
 */
import { main } from './main';

const code = await main(process.argv);
process.exitCode = code;
// Everything is closed by now; should a stray handle keep the event loop alive, do not hang a script.
setTimeout(() => process.exit(code), 2_000).unref();
