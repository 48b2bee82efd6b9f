/** gnl through its own entry (in the test's process; the launcher and crashes as real processes) on a temp embedded journal (tests/support/gnl-cli-suite.ts). */
import { describeGnl } from '@/tests/support/gnl-cli-suite';

describeGnl('pglite');
