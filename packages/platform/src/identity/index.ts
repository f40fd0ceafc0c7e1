/**
 * The public face of identity/: the OAuth authorization server: its routes, the access-token guard, sign-in sessions and throttles, grants and consents.
 * Every other folder imports identity/ through this file only (dependency-cruiser rule
 * 'capability-public-face'); files inside identity/ import each other directly.
 */
export { requireAccessToken } from './access-token-guard.js';
export { reserveAttempt, settleAttempt, type ThrottlePolicy } from './attempt-throttle.js';
export { exchangeAuthorizationCode, issueAuthorizationCode, type NewAuthorizationCode } from './authorization-codes.js';
export { browserCors } from './browser-origins.js';
export { storeConsents, withdrawStoreConsent } from './consent-store.js';
export { revokeGrant } from './grant-revocation.js';
export { authorizationCodeIssue, deleteConsentsAndCodes, lastTokenIssuedAt } from './grant-store.js';
export { identityRetentionRules } from './identity-retention.js';
export { identityRoutes } from './identity-routes.js';
export { createIdentityServices, type IdentityServices } from './identity-services.js';
export { loginPages } from './login-pages.js';
export {
  csrfToken,
  csrfTokenValid,
  currentSession,
  endSellerSessions,
  endSession,
  sessionSellerId,
  startSession,
} from './login-session.js';
export { OAuthError } from './oauth-error.js';
export { scopeKey } from './page-views.js';
export { type RefreshTokenKeys, refreshTokenKeys } from './refresh-token-key.js';
export { checkCredentials } from './seller-credentials.js';
export {
  identitySealedColumns,
  KeyRing,
  rotateSigningKey,
  type SigningKeyView,
  signingKeyViews,
} from './signing-keys.js';
export { throttleAddress } from './throttle-address.js';
export { ACCESS_TOKEN_TYP, REFRESH_TOKEN_TYP, type TokenInput, TokenSigner } from './token-signer.js';
