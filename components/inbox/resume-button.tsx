'use client';

import { useMutation } from '@tanstack/react-query';
import { resumeRunAction } from '@/app/(studio)/actions';
import { Button } from '@/components/ui/button';
import { RefusalNote } from './action-feedback';

/** Resumes a run in the Studio's executor (in the server, not the browser). */
export function ResumeButton({ runId, label = 'Resume', ...props }: React.ComponentProps<typeof Button> & { runId: string; label?: string }) {
  const mutation = useMutation({ mutationFn: () => resumeRunAction({ runId }) });
  const result = mutation.data;
  return (
    <div className="space-y-2">
      <Button type="button" size="sm" disabled={mutation.isPending} onClick={() => mutation.mutate()} {...props}>
        {label}
      </Button>
      {result?.ok ? (
        <p className="text-xs text-muted-foreground" data-testid="resume-note">
          {result.resume.message}
        </p>
      ) : result ? (
        <RefusalNote refusal={result} />
      ) : null}
    </div>
  );
}
