// Types of private-build.mjs (plain JavaScript: scripts/studio.mjs runs it before dependencies are installed).

/** An entry that was open to other users: its permission bits as found, and as they are now. */
export interface LooseBuildEntry {
  path: string;
  kind: 'folder' | 'file';
  mode: number;
  now: number;
}
export declare function privateBuild(nextDir: string, options?: { log?: (line: string) => void }): LooseBuildEntry[];
