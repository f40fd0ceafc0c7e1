import { describe, expect, it } from 'vitest';
import { MAX_CHOSEN_GRACE_MS, rotateSecretWithGrace, signingSecrets } from './webhook-secret.js';
import { maskedWebhookUrl } from './webhook-url.js';

const box = { open: (sealed: string) => sealed.replace(/^sealed:/, '') };
const at = (iso: string) => new Date(iso);

describe('rotation from the console (D64)', () => {
  it('D64: the old secret signs for the chosen grace, capped at 24 h; none means only the new one signs', () => {
    const now = at('2026-11-26T12:00:00.000Z');
    const current = { secret_sealed: 'sealed:A', previous_secret_sealed: null, previous_secret_grace_until: null };
    const six = rotateSecretWithGrace(current, 'sealed:B', now, 6 * 3_600_000);
    expect(six).toEqual({
      secret_sealed: 'sealed:B',
      previous_secret_sealed: 'sealed:A',
      previous_secret_grace_until: '2026-11-26T18:00:00.000Z',
    });
    expect(rotateSecretWithGrace(current, 'sealed:B', now, 48 * 3_600_000).previous_secret_grace_until).toBe(
      new Date(now.getTime() + MAX_CHOSEN_GRACE_MS).toISOString(),
    );
    const none = rotateSecretWithGrace(current, 'sealed:B', now, 0);
    expect(signingSecrets(none, box, now)).toEqual(['B']);
  });

  it('D64: a second rotation inside the grace keeps the original signing until its chosen end and drops the one in between', () => {
    const first = rotateSecretWithGrace(
      { secret_sealed: 'sealed:A', previous_secret_sealed: null, previous_secret_grace_until: null },
      'sealed:B',
      at('2026-11-26T12:00:00.000Z'),
      6 * 3_600_000,
    );
    const second = rotateSecretWithGrace(first, 'sealed:C', at('2026-11-26T12:01:00.000Z'), 3_600_000);
    expect(second).toEqual({
      secret_sealed: 'sealed:C',
      previous_secret_sealed: 'sealed:A',
      previous_secret_grace_until: '2026-11-26T18:00:00.000Z',
    });
    expect(signingSecrets(second, box, at('2026-11-26T17:59:59.000Z'))).toEqual(['C', 'A']);
    expect(signingSecrets(second, box, at('2026-11-26T18:00:00.000Z'))).toEqual(['C']);
    // Once that grace is over, the next rotation starts a new one from the then-current secret.
    const third = rotateSecretWithGrace(second, 'sealed:D', at('2026-11-26T19:00:00.000Z'), 3_600_000);
    expect(third.previous_secret_sealed).toBe('sealed:C');
  });
});

describe('subscriber URLs on pages (D65)', () => {
  it('D65: query values and credentials are hidden, names and path kept', () => {
    expect(maskedWebhookUrl('https://hooks.example.com/in?token=s3cr3t&v=2')).toBe(
      'https://hooks.example.com/in?token=•••&v=•••',
    );
    expect(maskedWebhookUrl('https://user:pw@hooks.example.com:8443/in')).toBe('https://hooks.example.com:8443/in');
    expect(maskedWebhookUrl('https://hooks.example.com/in')).toBe('https://hooks.example.com/in');
    expect(maskedWebhookUrl('not a url?key=1')).toBe('not a url?•••');
  });
});
