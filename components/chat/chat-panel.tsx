'use client';

/**
 * The Studio's chat with the support agent, on useChat. Sends only the new message (the server reads the
 * conversation from the journal), and always resumes: on mount and after any broken connection (a
 * reload, a restarted server) it asks /api/chat/<id>/stream, which replays the last turn's answer from
 * its start and follows it, so the answer shows whole and once. While a turn waits for a person (a
 * refund to approve), the page asks where the turn stands and, once the run goes on, follows it again.
 */
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage } from 'ai';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';

type TurnState = { runId: string; status: string; waitingFor: string[] };

const RECONNECT_MS = [500, 1000, 2000, 3000, 5000];
const POLL_MS = 2000;

export function ChatPanel({ conversationId, initialMessages, lastTurn }: { conversationId: string; initialMessages: UIMessage[]; lastTurn?: TurnState }) {
  const [turn, setTurn] = useState<TurnState | undefined>(lastTurn);
  const [draft, setDraft] = useState('');
  const [reconnecting, setReconnecting] = useState(false);
  const attempts = useRef(0);
  const reconnectTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: '/api/chat',
        prepareSendMessagesRequest: ({ id, messages }) => ({ body: { id, message: messages.at(-1) } }),
      }),
    [],
  );
  const resumeRef = useRef<() => Promise<void>>(async () => undefined);
  const scheduleReconnect = useCallback(() => {
    clearTimeout(reconnectTimer.current);
    const delay = RECONNECT_MS[Math.min(attempts.current, RECONNECT_MS.length - 1)] as number;
    attempts.current += 1;
    setReconnecting(true);
    reconnectTimer.current = setTimeout(() => void resumeRef.current(), delay);
  }, []);
  const { messages, sendMessage, status, error, resumeStream, clearError } = useChat({
    id: conversationId,
    messages: initialMessages,
    resume: true,
    transport,
    onError: (failure) => {
      // A connection that broke (the server restarted, the network dropped) is followed again; a refusal is shown.
      if (isDisconnect(failure) && attempts.current < 60) scheduleReconnect();
    },
    onFinish: ({ isDisconnect: disconnected, isError }) => {
      if (!disconnected && !isError) {
        attempts.current = 0;
        setReconnecting(false);
      }
    },
  });
  resumeRef.current = async () => {
    clearError();
    await resumeStream();
  };
  useEffect(() => () => clearTimeout(reconnectTimer.current), []);
  useEffect(() => {
    if (status === 'streaming') {
      attempts.current = 0;
      setReconnecting(false);
    }
  }, [status]);

  // While the last turn is not settled and nothing streams: ask where it stands; follow it when it runs again.
  const idle = status === 'ready' || status === 'error';
  const open = turn !== undefined && !['completed', 'failed', 'canceled'].includes(turn.status);
  useEffect(() => {
    if (!idle || reconnecting || !open) return;
    let stopped = false;
    const timer = setInterval(async () => {
      const response = await fetch(`/api/chat/${encodeURIComponent(conversationId)}`, { cache: 'no-store' }).catch(() => undefined);
      if (stopped || !response?.ok) return;
      const last = ((await response.json()) as { turns: TurnState[] }).turns.at(-1);
      if (stopped || !last) return;
      const before = turn;
      setTurn(last);
      const movedOn = before?.runId === last.runId && before.status !== last.status;
      if (movedOn && (last.status === 'running' || last.status === 'completed')) void resumeRef.current();
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [idle, reconnecting, open, conversationId, turn]);

  const busy = status === 'submitted' || status === 'streaming';
  const waiting = turn?.status.startsWith('waiting') ? turn : undefined;
  const send = () => {
    const text = draft.trim();
    if (!text || busy || waiting) return;
    setDraft('');
    setTurn({ runId: '', status: 'running', waitingFor: [] });
    void sendMessage({ text });
  };

  return (
    <div className="space-y-4">
      <ol className="space-y-3" data-testid="chat-messages" aria-live="polite">
        {messages.map((message) => (
          <li
            key={message.id}
            data-testid={`chat-message-${message.role}`}
            data-message-id={message.id}
            className={message.role === 'user' ? 'flex justify-end' : ''}
          >
            <div className={message.role === 'user' ? 'max-w-[80%] rounded-lg bg-foreground/5 px-3 py-2 text-sm' : 'max-w-[90%] space-y-2 text-sm'}>
              {message.parts.map((part, i) => (
                <MessagePart key={i} part={part} />
              ))}
            </div>
          </li>
        ))}
      </ol>
      <p className="min-h-5 text-xs text-muted-foreground" data-testid="chat-status">
        {reconnecting
          ? 'Connection lost: reconnecting to the answer…'
          : busy
            ? 'The agent is answering…'
            : waiting
              ? `Waiting for a person: ${waiting.waitingFor.join(', ') || waiting.status}. Decide in the inbox; the chat goes on by itself.`
              : error && !isDisconnect(error)
                ? error.message
                : ''}
      </p>
      <form
        className="flex items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <Textarea
          aria-label="Message"
          data-testid="chat-input"
          rows={2}
          value={draft}
          placeholder={waiting ? 'The last turn waits for a person…' : 'Ask the support agent, e.g. “Customer c_42 wants a refund of 40 for order o_17”'}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              send();
            }
          }}
        />
        <Button type="submit" data-testid="chat-send" disabled={busy || Boolean(waiting) || draft.trim() === ''}>
          Send
        </Button>
      </form>
    </div>
  );
}

function MessagePart({ part }: { part: UIMessage['parts'][number] }) {
  if (part.type === 'text')
    return (
      <p className="whitespace-pre-wrap" data-testid="chat-text">
        <VisibleText text={part.text} />
      </p>
    );
  if (part.type.startsWith('tool-')) {
    const tool = part as { type: string; state?: string; toolCallId?: string };
    const name = tool.type.slice('tool-'.length);
    return (
      <p className="flex items-center gap-2 font-mono text-xs text-muted-foreground" data-testid="chat-tool" data-tool={name} data-state={tool.state}>
        <span className="rounded border px-1.5 py-0.5">{name}</span>
        <span>{toolStateText(tool.state)}</span>
        {tool.state === 'approval-requested' ? (
          <Link href="/inbox" className="font-sans text-foreground underline">
            Open the inbox
          </Link>
        ) : null}
      </p>
    );
  }
  return null;
}

function toolStateText(state: string | undefined): string {
  switch (state) {
    case 'input-streaming':
    case 'input-available':
      return 'running…';
    case 'approval-requested':
      return 'waiting for approval';
    case 'approval-responded':
      return 'decided, going on…';
    case 'output-available':
      return 'done';
    case 'output-error':
      return 'failed';
    case 'output-denied':
      return 'refused';
    default:
      return state ?? '';
  }
}

function isDisconnect(error: Error): boolean {
  const message = error.message.toLowerCase();
  return error.name === 'TypeError' || message.includes('network') || message.includes('failed to fetch') || message.includes('load failed');
}
