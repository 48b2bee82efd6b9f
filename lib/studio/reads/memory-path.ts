/** A memory resource's page: `/memory/<resource>`, its id encoded as a run id's segment is (run-path.ts: any printable text round-trips). Browser-safe. */
import { decodeRunSegment, encodeRunSegment } from './run-path';

export function memoryHref(resource: string): string {
  return `/memory/${encodeRunSegment(resource)}`;
}

/** The resource a `/memory/<segment>` names; undefined when the segment is not one memoryHref makes. */
export function resourceOfSegment(segment: string): string | undefined {
  const resource = decodeRunSegment(segment);
  return resource !== undefined && resource.length <= 200 ? resource : undefined;
}
