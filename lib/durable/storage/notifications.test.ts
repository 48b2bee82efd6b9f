import { expect, it } from 'vitest';
import { CoalescingNotifier, parseNotification } from './notifications';

/** A sender that records each statement's payloads and can be held open, as a slow side session would be. */
function recordingSender() {
  const statements: string[][] = [];
  let release: (() => void) | undefined;
  let holding = false;
  return {
    statements,
    hold: () => {
      holding = true;
    },
    letGo: () => {
      holding = false;
      release?.();
    },
    send: async (payloads: string[]) => {
      statements.push(payloads);
      if (holding) await new Promise<void>((resolve) => (release = resolve));
    },
  };
}

it('appends that come within one window go out in one statement, one payload per run with its highest sequence number', async () => {
  const sender = recordingSender();
  const notifier = new CoalescingNotifier(sender.send, undefined, 5);
  for (let seq = 1; seq <= 100; seq++) for (const runId of ['a', 'b', 'c']) notifier.announce(runId, seq);
  notifier.announceStream('a', 7);
  await notifier.idle();
  expect(sender.statements).toHaveLength(1);
  expect(sender.statements[0]?.map(parseNotification)).toEqual([
    { runId: 'a', lastSeq: 100 },
    { runId: 'b', lastSeq: 100 },
    { runId: 'c', lastSeq: 100 },
    undefined, // the stream batch's payload is no append
  ]);
  expect(sender.statements[0]?.[3]).toBe('s7:a');
});

it('what is announced while a statement is in flight goes in the next one: nothing is lost, nothing waits forever', async () => {
  const sender = recordingSender();
  const notifier = new CoalescingNotifier(sender.send, undefined, 0);
  sender.hold();
  notifier.announce('a', 1);
  while (sender.statements.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  notifier.announce('a', 2);
  notifier.announce('b', 5);
  sender.letGo();
  await notifier.idle();
  expect(sender.statements).toEqual([['1:a'], ['2:a', '5:b']]);
});

it('a failed statement is reported and the next announcements still go out', async () => {
  const errors: unknown[] = [];
  const sent: string[][] = [];
  let fail = true;
  const notifier = new CoalescingNotifier(
    async (payloads) => {
      sent.push(payloads);
      if (fail) throw new Error('connection lost');
    },
    (error) => errors.push(error),
    0,
  );
  notifier.announce('a', 1);
  await notifier.idle();
  fail = false;
  notifier.announce('a', 2);
  await notifier.idle();
  expect(sent).toEqual([['1:a'], ['2:a']]);
  expect(errors).toHaveLength(1);
});
