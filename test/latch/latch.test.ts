import { describe, expect, test } from 'vitest';
import { fromSignal } from '../helpers/cancel.js';
import { rng } from '../helpers/random.js';
import { SessionLatch, type LatchAnswer, type LatchCall, type LatchOutcome } from '../../src/latch/latch.js';
import type { Decision, Verdict } from '../../src/policy/types.js';

/**
 * The latch on its own (docs/approval.md#the-latch): ordering, re-checks and exactly-once, with scripted calls. The
 * randomised test interleaves many calls, answers, cancels and timeouts across sessions and checks
 * the invariants after every run.
 */
function decision(verdict: Verdict, reason = verdict): Decision {
  return { verdict, kind: 'write', rule: null, by: 'mode', reason, subjects: [], paths: [], commandInfo: null };
}

interface Scripted {
  call: LatchCall;
  controller: AbortController;
  asked: number;
  outcome: Promise<LatchOutcome>;
}

function scripted(latch: SessionLatch, verdict: () => Verdict, ask: (decision: Decision) => Promise<LatchAnswer>): Scripted {
  const controller = new AbortController();
  const entry = { asked: 0 } as Scripted;
  entry.controller = controller;
  entry.call = {
    cancel: fromSignal(controller.signal),
    decision: decision(verdict()),
    recheck: () => decision(verdict()),
    ask: (current) => {
      entry.asked += 1;
      return ask(current);
    },
    denial: (d) => `Denied by mcp-latch: ${d.reason}`,
  };
  entry.outcome = latch.submit(entry.call);
  return entry;
}

const tick = () => new Promise((done) => setImmediate(done));

async function eventuallyAsked(check: () => boolean): Promise<void> {
  for (let turn = 0; turn < 50 && !check(); turn += 1) await tick();
  expect(check()).toBe(true);
}

describe('SessionLatch', () => {
  test('passNow lets through only an allowed call with nothing to wait for', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    expect(latch.passNow(decision('allow'), true, false)).toEqual({ type: 'forward', decision: decision('allow'), answer: null });
    // Not alone in its read: a later message of the same read may be an ask it must wait for.
    expect(latch.passNow(decision('allow'), false, false)).toBeNull();
    expect(latch.passNow(decision('ask'), true, false)).toBeNull();
    expect(latch.passNow(decision('deny'), true, false)).toBeNull();
    expect(latch.passNow(decision('allow'), true, true)).toBeNull();
    // While a batch is open (a prompt is showing), even a lone allowed call joins it.
    let answer!: (value: LatchAnswer) => void;
    const waiting = scripted(latch, () => 'ask', () => new Promise((done) => (answer = done)));
    await tick();
    expect(latch.passNow(decision('allow'), true, false)).toBeNull();
    answer({ verdict: 'deny', by: 'user', text: 'Denied by mcp-latch: no' });
    await waiting.outcome;
    expect(latch.passNow(decision('allow'), true, false)).not.toBeNull();
    // With ordering "none" an allowed call never waits for others.
    expect(new SessionLatch({ ordering: 'none' }).passNow(decision('allow'), false, false)).not.toBeNull();
  });

  // Round 15 review A1: a broader rule an answer put in force released the other calls of its batch unseen.
  test('calls of a batch are re-checked without the broader rules an answer gave another call, unless identical to it', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    const seen: Array<[string, string[] | null]> = [];
    const call = (name: string, key: string, answer: LatchAnswer): LatchCall & { outcome?: Promise<LatchOutcome> } => ({
      cancel: fromSignal(new AbortController().signal),
      decision: decision('ask'),
      key,
      // Allowed once a rule of the answer is in force, unless the latch withholds it.
      recheck: (withheld) => {
        seen.push([name, withheld ? [...withheld] : null]);
        return decision(withheld?.has('Bash(touch *)') ? 'ask' : 'allow');
      },
      ask: async () => answer,
      denial: (d) => `Denied by mcp-latch: ${d.reason}`,
    });
    const granted: LatchAnswer = { verdict: 'allow', by: 'user', broader: ['Bash(touch *)'] };
    const first = call('first', 'k1', granted);
    const copy = call('copy', 'k1', { verdict: 'deny', by: 'user', text: 'Denied by mcp-latch: asked' });
    const other = call('other', 'k2', { verdict: 'deny', by: 'user', text: 'Denied by mcp-latch: asked' });
    const outcomes = [first, copy, other].map((entry) => latch.submit(entry));
    const [a, b, c] = await Promise.all(outcomes);
    expect(a!.type).toBe('forward');
    expect(b!.type).toBe('forward');
    expect(c).toMatchObject({ type: 'deny', text: 'Denied by mcp-latch: asked' });
    expect(seen.filter(([name]) => name === 'copy').every(([, withheld]) => withheld === null)).toBe(true);
    expect(seen.filter(([name]) => name === 'other').every(([, withheld]) => withheld?.includes('Bash(touch *)'))).toBe(true);
  });

  // Round 13 review R1: the person answered "Allow once" after a deny rule was added for the call.
  test.each(['batch', 'none'] as const)('ordering %s: a deny rule added while the person answers beats their allow', async (ordering) => {
    const latch = new SessionLatch({ ordering });
    let verdict: Verdict = 'ask';
    let answer!: (value: LatchAnswer) => void;
    const waiting = scripted(latch, () => verdict, () => new Promise((done) => (answer = done)));
    await tick();
    await tick();
    expect(waiting.asked).toBe(1);
    verdict = 'deny';
    answer({ verdict: 'allow', by: 'user' });
    const outcome = await waiting.outcome;
    expect(outcome.type).toBe('deny');
    expect(outcome.type === 'deny' ? outcome.text : '').toBe('Denied by mcp-latch: deny');
  });

  test('an allow answered with no rule change still forwards', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    const waiting = scripted(latch, () => 'ask', async () => ({ verdict: 'allow', by: 'user' }));
    expect((await waiting.outcome).type).toBe('forward');
  });

  test('a call cancelled before its batch is released is never asked about and never forwarded', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    let asked = 0;
    const first = scripted(latch, () => 'allow', async () => ({ verdict: 'allow', by: 'user' }));
    const cancelledAsk = scripted(latch, () => 'ask', async () => {
      asked += 1;
      return { verdict: 'allow', by: 'user' };
    });
    const cancelledAllow = scripted(latch, () => 'allow', async () => ({ verdict: 'allow', by: 'user' }));
    const last = scripted(latch, () => 'allow', async () => ({ verdict: 'allow', by: 'user' }));
    // Cancelled in the same turn, before the batch closes: the latch has not started listening yet.
    cancelledAsk.controller.abort('gone');
    cancelledAllow.controller.abort('gone');
    expect((await cancelledAsk.outcome).type).toBe('cancelled');
    expect((await cancelledAllow.outcome).type).toBe('cancelled');
    expect((await first.outcome).type).toBe('forward');
    expect((await last.outcome).type).toBe('forward');
    expect(asked).toBe(0);
  });

  test('allowed calls in a batch wait for the prompt, then go in arrival order', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    const order: string[] = [];
    let answer!: (value: LatchAnswer) => void;
    const first = scripted(latch, () => 'allow', async () => ({ verdict: 'allow', by: 'user' }));
    const second = scripted(latch, () => 'ask', () => new Promise((done) => (answer = done)));
    const third = scripted(latch, () => 'allow', async () => ({ verdict: 'allow', by: 'user' }));
    for (const [name, entry] of [['first', first], ['second', second], ['third', third]] as const) void entry.outcome.then(() => order.push(name));
    await tick();
    await tick();
    expect(order).toEqual([]);
    answer({ verdict: 'allow', by: 'user' });
    await Promise.all([first.outcome, second.outcome, third.outcome]);
    expect(order).toEqual(['first', 'second', 'third']);
  });

  test('a call arriving while a prompt is open joins the batch and is re-checked after the answer', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    let granted = false;
    let answer!: (value: LatchAnswer) => void;
    const first = scripted(latch, () => (granted ? 'allow' : 'ask'), () => new Promise((done) => (answer = done)));
    await tick();
    const second = scripted(latch, () => (granted ? 'allow' : 'ask'), async () => ({ verdict: 'deny', by: 'user' }));
    await tick();
    granted = true; // what "Always allow" does before the answer resolves
    answer({ verdict: 'allow', by: 'user' });
    expect((await first.outcome).type).toBe('forward');
    expect((await second.outcome).type).toBe('forward');
    expect(second.asked).toBe(0);
  });

  test('ordering "none": allowed calls do not wait for an open prompt', async () => {
    const latch = new SessionLatch({ ordering: 'none' });
    let answer!: (value: LatchAnswer) => void;
    const asking = scripted(latch, () => 'ask', () => new Promise((done) => (answer = done)));
    const allowed = scripted(latch, () => 'allow', async () => ({ verdict: 'allow', by: 'user' }));
    expect((await allowed.outcome).type).toBe('forward');
    answer({ verdict: 'deny', by: 'user', text: 'Denied by mcp-latch: no' });
    expect(await asking.outcome).toMatchObject({ type: 'deny', text: 'Denied by mcp-latch: no' });
  });

  // Round 15 review, A6: five identical appends answered "Allow once" in one prompt ran five times.
  test.each(['batch', 'none'] as const)('ordering %s: "Allow once" runs the call it was given for; an identical call is asked for itself, a deny answers both', async (ordering) => {
    const latch = new SessionLatch({ ordering });
    const answers: Array<(value: LatchAnswer) => void> = [];
    const submit = (): { asked: () => number; outcome: Promise<LatchOutcome> } => {
      let asked = 0;
      const call: LatchCall = { cancel: fromSignal(new AbortController().signal), decision: decision('ask'), recheck: () => decision('ask'), key: 'the same call', ask: () => ((asked += 1), new Promise((done) => answers.push(done))), denial: (d) => `Denied by mcp-latch: ${d.reason}` };
      return { asked: () => asked, outcome: latch.submit(call) };
    };
    const one = submit();
    const two = submit();
    await tick();
    await tick();
    expect(answers).toHaveLength(1);
    answers[0]!({ verdict: 'allow', by: 'user' });
    // (With ordering "batch" the first is released with its batch, after the second's answer.)
    await eventuallyAsked(() => answers.length === 2);
    expect(one.asked() + two.asked()).toBe(2);
    answers[1]!({ verdict: 'allow', by: 'user' });
    expect((await one.outcome).type).toBe('forward');
    expect((await two.outcome).type).toBe('forward');

    const three = submit();
    const four = submit();
    await eventuallyAsked(() => answers.length === 3);
    answers[2]!({ verdict: 'deny', by: 'user', text: 'Denied by mcp-latch: no' });
    expect(await three.outcome).toMatchObject({ type: 'deny', text: 'Denied by mcp-latch: no' });
    expect(await four.outcome).toMatchObject({ type: 'deny', text: 'Denied by mcp-latch: no' });
    expect(three.asked() + four.asked()).toBe(1);
  });

  // Round 15 review, A5: the file was replaced by a link to one outside the workspace while the prompt was open.
  test.each(['batch', 'none'] as const)('ordering %s: an allow given for one picture of the paths does not run the call in another', async (ordering) => {
    const latch = new SessionLatch({ ordering });
    const at = (realPath: string, inWorkspace: boolean): Decision => ({ ...decision('ask'), paths: [{ path: '/w/notes.txt', realPath, access: 'write', inWorkspace, input: '/w/notes.txt', via: 'path' }] });
    let now = at('/w/notes.txt', true);
    let answer!: (value: LatchAnswer) => void;
    const call: LatchCall = { cancel: fromSignal(new AbortController().signal), decision: now, recheck: () => now, ask: () => new Promise((done) => (answer = done)), denial: (d) => `Denied by mcp-latch: ${d.reason}` };
    const outcome = latch.submit(call);
    await tick();
    await tick();
    now = at('/outside/victim.txt', false);
    answer({ verdict: 'allow', by: 'user' });
    expect(await outcome).toMatchObject({ type: 'deny', decision: { verdict: 'deny', by: 'error' }, text: 'Denied by mcp-latch: /w/notes.txt changed while the person was asked: it now leads to /outside/victim.txt (outside the workspace), which the prompt did not show; ask again to see the call as it is now' });

    // The same paths as shown: the allow stands.
    const same = at('/w/notes.txt', true);
    let again!: (value: LatchAnswer) => void;
    const kept = latch.submit({ ...call, decision: same, recheck: () => same, ask: () => new Promise((done) => (again = done)) });
    await tick();
    await tick();
    again({ verdict: 'allow', by: 'user' });
    expect((await kept).type).toBe('forward');
  });

  test('an ask that throws denies (fail closed)', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    const entry = scripted(latch, () => 'ask', async () => {
      throw new Error('transport gone');
    });
    expect((await entry.outcome).type).toBe('deny');
  });

  test('a recheck that throws denies the call instead of forwarding it', async () => {
    const latch = new SessionLatch({ ordering: 'batch' });
    let rechecks = 0;
    // The first call is asked; the second, allowed when it arrived, is re-checked after the answer, and the re-check throws.
    const asked = latch.submit({ cancel: fromSignal(new AbortController().signal), decision: decision('ask'), recheck: () => decision('ask'), ask: async () => ({ verdict: 'deny', by: 'user' }), denial: () => 'Denied by mcp-latch: x' });
    const allowed = latch.submit({
      cancel: fromSignal(new AbortController().signal),
      decision: decision('allow'),
      recheck: () => {
        rechecks += 1;
        throw new Error('config vanished');
      },
      ask: async () => ({ verdict: 'allow', by: 'user' }),
      denial: () => 'Denied by mcp-latch: y',
    });
    expect((await asked).type).toBe('deny');
    const outcome = await allowed;
    expect(rechecks).toBeGreaterThan(0);
    expect(outcome).toMatchObject({ type: 'deny', decision: { verdict: 'deny', by: 'error', reason: expect.stringContaining('could not re-check the call') } });
  });
});

describe('randomised interleavings keep the invariants', () => {


  test.each(Array.from({ length: 25 }, (_, i) => i + 1))('seed %i: every forward had an allow, none twice, every call one outcome', async (seed) => {
    const random = rng(seed);
    const sessions = [new SessionLatch({ ordering: 'batch' }), new SessionLatch({ ordering: 'batch' }), new SessionLatch({ ordering: 'none' })];
    interface Tracked {
      id: number;
      outcomes: LatchOutcome[];
      allowedBy: 'rule' | 'user' | null;
      cancelled: boolean;
      verdict: Verdict;
    }
    const tracked: Tracked[] = [];
    const pending: Array<Promise<void>> = [];
    const grants = new Set<number>(); // per-session "always allow" flag, keyed by session index

    for (let i = 0; i < 60; i++) {
      const sessionIndex = Math.floor(random() * sessions.length);
      const latch = sessions[sessionIndex]!;
      const roll = random();
      const base: Verdict = roll < 0.35 ? 'allow' : roll < 0.5 ? 'deny' : 'ask';
      const controller = new AbortController();
      const item: Tracked = { id: i, outcomes: [], allowedBy: null, cancelled: false, verdict: base };
      tracked.push(item);
      const current = (): Verdict => (base === 'ask' && grants.has(sessionIndex) ? 'allow' : base);
      const answerKind = random();
      const delay = Math.floor(random() * 8);
      const call: LatchCall = {
        cancel: fromSignal(controller.signal),
        decision: decision(current()),
        recheck: () => {
          const verdict = current();
          if (verdict === 'allow') item.allowedBy ??= 'rule';
          return decision(verdict);
        },
        ask: async () => {
          await new Promise((done) => setTimeout(done, delay));
          if (controller.signal.aborted) return { verdict: 'deny', by: 'client' };
          if (answerKind < 0.4) {
            item.allowedBy = 'user';
            return { verdict: 'allow', by: 'user' };
          }
          if (answerKind < 0.5) {
            grants.add(sessionIndex);
            item.allowedBy = 'user';
            return { verdict: 'allow', by: 'user' };
          }
          if (answerKind < 0.7) return { verdict: 'deny', by: 'timeout', text: 'Denied by mcp-latch: no answer' };
          return { verdict: 'deny', by: 'user', text: 'Denied by mcp-latch: the user denied this call' };
        },
        denial: (d) => `Denied by mcp-latch: ${d.reason}`,
      };
      if (current() === 'allow') item.allowedBy = 'rule';
      pending.push(
        latch.submit(call).then((outcome) => {
          item.outcomes.push(outcome);
        }),
      );
      if (random() < 0.15) {
        setTimeout(() => {
          item.cancelled = true;
          controller.abort();
        }, Math.floor(random() * 10));
      }
      if (random() < 0.3) await new Promise((done) => setTimeout(done, Math.floor(random() * 4)));
    }
    await Promise.all(pending);

    for (const item of tracked) {
      expect(item.outcomes, `call ${item.id} got exactly one outcome`).toHaveLength(1);
      const outcome = item.outcomes[0]!;
      if (outcome.type === 'forward') {
        expect(item.allowedBy, `call ${item.id} was forwarded without an allow`).not.toBeNull();
        expect(item.verdict, `a denied call ${item.id} was forwarded`).not.toBe('deny');
      }
      if (outcome.type === 'cancelled') expect(item.cancelled).toBe(true);
      if (outcome.type === 'deny') expect(outcome.text).toMatch(/^Denied by mcp-latch:/);
    }
  });
});
