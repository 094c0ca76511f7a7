/**
 * The server error codes that are known transient, checked against the 26.7 engine
 * (`errorCodeToName(n)`) and `src/Common/ErrorCodes.cpp`. The seed's transient class is
 * network, protocol and timeouts, so only codes that report a failure of the transport or a
 * timeout are here. Every other server code is unclassified (bounded by `max_insert_attempts`):
 * Keeper loss, a read-only replica, TOO_MANY_PARTS, a memory limit, a missing table. The seed's
 * permanent class is validation, which the sink does itself before sending (schema check,
 * value encoding), so no server code is permanent.
 */
export const TRANSIENT_CLICKHOUSE_CODES: Readonly<Record<number, string>> = {
  95: 'CANNOT_READ_FROM_SOCKET',
  96: 'CANNOT_WRITE_TO_SOCKET',
  100: 'UNKNOWN_PACKET_FROM_SERVER',
  102: 'UNEXPECTED_PACKET_FROM_SERVER',
  159: 'TIMEOUT_EXCEEDED',
  198: 'DNS_ERROR',
  209: 'SOCKET_TIMEOUT',
  210: 'NETWORK_ERROR',
  279: 'ALL_CONNECTION_TRIES_FAILED',
};
