/** Image versions of the docker backend, pinned in one place. */
export const DOCKER_IMAGES = {
  clickhouse: 'clickhouse/clickhouse-server:26.7',
  keeper: 'clickhouse/clickhouse-keeper:26.7',
  toxiproxy: 'ghcr.io/shopify/toxiproxy:2.12.0',
  kafka: 'apache/kafka:4.1.1',
} as const;
