import { receiptVerifyWith } from './receipt-verify-command';

/** `stepchain receipt verify` (./receipt-verify-command.ts), its keyless check loaded when one is made. */
export const receiptVerifyCommand = receiptVerifyWith(
  () => import(/* webpackMode: "eager" */ '../../receipt/keyless/verify'),
);
