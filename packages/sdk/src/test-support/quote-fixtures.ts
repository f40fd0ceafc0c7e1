import type { QuoteRequest } from '@feira/contract';

/** A valid quote request as the platform sends it (metres, kilograms, BRL). */
export function sampleQuoteRequest(overrides: Partial<QuoteRequest> = {}): QuoteRequest {
  return {
    session_id: '3b241101-e2bb-4255-8caf-4136c566a962',
    zipcode: '01310100',
    items: [
      {
        sku: 'SKU-1',
        quantity: 2,
        price: 49.9,
        currency: 'BRL',
        dimensions: { depth: 0.3, height: 0.1, width: 0.2, weight: 0.5 },
      },
      {
        sku: 'SKU-2',
        quantity: 1,
        price: 10,
        currency: 'BRL',
        dimensions: { depth: 0.1, height: 0.1, width: 0.1, weight: 0.25 },
      },
    ],
    ...overrides,
  };
}

/** A budget timer the test fires by hand (no sleeping). */
export function manualTimer() {
  const started: number[] = [];
  let fire: (() => void) | undefined;
  let aborted = false;
  return {
    started,
    get aborted() {
      return aborted;
    },
    timer: (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        started.push(ms);
        fire = resolve;
        signal.addEventListener('abort', () => {
          aborted = true;
        });
      }),
    fire: () => fire?.(),
  };
}
