/** `2h`, `90m`, `1d12h`, `30s`: whole units of days, hours, minutes and seconds, largest first or not. */
export const DURATION_PATTERN = '^([0-9]{1,6}[dhms])+$';

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** The milliseconds of a duration of DURATION_PATTERN, or null for anything else. */
export function durationMs(text: string): number | null {
  if (!new RegExp(DURATION_PATTERN).test(text)) return null;
  let ms = 0;
  for (const [, count, unit] of text.matchAll(/([0-9]+)([dhms])/g)) ms += Number(count) * (UNIT_MS[unit as string] as number);
  return ms;
}
