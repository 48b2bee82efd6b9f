/**
 * The Studio's Export: a run's journal as JSON lines (lib/durable/export/run-export.ts), as a download. Always
 * redacted, as every page redacts (GNL_SECRET_FIELDS on top of the defaults): revealing secrets is the
 * command line's, for an operator with the key, audited (docs/operations.md#export-and-import).
 * Server-only: it opens the journal the environment names.
 */
import { exportRun, exportText, RunTransferError, secretFieldsFromEnv } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { encodeRunSegment } from './run-path';

export async function runExportResponse(runId: string): Promise<Response> {
  const exported = await exportRun({ journal: storageFromEnv().runs, runId, fields: secretFieldsFromEnv(process.env) }).catch((error: unknown) => {
    if (RunTransferError.isInstance(error) && error.reason === 'unknown-run') return undefined;
    throw error;
  });
  if (!exported) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return new Response(exportText(exported), {
    headers: {
      'content-type': 'application/x-ndjson; charset=utf-8',
      // The run segment's encoding has no quote, slash or control character: safe in a header and as a file name.
      'content-disposition': `attachment; filename="gnl-run-${encodeRunSegment(runId).replaceAll(':', '_')}.jsonl"`,
      'cache-control': 'no-store',
    },
  });
}
