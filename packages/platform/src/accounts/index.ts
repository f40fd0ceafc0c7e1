/**
 * The public face of accounts/: sellers, their stores (tenants) and client apps: the repositories and the registration rules.
 * Every other folder imports accounts/ through this file only (dependency-cruiser rule
 * 'capability-public-face'); files inside accounts/ import each other directly.
 */
export {
  type ApiRateDecision,
  type ApiRateLimit,
  rememberedApiRefusal,
  takeApiRequest,
  takeApiRequestOfLiveFamily,
} from './api-rate-limit.js';
export {
  addRedirectUri,
  type ClientApp,
  type ClientRow,
  type ClientWithSecretHash,
  clientExists,
  clientFromPublicRow,
  clientListQuery,
  clientNamesById,
  countClients,
  createClient,
  deleteClientApp,
  findClientById,
  findPublicClientById,
  originOfClient,
  originRegistered,
  setClientRateLimit,
  toClient,
  verifyClientSecret,
} from './client-repository.js';
export { validateNewClient } from './client-rules.js';
export { operatorSessionRetention } from './operator-session-retention.js';
export { endOperatorSession, operatorSessionLive, startOperatorSession } from './operator-sessions.js';
export {
  countSellers,
  createSeller,
  deleteSellerAccount,
  deleteTenant,
  findSellerById,
  findSellerByLogin,
  findStoreWithSeller,
  insertTenant,
  listTenantsOfSeller,
  listTenantsOfSellers,
  renameTenant,
  type Seller,
  type StoreWithSeller,
  searchStores,
  sellerExists,
  sellerListQuery,
  type Tenant,
  tenantExists,
  updateSellerAccount,
} from './seller-repository.js';
