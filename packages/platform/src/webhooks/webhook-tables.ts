/** Subscriptions, deliveries and attempts: filled in by the webhooks issue. */
// biome-ignore lint/suspicious/noEmptyInterface: the webhooks capability adds its tables here.
export interface WebhookTables {}
