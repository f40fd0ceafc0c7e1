import { readFileSync } from 'node:fs';

/**
 * Peak resident set size of a live process (`VmHWM`, the RSS high-water mark the
 * kernel keeps since the process started). Linux only: elsewhere `null`.
 */
export function peakRssBytes(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
