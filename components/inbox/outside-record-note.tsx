import { PayloadText } from '@/components/runs/payload-text';
import { VisibleText } from '@/components/ui/visible-text';
import type { OutsideRecord } from '@/lib/studio/reads/outside-record';

/** What the outside system holds under the call's key (the tool's lookup), shown as text: evidence for settling it. */
export function OutsideRecordNote({ record }: { record: OutsideRecord }) {
  if (record.state === 'found') return <PayloadText label="The outside system’s record for this key" value={record.record} data-slot="outside-record" />;
  return (
    <p className="text-xs text-muted-foreground" data-slot="outside-record">
      {record.state === 'not-found' ? (
        'The outside system has no record under this key: it reports the work was not done.'
      ) : (
        <VisibleText text={`The outside system could not be asked: ${record.message}`} />
      )}
    </p>
  );
}
