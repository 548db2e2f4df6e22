/** Declared in config (config/settings/simulator-payment-keys.ts), which fills them in for an app pointed at the simulator. */
export { simulatorPaymentKeys, type SimulatorPaymentKeys } from "../../config/settings/simulator-payment-keys";
