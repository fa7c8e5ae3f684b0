// The payment providers are defined in packages/shared/src/payments (types.ts, dev.ts): these names
// are kept for the API's wiring.
export {
  type AccountPaymentProvider as PaymentProvider,
  createDevPaymentProvider,
} from '@mediagate/shared/payments';
