/** gnl as real processes on a fresh Postgres database, with `npm run worker` processes executing (tests/support/gnl-cli-suite.ts). */
import { describeGnl } from '@/tests/support/gnl-cli-suite';

describeGnl('postgres');
