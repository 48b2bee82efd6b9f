import type { Metadata } from 'next';
import { connection } from 'next/server';
import { DemoCounters } from '@/components/demo/demo-counters';
import { DemoForm } from '@/components/demo/demo-form';
import { DemoWorkflowForm } from '@/components/demo/demo-workflow-form';
import { GuidedCrash } from '@/components/demo/guided-crash';
import { demoInfo, demoServiceState } from '@/lib/studio/demo';
import { requireOperator } from '@/lib/studio/auth/session';

export const metadata: Metadata = { title: 'Demo' };

export default async function DemoPage() {
  await connection();
  await requireOperator();
  const [info, service] = [demoInfo(), await demoServiceState()];
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_24rem]">
      <section className="space-y-4">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Start a demo run</h1>
          <p className="text-sm text-muted-foreground">
            The support agent looks the customer up, opens a ticket, asks a person to approve the refund, issues it and emails the customer. It runs in this
            Studio’s server, so it goes on when you close the page.
          </p>
        </div>
        <p className="rounded-md border p-3 text-sm" data-testid="demo-model">
          Model: <code className="font-mono">{`${info.model.provider}:${info.model.modelId}`}</code>
          {info.model.kind === 'scripted' ? (
            <span className="text-muted-foreground">
              {' '}
              — the deterministic scripted model, because {info.model.reason}. Set GNL_MODEL and OPENAI_API_KEY or ANTHROPIC_API_KEY to use a real one.
            </span>
          ) : (
            <span className="text-muted-foreground"> — a real provider, through the AI SDK.</span>
          )}
        </p>
        <GuidedCrash prompt={info.prompt} allowed={info.crashPoints.allowed} {...(info.crashPoints.allowed ? {} : { why: info.crashPoints.why })} />
        {info.crashPoints.allowed ? null : (
          <p className="rounded-md border p-3 text-sm text-muted-foreground" data-testid="demo-crash-points-off">
            {info.crashPoints.why} A run started here with a crash point is refused.
          </p>
        )}
        <DemoForm defaultPrompt={info.prompt} crashPointsAllowed={info.crashPoints.allowed} checks={info.checks} />
        <div className="space-y-2 border-t pt-4">
          <h2 className="text-base font-semibold">Or start the support workflow</h2>
          <p className="text-sm text-muted-foreground">
            A workflow around the same agent: it classifies the message, hands it to the agent as a child run, then waits for the customer’s reply without
            holding a worker. Send the reply from the run page; with none in time it sends one follow-up email.
          </p>
          <DemoWorkflowForm defaultMessage="I was charged twice for order o_17, please refund it." />
        </div>
        <div className="text-xs text-muted-foreground">
          Customers the outside service knows:{' '}
          {info.customers.map((c) => `${c.customerId} (${c.name}: ${c.orders.map((o) => `${o.orderId} ${o.total} ${o.currency}`).join(', ')})`).join('; ')}.
        </div>
      </section>
      <aside className="space-y-2">
        <h2 className="text-sm font-semibold">The outside service’s counters</h2>
        <DemoCounters initial={service} />
      </aside>
    </div>
  );
}
