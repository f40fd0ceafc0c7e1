import { readdirSync, readFileSync } from 'node:fs';

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

/** CPU time a live process has used, all its threads, user and kernel, in ms (`/proc/<pid>/stat`). Linux only: elsewhere `null`. */
export function processCpuMs(pid: number): { userMs: number; systemMs: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are the 14th and 15th fields of the line, in clock ticks (USER_HZ, 100 on Linux).
    const tickMs = 10;
    return { userMs: Number(fields[11]) * tickMs, systemMs: Number(fields[12]) * tickMs };
  } catch {
    return null;
  }
}

/**
 * CPU time used so far by every live process whose command is `command` (`/proc/<pid>/stat`), user and
 * kernel, in µs: the PostgreSQL server's postmaster, its background workers and every backend. A backend
 * that exits between two readings takes its time with it, so read around a phase whose connections stay
 * open. Linux only: elsewhere `null`.
 */
export function commandCpuMicros(command: string): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  let ms = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== command) continue;
    } catch {
      continue; // gone since the listing
    }
    const cpu = processCpuMs(Number(pid));
    if (cpu) ms += cpu.userMs + cpu.systemMs;
  }
  return ms * 1000;
}
