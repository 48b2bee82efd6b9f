/**
 * A run's journal as readable text (`gnl show`, and `--wait` as events arrive): one line per event
 * (sequence number, time of day in UTC, type, the essentials) and indented lines for what a person
 * reads next (the model's text and tool calls, a tool's arguments and output). The day is printed
 * when it changes. Payloads are untrusted: cleaned and cut (format.ts).
 */
import { type RecordedEvent, stepTokenUsage, type TokenUsage } from '@/lib/durable';
import { cut, clean, duration, json, quoted, timeOfDay } from './format';

const TYPE_WIDTH = 'tool-approval-response'.length;
const INDENT = ' '.repeat(6 + 2 + 12 + 2 + TYPE_WIDTH + 2);

/** A model step's tokens (the core's stepTokenUsage reads every usage shape). */
export function tokensText(tokens: TokenUsage): string {
  if (tokens.input === undefined && tokens.output === undefined) return 'tokens -';
  const extra = [tokens.cacheRead ? `${tokens.cacheRead} cached` : '', tokens.reasoning ? `${tokens.reasoning} reasoning` : ''].filter(Boolean);
  return `tokens ${tokens.input ?? '?'} in, ${tokens.output ?? '?'} out${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

interface ContentPart {
  type?: string;
  text?: string;
  toolName?: string;
  toolCallId?: string;
  input?: unknown;
}

function finishOf(result: unknown): string | undefined {
  const reason = (result as { finishReason?: unknown } | undefined)?.finishReason;
  if (typeof reason === 'string') return reason;
  const unified = (reason as { unified?: unknown } | undefined)?.unified;
  return typeof unified === 'string' ? unified : undefined;
}

/** Tool call arguments arrive from the model as a JSON string: shown parsed when they parse. */
function argumentsText(input: unknown, max: number | undefined): string {
  if (typeof input !== 'string') return json(input, max);
  try {
    return json(JSON.parse(input), max);
  } catch {
    return quoted(input, max);
  }
}

/** Writes events as lines; keeps the state that spans events (the day shown, the tool name of each call). */
export class TimelineWriter {
  private day: string | undefined;
  private readonly toolNames = new Map<string, string>();

  /** `max`: characters per value before cutting; undefined shows everything. */
  constructor(private readonly max: number | undefined) {}

  lines(event: RecordedEvent): string[] {
    const out: string[] = [];
    const at = new Date(event.at);
    const day = at.toISOString().slice(0, 10);
    if (day !== this.day) {
      out.push(`-- ${day} (UTC) --`);
      this.day = day;
    }
    const { summary, details } = this.describe(event);
    out.push(`${String(event.seq).padStart(6)}  ${timeOfDay(at)}  ${event.type.padEnd(TYPE_WIDTH)}  ${summary}`.trimEnd());
    for (const detail of details) out.push(`${INDENT}${detail}`);
    return out;
  }

  private call(toolCallId: string, toolName?: string): string {
    if (toolName) this.toolNames.set(toolCallId, toolName);
    const name = toolName ?? this.toolNames.get(toolCallId);
    return `${name ? clean(name) : 'call'} (${clean(toolCallId)})`;
  }

  private describe(event: RecordedEvent): { summary: string; details: string[] } {
    const max = this.max;
    switch (event.type) {
      case 'run-start': {
        const { input } = event;
        const agent = input.agent ? `agent ${clean(input.agent)}${input.agentVersion ? ` (version ${clean(input.agentVersion)})` : ''} · ` : '';
        const details = [`tools: ${input.toolNames.map(clean).join(', ') || 'none'}`];
        if (input.prompt !== undefined) details.unshift(`prompt: ${typeof input.prompt === 'string' ? quoted(input.prompt, max) : json(input.prompt, max)}`);
        if (input.messages !== undefined) details.unshift(`messages: ${json(input.messages, max)}`);
        if (input.forkOf) {
          const { forkOf } = input;
          details.unshift(
            `fork of ${clean(forkOf.runId)} at step ${forkOf.atStep} by ${clean(forkOf.by)}: ${quoted(forkOf.reason, max)} · ${forkOf.copiedEvents} events copied`,
          );
          if (forkOf.instruction !== undefined) details.splice(1, 0, `instruction: ${quoted(forkOf.instruction, max)}`);
        }
        return { summary: `${agent}model ${clean(input.provider)}/${clean(input.modelId)}`, details };
      }
      case 'run-resume':
        return { summary: `continues from ${event.fromStatus}`, details: [] };
      case 'model-step': {
        const content = ((event.result as { content?: unknown })?.content ?? []) as ContentPart[];
        const details: string[] = [];
        for (const part of Array.isArray(content) ? content : []) {
          if (part.type === 'text' && part.text) details.push(`text: ${quoted(part.text, max)}`);
          else if (part.type === 'reasoning' && part.text) details.push(`reasoning: ${quoted(part.text, max)}`);
          else if (part.type === 'tool-call' && part.toolCallId)
            details.push(`tool call ${this.call(part.toolCallId, part.toolName)} ${argumentsText(part.input, max)}`);
        }
        const finish = finishOf(event.result);
        return {
          // Counted from 1, as the Studio's timeline ("Model step 1") and gnl fork --at-step count.
          summary: `step ${event.step + 1} · ${tokensText(stepTokenUsage(event.result))} · ${duration(event.latencyMs)}${finish ? ` · finish ${clean(finish)}` : ''}`,
          details,
        };
      }
      case 'tool-call-start':
        return {
          summary: `${this.call(event.toolCallId, event.toolName)} attempt ${event.attempt}${event.sideEffect ? ' · side effect' : ''} · key ${clean(event.idempotencyKey)}`,
          details: [`args: ${json(event.input, max)}`],
        };
      case 'tool-call-end': {
        const details = event.input !== undefined ? [`args: ${json(event.input, max)}`] : [];
        details.push(`output: ${json(event.output, max)}`);
        return {
          summary:
            event.source === 'provided'
              ? `${this.call(event.toolCallId, event.toolName)} · result provided by ${clean(event.by ?? '?')}${event.reason ? `: ${cut(clean(event.reason), max)}` : ''}`
              : `${this.call(event.toolCallId, event.toolName)} attempt ${event.attempt} · ${event.source} · ${duration(event.durationMs)} · key ${clean(event.idempotencyKey)}`,
          details,
        };
      }
      case 'tool-call-error': {
        const details = event.input !== undefined ? [`args: ${json(event.input, max)}`] : [];
        details.push(`error: ${clean(event.error.name)}: ${cut(clean(event.error.message), max)}`);
        return {
          summary: `${this.call(event.toolCallId, event.toolName)} attempt ${event.attempt} · failed${event.retryable ? ' (tried again on resume)' : ''} · ${duration(event.durationMs)}`,
          details,
        };
      }
      case 'tool-approval-request':
        return {
          summary: `${this.call(event.toolCallId, event.toolName)} needs approval${event.expiresAt ? ` (expires ${clean(event.expiresAt)})` : ''}`,
          details: [`args: ${json(event.input, max)}`],
        };
      case 'tool-approval-response':
        return {
          summary: `${event.approved ? 'approved' : 'rejected'} ${this.call(event.toolCallId)} by ${clean(event.by)}${event.expired ? ' (expired)' : ''}`,
          details: event.reason ? [`reason: ${quoted(event.reason, max)}`] : [],
        };
      case 'side-effect-check': {
        const { result } = event;
        const answer = result.done === true ? 'done' : result.done === false ? 'not done' : `unknown (${clean(result.reason)})`;
        return { summary: `${this.call(event.toolCallId)} attempt ${event.attempt}: the check says ${answer}`, details: [] };
      }
      case 'side-effect-resolution': {
        const details = event.reason ? [`reason: ${quoted(event.reason, max)}`] : [];
        if (event.outcome === 'done' && event.output !== undefined) details.push(`output: ${json(event.output, max)}`);
        return { summary: `${this.call(event.toolCallId)} marked ${event.outcome === 'done' ? 'done' : 'not done'} by ${clean(event.by)}`, details };
      }
      case 'replay-mismatch':
        return {
          summary: `${event.kind === 'model-call' ? `model call ${event.step ?? '?'}` : `arguments of ${this.call(event.toolCallId ?? '?')}`} asked differently on replay`,
          details: [`recorded: ${cut(clean(event.recorded), max)}`, `given: ${cut(clean(event.given), max)}`],
        };
      case 'run-suspend':
        if (event.status === 'waiting' && event.pending.length === 0) return { summary: 'waiting (a workflow: no worker held)', details: [] };
        return {
          summary: `${event.status}: ${event.pending.map((item) => `${item.kind === 'approval' ? 'approval of' : 'unknown outcome of'} ${this.call(item.toolCallId, item.toolName)}`).join(', ')}`,
          details: [],
        };
      case 'run-complete':
        return { summary: `completed after ${event.steps} steps · finish ${clean(event.finishReason)}`, details: [`text: ${quoted(event.text, max)}`] };
      case 'run-fail':
        return { summary: `failed: ${clean(event.error.name)}`, details: [`error: ${cut(clean(event.error.message), max)}`] };
      case 'run-cancel':
        return { summary: `canceled by ${clean(event.by)}`, details: event.reason ? [`reason: ${quoted(event.reason, max)}`] : [] };
      case 'run-resume-request':
        return {
          summary: `resume ${event.resumeAt ? `scheduled for ${clean(event.resumeAt)}` : 'requested'} by ${clean(event.by)}${event.reason ? `: ${cut(clean(event.reason), max)}` : ''}`,
          details: [],
        };
      case 'run-migrate':
        return {
          summary: `migrated to version ${clean(event.toVersion ?? '?')} (from ${clean(event.fromVersion ?? '?')}) by ${clean(event.by)}: ${cut(clean(event.reason), max)}`,
          details: [
            `changed: ${event.changed.map(clean).join(', ') || 'nothing'}`,
            ...(event.overridden ?? []).map((o) => `overridden: ${cut(clean(o), max)}`),
          ],
        };
      case 'run-forked':
        return {
          summary: `forked at step ${event.atStep} as ${clean(event.childRunId)} by ${clean(event.by)}`,
          details: [`reason: ${quoted(event.reason, max)}`],
        };
      case 'run-imported':
        return {
          summary: `imported by ${clean(event.by)} from an export of ${clean(event.from.runId)} (${clean(event.from.exportedAt)})${event.from.redacted ? ', redacted: evidence only' : ''}`,
          details: [],
        };
      case 'run-restarted':
        return { summary: `restarted as ${clean(event.restartedAs)} by ${clean(event.by)}${event.newAttempt ? ' (a new attempt)' : ''}`, details: [] };
      case 'run-retry':
        return {
          summary: `attempt ${event.attempt}/${event.attempts} failed (${clean(event.error.name)}): ${event.retryAt ? `next attempt at ${clean(event.retryAt)}` : 'no attempts left'} · by ${clean(event.by)}`,
          details: [`error: ${cut(clean(event.error.message), max)}`],
        };
      case 'workflow-wait': {
        const { wait } = event;
        const what =
          wait.kind === 'sleep'
            ? `sleeps until ${clean(wait.until)}`
            : wait.kind === 'event'
              ? `waits for event ${clean(wait.event)}${wait.timeoutAt ? ` until ${clean(wait.timeoutAt)}` : ''}${wait.match ? ` matching ${json(wait.match, max)}` : ''}`
              : `waits for ${wait.children.length} child run${wait.children.length === 1 ? '' : 's'}`;
        const children = wait.kind === 'children' ? wait.children.map((child) => `child: ${clean(child.runId)} (${child.kind} ${clean(child.name)})`) : [];
        return { summary: `${clean(event.name)} (${clean(event.waitId)}) ${what}`, details: children.slice(0, 20) };
      }
      case 'workflow-wait-end': {
        const how = { elapsed: 'woke up', event: 'event delivered', timeout: 'timed out', children: 'children settled' }[event.outcome];
        return {
          summary: `${clean(event.waitId)} ${how}${event.eventId ? ` (event ${clean(event.eventId)})` : ''}`,
          details: event.value !== undefined && event.outcome !== 'elapsed' ? [`value: ${json(event.value, max)}`] : [],
        };
      }
      case 'workflow-event':
        return {
          summary: `event ${clean(event.name)} (${clean(event.eventId)}) sent by ${clean(event.by)}`,
          details: [`payload: ${json(event.payload, max)}`],
        };
      default: {
        // A type this version does not know (journals outlive code): shown as its payload.
        const { seq: _seq, at: _at, type: _type, ...payload } = event as RecordedEvent & Record<string, unknown>;
        return { summary: json(payload, max), details: [] };
      }
    }
  }
}

/** Every event of a run as lines. */
export function timelineLines(events: readonly RecordedEvent[], max: number | undefined): string[] {
  const writer = new TimelineWriter(max);
  return events.flatMap((event) => writer.lines(event));
}
