import type { Scenario } from '../lib/scenario.js';
import { freight } from './freight.js';
import { freightXlsx } from './freight-xlsx.js';
import { httpFloor } from './http-floor.js';
import { listApi } from './list-api.js';
import { quote } from './quote.js';
import { scaleOut } from './scale-out.js';
import { seed } from './seed.js';
import { tenantIsolation } from './tenant-isolation.js';
import { tokenEndpoint } from './token-endpoint.js';
import { tokenPeer } from './token-peer.js';
import { webhookDelivery } from './webhook-delivery.js';
import { webhookVerify } from './webhook-verify.js';
import { yearSoak } from './year-soak.js';

/** Every scenario of BENCHMARKS.md, in the order they run. */
export const scenarios: Scenario[] = [
  webhookVerify,
  tokenEndpoint,
  tokenPeer,
  httpFloor,
  listApi,
  webhookDelivery,
  quote,
  tenantIsolation,
  seed,
  freight,
  freightXlsx,
  scaleOut,
  yearSoak,
];
