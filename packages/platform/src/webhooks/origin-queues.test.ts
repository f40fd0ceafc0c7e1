import { describe, expect, it } from 'vitest';
import { OriginQueues } from './origin-queues.js';

/** A job whose request finishes when the test says so. */
interface Job {
  id: string;
  subscriptionId: string;
  origin: string;
  finish?: () => void;
}

function harness(perOrigin: number, admit: (job: Job) => boolean = () => true) {
  const started: string[] = [];
  const refused: string[] = [];
  const running = new Map<string, () => void>();
  let finished = 0;
  let low = 0;
  const queues = new OriginQueues<Job>(perOrigin, {
    admit: (job) => {
      if (admit(job)) return true;
      refused.push(job.id);
      return false;
    },
    send: (job) =>
      new Promise<void>((resolve) => {
        started.push(job.id);
        running.set(job.id, resolve);
      }),
    finished: () => {
      finished += 1;
    },
    low: () => {
      low += 1;
    },
  });
  const add = (origin: string, ids: string[], subscriptionId = `sub-${origin}`) => {
    queues.noteSubscription(subscriptionId, origin);
    queues.add(ids.map((id) => ({ origin, job: { id, subscriptionId, origin } })));
  };
  /** Lets one running request finish and waits for its slot to be handed on. */
  const finish = async (id: string) => {
    const resolve = running.get(id);
    if (!resolve) throw new Error(`${id} is not running`);
    running.delete(id);
    const before = finished;
    resolve();
    for (let turns = 0; finished === before && turns < 100; turns++) await Promise.resolve();
  };
  return { queues, add, finish, started, refused, counts: () => ({ finished, low }) };
}

describe('per-origin queues', () => {
  it('runs at most the per-origin limit of requests per endpoint origin; the rest wait in its queue', () => {
    const h = harness(2);
    h.add('https://a.example', ['a1', 'a2', 'a3', 'a4']);
    expect(h.started).toEqual(['a1', 'a2']);
    expect(h.queues.inFlight).toBe(2);
    expect(h.queues.queued).toBe(2);
    expect(h.queues.busy).toBe(true);
  });

  it('a slow origin holds up only its own deliveries: another origin starts at once', () => {
    const h = harness(2);
    h.add('https://slow.example', ['s1', 's2', 's3']);
    h.add('https://fast.example', ['f1', 'f2']);
    expect(h.started).toEqual(['s1', 's2', 'f1', 'f2']);
    expect(h.queues.queued).toBe(1);
  });

  it('a finished request hands its slot to the next job of its origin, in order, and says so', async () => {
    const h = harness(1);
    h.add('https://a.example', ['a1', 'a2', 'a3']);
    await h.finish('a1');
    expect(h.started).toEqual(['a1', 'a2']);
    expect(h.counts().finished).toBe(1);
    await h.finish('a2');
    await h.finish('a3');
    expect(h.started).toEqual(['a1', 'a2', 'a3']);
    expect(h.queues.busy).toBe(false);
    await h.queues.settled();
  });

  it('names the subscriptions behind a full queue, so that a claim can leave them out', async () => {
    const h = harness(1);
    h.add('https://a.example', ['a1', 'a2'], 'sub-a');
    h.add('https://b.example', ['b1'], 'sub-b');
    h.queues.noteSubscription('sub-a2', 'https://a.example');
    // a: one running, one waiting (full at one); b: one running, none waiting.
    expect(h.queues.fullSubscriptions().sort()).toEqual(['sub-a', 'sub-a2']);
    await h.finish('a1');
    expect(h.queues.fullSubscriptions()).toEqual([]);
  });

  it('tells when an origin queue runs below the limit (time to claim more), and not while it stays full', async () => {
    const h = harness(2);
    h.add('https://a.example', ['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(h.counts().low).toBe(0); // three waiting
    await h.finish('a1');
    expect(h.counts().low).toBe(0); // two waiting: still full
    await h.finish('a2');
    expect(h.counts().low).toBe(1); // one waiting
  });

  it('a job refused just before its request (its lease no longer safe) is dropped unsent and frees no slot it never took', () => {
    const h = harness(2, (job) => job.id !== 'a2');
    h.add('https://a.example', ['a1', 'a2', 'a3']);
    expect(h.refused).toEqual(['a2']);
    expect(h.started).toEqual(['a1', 'a3']);
    expect(h.queues.inFlight).toBe(2);
    expect(h.queues.queued).toBe(0);
  });
});
