// The module's public face: what the apps and the other modules call. Anything else is internal.
export {
  apiKeyStanding,
  authenticateApiKey,
  createAccount,
  getAccount,
  revokeApiKey,
  touchApiKey,
} from './accounts';
export type { CreatedKey, KeyLimits, Principal } from './accounts';
export {
  accountEmails,
  ensureAdminAccount,
  getAccountView,
  listAccounts,
  setAccountLimits,
  setAccountStatus,
} from './admin';
export type { AccountChange, AccountView } from './admin';
export { findAccountId, findKeys, listAccountKeys, parseKeyReference, revokeKeyById } from './key-lookup';
export type { KeyReference, OperatorKeyView } from './key-lookup';
export { announceKeyRevocation, keyRevocationChannel, parseKeyRevocation } from './key-revocations';
export type { KeyRevocation } from './key-revocations';
export { hashApiKey } from './keys';
export {
  PasswordResetFailedError,
  WrongPasswordError,
  abandonPasswordReset,
  changePassword,
  resetPassword,
  startPasswordReset,
} from './password-reset';
export type { PasswordResetPolicy } from './password-reset';
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, hashPassword, isCommonPassword } from './passwords';
export { PLAYGROUND_KEY_NAME, PlaygroundKeyOffError, playgroundPrincipal } from './playground';
export {
  ResendCooldownError,
  VerificationFailedError,
  resendRegistrationCode,
  startRegistration,
  verifyRegistration,
} from './registration';
export type { RegistrationPolicy, RegistrationStart } from './registration';
export { authenticateSession, checkLogin, createSession, revokeSession } from './sessions';
export type { SessionPrincipal } from './sessions';
export {
  DuplicateKeyNameError,
  TooManyKeysError,
  createToken,
  deleteToken,
  getToken,
  listTokens,
  updateToken,
} from './tokens';
export type { TokenView } from './tokens';
