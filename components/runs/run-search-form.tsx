import Link from 'next/link';
import { Button, buttonVariants } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';
import type { RunStatus } from '@/lib/durable';
import { cn } from '@/lib/utils';

/**
 * Agent filter and search (run-id prefix, tool name or idempotency key) as a GET form: each view has a
 * URL and it works without JavaScript. The status filter is kept; a new search starts at the first page.
 */
export function RunSearchForm({
  agents,
  agent,
  q,
  status,
  className,
  ...props
}: React.ComponentProps<'form'> & { agents: readonly string[]; agent: string | undefined; q: string | undefined; status: RunStatus | undefined }) {
  const options = agent && !agents.includes(agent) ? [...agents, agent] : agents;
  return (
    <form action="/" method="get" aria-label="Search runs" data-slot="run-search-form" className={cn('flex flex-wrap items-end gap-2', className)} {...props}>
      {status ? <input type="hidden" name="status" value={status} /> : null}
      <div className="grid gap-1">
        <Label htmlFor="runs-agent">Agent</Label>
        {/* Keyed by the value: after a client navigation (Clear, a status link) the field shows the URL's value, not the last one typed. */}
        <select
          key={agent ?? ''}
          id="runs-agent"
          name="agent"
          defaultValue={agent ?? ''}
          className="h-9 rounded-md border bg-background px-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-foreground"
        >
          <option value="">any agent</option>
          {options.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div className="grid min-w-64 flex-1 gap-1">
        <Label htmlFor="runs-q">Run id prefix, tool name or idempotency key</Label>
        <Input
          key={q ?? ''}
          id="runs-q"
          name="q"
          type="search"
          defaultValue={q ?? ''}
          maxLength={200}
          placeholder="e.g. issueRefund or gnl3a_…"
          autoComplete="off"
        />
      </div>
      <Button type="submit" variant="outline" size="sm" className="h-9">
        Search
      </Button>
      {agent || q ? (
        <Link href={status ? `/?status=${encodeURIComponent(status)}` : '/'} className={cn(buttonVariants({ variant: 'ghost', size: 'sm' }), 'h-9')}>
          Clear
        </Link>
      ) : null}
    </form>
  );
}
