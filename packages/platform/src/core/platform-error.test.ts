import { describe, expect, it } from 'vitest';
import { PlatformError } from './platform-error.js';

describe('PlatformError', () => {
  it('a refusal (4xx) is an answer: it carries no stack frames, and the process keeps its stack trace limit', () => {
    const limit = Error.stackTraceLimit;
    const refusal = new PlatformError('RATE_LIMITED');
    expect(refusal.statusCode).toBe(429);
    expect(refusal.stack).toBe(`PlatformError: ${refusal.message}`);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('a fault (5xx) keeps its stack: where it was thrown is what an operator reads in the log', () => {
    const fault = new PlatformError('SERVICE_UNAVAILABLE');
    expect(fault.statusCode).toBe(503);
    expect(fault.stack).toContain('platform-error.test.ts');
  });
});
