'use client';

import { useQueries, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'next/navigation';
import { CrashGuideList } from '@/components/demo/crash-guide';
import { DemoCounters } from '@/components/demo/demo-counters';
import { StreamStatusBanner } from '@/components/live/stream-status-banner';
import { useRunLive } from '@/components/live/use-run-live';
import { RunActions } from '@/components/runs/run-actions';
import { ResumeRequested } from '@/components/runs/run-pending-reason';
import { RunSchedule } from '@/components/runs/run-schedule';
import { RunSummaryCard } from '@/components/runs/run-summary-card';
import { RunTotalsRow } from '@/components/runs/run-totals';
import type { PriceTable } from '@/lib/cost';
import { Button } from '@/components/ui/button';
import { KeyboardShortcuts } from '@/components/ui/keyboard-shortcuts';
import { runChunkQuery, runQuery, runTailQuery } from '@/lib/studio/reads/queries';
import { resumePreview, type ToolDeclaration } from '@/lib/studio/reads/resume-preview';
import { runSchedule } from '@/lib/studio/reads/run-schedule';
import { addToTotals, addToWaterfall, type Invocation, type RunTotals, type RunWaterfall } from '@/lib/durable/projection';
import { RunAnswer } from '@/components/runs/run-answer';
import { RunInterruptions } from '@/components/runs/run-interruptions';
import { RunWaterfallChart } from '@/components/runs/run-waterfall';
import type { RunExecutorInfo } from '@/lib/studio/reads/run-executor';
import { TraceLinkContext } from './trace-chip';
import { TimelineModeContext } from './timeline-mode';
import { CHUNK_SIZE, chunkOf, type Tail, tailHead } from '@/lib/studio/reads/timeline-window';
import type { WireEvent, WireRun } from '@/lib/studio/reads/wire';
import { NewEventsMarker } from './new-events-marker';
import { pinInView } from './pin-in-view';
import { TimelineChunk } from './timeline-chunk';
import { ForkTarget } from './fork-from-step';
import { TimelineEvent } from './timeline-event';
import { LiveStep } from './live-step';
import { buildTimelineIndex } from './timeline-index';
import { useInView } from './use-in-view';
import { useSeqAnchor } from './use-seq-anchor';

export interface RunViewData {
  run: WireRun;
  tail: Tail;
  totals: RunTotals;
  /** The run's agent's tool declarations (resume preview); null: no registered agent. */
  declarations: Record<string, ToolDeclaration> | null;
  /** The journal from its last model step to the tail (resume preview). */
  planBasis: WireEvent[];
  /** Over the whole journal up to the tail's head: the waterfall and the invocations (run-waterfall.ts). */
  waterfall: RunWaterfall;
  executor: RunExecutorInfo | null;
  /** The price table the totals' cost is computed with (lib/cost). */
  prices: PriceTable;
}

/** The demo's agents (lib/studio/demo.ts DEMO_AGENTS; named here, browser-side): their runs show the outside service's counters. */
const DEMO_AGENT_NAMES: readonly string[] = ['support', 'support-unchecked', 'support-four-eyes'];

/** From this many events on, the timeline opens compact (one line per event). */
export const COMPACT_FROM_EVENTS = 200;

const NO_ACTIONS = [] as const;
const ignoreNear = (_chunk: number) => {};

/** Scrolls to an event and keeps it in view while the page settles (pin-in-view.ts). */
function scrollToEvent(seq: number): boolean {
  const element = document.getElementById(`seq-${seq}`);
  if (!element) return false;
  pinInView(element, { within: element.closest('[data-testid="run-view"]') });
  return true;
}

type ChunkState = { data: WireEvent[] | undefined; error: Error | null };
const combineChunks = (results: { data: WireEvent[] | undefined; error: Error | null }[]): ChunkState[] => results.map(({ data, error }) => ({ data, error }));

/**
 * A run's page below its title: the summary and totals, and the journal as a timeline that follows the
 * run live. The tail comes with the page; earlier chunks load as they scroll into view (or when a
 * `#seq-N` link points into them).
 */
export function RunView({ initial, traceUrl, children }: { initial: RunViewData; traceUrl?: string; children?: React.ReactNode }) {
  const runId = initial.run.runId;
  // Opened by the Demo page's guided crash (?guide=crash): its checklist follows the run.
  const guided = useSearchParams().get('guide') === 'crash';
  const stream = useRunLive(runId);
  const { data: run } = useQuery({ ...runQuery(runId), initialData: initial.run });
  const { data: tail } = useQuery({ ...runTailQuery(runId), initialData: initial.tail });
  const totals = useMemo(() => addToTotals(initial.totals, tail.events), [initial.totals, tail.events]);
  const waterfall = useMemo(() => addToWaterfall(initial.waterfall, tail.events), [initial.waterfall, tail.events]);
  const invocations = waterfall.invocations.invocations;
  // One state at a time (issue 32): a resume asked for and not begun is "resuming", not "blocked, waiting to resume".
  const resuming = waterfall.invocations.resumeRequested;
  const [compact, setCompact] = useState(initial.run.lastSeq >= COMPACT_FROM_EVENTS);
  const mode = useMemo(() => ({ compact, invocations: new Map<number, Invocation>(invocations.map((i) => [i.seq, i])) }), [compact, invocations]);
  // The open wait's right edge: the page's clock when the journal last moved (no timer: nothing to redraw in between).
  const now = useMemo(() => Math.max(Date.now(), waterfall.invocations.last?.at ?? 0), [waterfall]);
  const preview = useMemo(
    () => resumePreview(run, [...initial.planBasis.filter((e) => e.seq < tail.startSeq), ...tail.events], initial.declarations ?? undefined),
    [run, tail.events, tail.startSeq, initial.planBasis, initial.declarations],
  );
  const schedule = useMemo(
    () => runSchedule(run, [...initial.planBasis.filter((e) => e.seq < tail.startSeq), ...tail.events]),
    [run, tail.events, tail.startSeq, initial.planBasis],
  );

  const firstTailChunk = chunkOf(tail.startSeq);
  const [oldest, setOldest] = useState(firstTailChunk);
  const [requested, setRequested] = useState<ReadonlySet<number>>(() => new Set());
  const chunkIds = useMemo(() => Array.from({ length: Math.max(firstTailChunk - oldest, 0) }, (_, i) => oldest + i), [oldest, firstTailChunk]);
  const chunks = useQueries({
    queries: chunkIds.map((chunk) => ({ ...runChunkQuery(runId, chunk), enabled: requested.has(chunk) })),
    combine: combineChunks,
  });
  const index = useMemo(() => buildTimelineIndex([...chunks.flatMap((c) => c.data ?? []), ...tail.events]), [chunks, tail.events]);
  const sideEffectKeys = useMemo(
    () => [...new Set([...index.calls.values()].flatMap((call) => [...call.starts, ...(call.end ? [call.end] : [])].map((e) => e.idempotencyKey)))],
    [index],
  );
  const request = useCallback((chunk: number) => setRequested((r) => (r.has(chunk) ? r : new Set(r).add(chunk))), []);

  // A #seq-N link: show the chunks back to it, load its own, scroll there once it is rendered.
  const [anchor, setAnchor] = useState<number>();
  useSeqAnchor((seq) => {
    if (seq < tail.startSeq) {
      setOldest((o) => Math.min(o, chunkOf(seq)));
      request(chunkOf(seq));
    }
    setAnchor(seq);
  });
  useEffect(() => {
    if (anchor === undefined) return;
    const own = anchor < tail.startSeq ? chunks[chunkOf(anchor) - oldest] : undefined;
    // Found and pinned, or its chunk answered without it (or failed): the link has done what it can.
    const read = anchor >= tail.startSeq || own?.data !== undefined || own?.error != null;
    if (scrollToEvent(anchor) || read) setAnchor(undefined);
  }, [anchor, chunks, tail, oldest]);
  // While a link's chunk loads, the placeholders around it (all near the top before it renders) wait:
  // reading them would render hundreds of events the person did not ask for before the one they did.
  const requestNear = anchor === undefined ? request : ignoreNear;

  // Follow the tail while the person is at the bottom; otherwise count what arrived below them.
  const [bottomRef, atBottom] = useInView<HTMLDivElement>('0px 0px 160px 0px');
  const head = tailHead(tail);
  const seenHead = useRef(head);
  const [unseenFrom, setUnseenFrom] = useState<number>();
  useEffect(() => {
    if (head <= seenHead.current) return;
    const from = seenHead.current + 1;
    seenHead.current = head;
    if (atBottom) bottomRef.current?.scrollIntoView({ block: 'end' });
    else setUnseenFrom((f) => f ?? from);
  }, [head, atBottom, bottomRef]);
  useEffect(() => {
    if (atBottom) setUnseenFrom(undefined);
  }, [atBottom]);

  return (
    <div className="space-y-6" data-testid="run-view" data-stream={stream} data-head={head}>
      <StreamStatusBanner status={stream} what="This run's journal" />
      <KeyboardShortcuts actions={NO_ACTIONS} what="the timeline" />
      {children}
      <ResumeRequested.Provider value={resuming}>
        <RunActions run={run} preview={preview} timers={schedule.timers} {...(resuming ? { resuming } : {})} />
        <RunSummaryCard run={run}>
          <RunAnswer invocations={invocations} />
          <RunSchedule schedule={schedule} />
          <RunTotalsRow run={run} totals={totals} prices={initial.prices} className="border-t pt-3" />
        </RunSummaryCard>
      </ResumeRequested.Provider>
      {guided ? <CrashGuideList index={index} status={run.status} /> : null}
      {DEMO_AGENT_NAMES.includes(run.input.agent ?? '') ? (
        <section className="space-y-2 rounded-lg border p-4" data-testid="run-demo-counters">
          <h2 className="text-sm font-semibold">The outside service, for this run</h2>
          <DemoCounters keys={sideEffectKeys} />
        </section>
      ) : null}
      <RunWaterfallChart waterfall={waterfall} now={now} />
      <RunInterruptions invocations={invocations} executor={initial.executor} />
      <section className="space-y-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 className="text-base font-semibold tracking-tight">
            Journal <span className="font-normal text-muted-foreground">({run.lastSeq} events)</span>
          </h2>
          <fieldset className="inline-flex rounded-md border p-0.5 text-xs" data-testid="timeline-mode">
            <legend className="sr-only">Show the journal as</legend>
            {(['cards', 'compact'] as const).map((m) => (
              <Button
                key={m}
                type="button"
                size="sm"
                variant={(m === 'compact') === compact ? 'default' : 'ghost'}
                aria-pressed={(m === 'compact') === compact}
                className="h-6 px-2 text-xs"
                onClick={() => setCompact(m === 'compact')}
              >
                {m === 'cards' ? 'Cards' : 'One line per event'}
              </Button>
            ))}
          </fieldset>
        </div>
        {oldest > 0 ? (
          <div className="flex justify-center">
            <Button type="button" variant="outline" size="sm" onClick={() => setOldest((o) => Math.max(o - 1, 0))} data-testid="load-earlier">
              Earlier events (#{(oldest - 1) * CHUNK_SIZE + 1}–#{oldest * CHUNK_SIZE})
            </Button>
          </div>
        ) : null}
        <TraceLinkContext.Provider value={traceUrl}>
          <TimelineModeContext.Provider value={mode}>
            <ForkTarget.Provider value={runId}>
              <ol data-testid="run-events" className="divide-y rounded-lg border [&>li]:[content-visibility:auto] [&>li]:[contain-intrinsic-size:auto_6rem]">
                {chunkIds.map((chunk, i) => (
                  <TimelineChunk key={chunk} chunk={chunk} events={chunks[i]?.data} error={chunks[i]?.error ?? null} index={index} onNear={requestNear} />
                ))}
                {tail.events.map((event) => (
                  <TimelineEvent key={event.seq} event={event} index={index} />
                ))}
              </ol>
            </ForkTarget.Provider>
          </TimelineModeContext.Provider>
        </TraceLinkContext.Provider>
        {tail.events.length === 0 && chunkIds.length === 0 ? <p className="text-sm text-muted-foreground">No events yet.</p> : null}
        <LiveStep runId={runId} running={run.status === 'running'} />
        <div ref={bottomRef} data-testid="timeline-end" className="h-px" />
      </section>
      <NewEventsMarker
        count={unseenFrom === undefined ? 0 : head - unseenFrom + 1}
        onShow={() => {
          if (unseenFrom !== undefined) scrollToEvent(unseenFrom);
          setUnseenFrom(undefined);
        }}
      />
    </div>
  );
}
