/**
 * A webhook message in the spec's shape, padded (inside `data.params`, which
 * allows extra keys) to exactly `bytes` bytes, so every verifier gets the same body.
 */
export function paddedWebhookBody(bytes: number): string {
  const base = {
    data: { status: 'UPDATE', params: { id: 'ord_0001', note: '' }, resource: '/v1/orders/ord_0001' },
    tenant_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    topic: 'order',
  };
  const emptyLength = Buffer.byteLength(JSON.stringify(base));
  if (emptyLength > bytes) throw new Error(`a message needs at least ${emptyLength} bytes`);
  base.data.params.note = 'x'.repeat(bytes - emptyLength);
  return JSON.stringify(base);
}
