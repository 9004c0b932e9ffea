export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PING_INTERVAL_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type GatewayOptions,
  resolveGatewayOptions,
} from "./gateway-options.js";
export { isLoopbackHost, isLoopbackHostHeader } from "./loopback.js";
export { type Gateway, startGateway } from "./start-gateway.js";
export { MAX_MESSAGE_LENGTH } from "./validation.js";
export type { ClientMessage, RequestId } from "./ws/client-message.js";
export { MAX_RUNS_PER_CONNECTION } from "./ws/gateway-connection.js";
