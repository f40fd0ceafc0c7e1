import type { LatencySummary } from './stats.js';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * What the load generator does: a fixed number of connections for a fixed time,
 * after a warm-up whose requests are not counted. Without `ratePerSecond` it is
 * a closed loop (each connection sends its next request when the previous
 * answer arrives); with it, an open loop at that rate.
 */
export interface LoadPlan {
  origin: string;
  /** PEM of a CA to trust for an https origin (the test CA of the receivers). */
  ca?: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
  ratePerSecond?: number;
  /** Sent round-robin. */
  requests?: RequestSpec[];
  /** A module exporting `createWorkload(options)` for requests that depend on earlier answers (e.g. refresh tokens). */
  workload?: { module: string; options: unknown };
  /** Statuses counted as success (default: any 2xx). */
  okStatuses?: number[];
  /**
   * A top-level string field of the JSON answers (e.g. `session_id`): each
   * measured success is then also returned as [that value, latency in µs], so
   * a scenario can join it with what the platform recorded about the request.
   */
  sampleField?: string;
}

export interface Workload {
  next(connection: number): RequestSpec | Promise<RequestSpec>;
  onResponse?(connection: number, status: number, body: string): void;
}

export interface LoadResult {
  /** Successful requests that started after the warm-up and finished within the measured window. */
  requests: number;
  errors: number;
  statusCounts: Record<string, number>;
  firstError: string | null;
  measuredMs: number;
  requestsPerSecond: number;
  /** Open loop only: requests that could not be sent on time because every connection was busy. */
  late: number;
  latency: LatencySummary;
  /** With `sampleField`: [field value, latency µs] per measured success. */
  samples?: Array<[string, number]>;
  /**
   * With `sampleField`: [field value, Date.now() when its answer arrived] per success, warm-up and tail
   * included: the moment the writer saw its write acknowledged, comparable with other processes' clocks on
   * the same machine.
   */
  arrivedAt?: Array<[string, number]>;
}
