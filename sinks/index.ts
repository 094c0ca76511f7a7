export type {
  AnySink,
  AtLeastOnceSink,
  AtMostOnceAck,
  AtMostOnceSink,
  BatchingSink,
  InsertAttempt,
  InsertObserver,
  InsertOutcome,
  InsertResult,
  OutboxBatch,
  ResolveEndpoint,
  SentRequest,
  SinkContext,
  SinkMessage,
  SinkWarningKind,
} from './api.ts';
export type { SinkConstructor } from './classes/create-sink.ts';
export { type BatchToken, dedupToken, type DedupToken } from './domain/batch-token.ts';
export type { Brand } from './domain/brand.ts';
export type { RoutingFingerprint, TargetFingerprint } from './domain/fingerprint.ts';
export { formatMessageId, isMessageId, type MessageId, parseMessageId } from './domain/message-id.ts';
export { isSinkClassName, SINK_CLASS_NAMES, type SinkClassName } from './domain/sink-class-name.ts';
export { CodedError, hasErrorCode } from './errors.ts';
export type { SinkRegistry } from './registry.ts';
export { loadSinkClasses } from './load-sink-classes.ts';
export { InsertGaveUpError } from './retry/insert-give-up.ts';
export type { Row, RowValue } from './routing/routing-key.ts';
export { addressBook } from './session/address-book.ts';
export { type DeliveryGuarantee, type HostForm, SINK_CLASSES } from './sink-classes.ts';
export type { DynamicParameters, SinkSpec } from './spec/sink-spec.ts';
export { parseSinkSpec, validateDynamicParameters } from './spec/validate-spec.ts';
export type { TargetSlot, TopologyFingerprints } from './topology/topology-guard.ts';
export type { StreamColumn } from './types/stream-type.ts';
export type { LoaderEndpoint } from './staged/loader-connection.ts';
/** The staged loader's HTTP connection, loaded when opened (like `loadSinkClasses`, the client stays out of a room that only names things). */
export const openLoaderConnection = async (endpoint: import('./staged/loader-connection.ts').LoaderEndpoint) =>
  (await import('./staged/loader-connection.ts')).loaderConnection(endpoint);
export {
  type LoadId,
  owedByOperation,
  PUBLISH_OPERATIONS,
  type PublishOperation,
  publishStatement,
} from './staged/publication.ts';
export {
  type LoaderConnection,
  type LoaderObserver,
  type LoaderStep,
  type LoaderStepKind,
  type LoadOutcome,
  type LoadPart,
  StagedPartitionLoader,
  type StagedLoad,
  type StagedRow,
  stagingTable,
} from './staged/staged-partition-loader.ts';
