/**
 * Time is injected everywhere (codes expire, secrets have a grace hour, webhooks
 * retry over hours). Only entry points use `systemClock`; tests move a `ManualClock`.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | string = '2026-01-15T12:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  advance(ms: number): void {
    this.#ms += ms;
  }

  advanceSeconds(seconds: number): void {
    this.#ms += seconds * 1000;
  }

  set(date: Date | string): void {
    this.#ms = new Date(date).getTime();
  }
}

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
