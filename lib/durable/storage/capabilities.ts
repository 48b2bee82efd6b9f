/**
 * What a storage can do that the layers above depend on, named for what they need: they ask for a
 * capability, never for `kind` (which stays, for display and logs). Both storages are the same Postgres
 * journal (postgres-journal.ts); what differs is how many processes can reach it and what a hold is.
 */
export interface StorageCapabilities {
  /**
   * Several processes may open this journal at once (workers beside the Studio, the CLI beside both).
   * False on the embedded journal: one process per data folder (folder-lock.ts), so that process is the
   * only executor there, and a lease held by any other owner was left by an earlier process that is gone.
   */
  readonly multiProcess: boolean;
  /**
   * A run's hold is a database session that another process can end (run-locks.ts terminateRunHolders),
   * so an executor holding the run's lease can take the run from a holder that hangs without dying.
   */
  readonly holdTakeover: boolean;
}

export const SERVER_CAPABILITIES: StorageCapabilities = Object.freeze({ multiProcess: true, holdTakeover: true });
export const EMBEDDED_CAPABILITIES: StorageCapabilities = Object.freeze({ multiProcess: false, holdTakeover: false });
